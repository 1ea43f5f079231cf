"""``python -m retrieval_eval.cli``: the ``retrieval-eval`` command."""

import sys

from . import main

sys.exit(main())
