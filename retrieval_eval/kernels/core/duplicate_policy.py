"""Which row wins when the same (query, document) pair appears more than once: the kernels' codes."""

KEEP_LAST = 0
KEEP_FIRST = 1
KEEP_MAX = 2
RAISE = 3
