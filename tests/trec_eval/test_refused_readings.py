"""Option values trec_eval reads with C's atol (taking a prefix, or a negative count) are usage errors
under --trec, as the manual says (docs/trec-eval.md)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.trec_eval.differential import run_ours

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = DATA / "qrels.trec", DATA / "run.trec"


@pytest.mark.parametrize(("option", "value", "named"), [
    ("-M", "1e3", "-M/--max-docs"), ("-l", "1.5", "-l/--rel-level"), ("-N", "3x", "-N/--collection-size"),
    ("-N", "-5", "collection_size"),
])  # fmt: skip
def test_what_atol_would_truncate_is_refused_naming_the_option(trec_eval_binary, option, value, named):
    theirs = subprocess.run([str(trec_eval_binary), option, value, "-m", "P.5", str(QRELS), str(RUN)], capture_output=True)
    assert theirs.returncode == 0 and theirs.stdout.startswith(b"P_5")  # trec_eval scores something
    ours = run_ours([option, value, "-m", "P.5"], QRELS, RUN)
    assert ours.status == 2 and ours.stdout == b""
    assert named in ours.stderr.strip().splitlines()[-1]


def test_a_negative_document_count_is_refused_where_trec_eval_crashes(trec_eval_binary):
    theirs = subprocess.run([str(trec_eval_binary), "-M", "-1", "-m", "P.5", str(QRELS), str(RUN)], capture_output=True)
    assert theirs.returncode != 0  # a segmentation fault in trec_eval 10.0
    ours = run_ours(["-M", "-1", "-m", "P.5"], QRELS, RUN)
    assert (ours.status, ours.stdout) == (2, b"") and "max_docs must be an integer >= 0, got -1" in ours.stderr
