"""The per-item engine: each evaluator of an evaluation document, one item (or turn) at a time, and the
registry that names them; the judged evaluators are in :mod:`.judged`."""
