"""The agree command: the library's label and ranking agreement printed and written, exit 2 on bad usage or input."""

from __future__ import annotations

import json
import re

import pytest

from retrieval_eval.cli import main
from retrieval_eval.judging.agreement import label_agreement
from retrieval_eval.judging.ranking_agreement import ranking_agreement

HUMAN = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 0\nq2 0 d 1\nq2 0 e 2\nq3 0 a 1\nq3 0 f 0\n"
JUDGE = "q1 0 a 2\nq1 0 b 1\nq1 0 c 1\nq2 0 a 0\nq2 0 d 0\nq2 0 e 2\nq3 0 a 1\nq3 0 g 1\n"
RUNS = {
    "bm25.trec": "q1 Q0 a 1 3 x\nq1 Q0 b 2 2 x\nq2 Q0 d 1 2 x\nq2 Q0 e 2 1 x\nq3 Q0 f 1 1 x\n",
    "dense.trec": "q1 Q0 c 1 3 x\nq1 Q0 a 2 2 x\nq2 Q0 e 1 2 x\nq3 Q0 a 1 1 x\n",
    "hybrid.trec": "q1 Q0 b 1 3 x\nq2 Q0 a 1 2 x\nq3 Q0 g 1 1 x\n",
}


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"human.trec": HUMAN, "judge.trec": JUDGE, **RUNS}.items():
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def test_labels_only_print_the_librarys_agreement(files, capsys):
    assert main(["agree", files["human.trec"], files["judge.trec"]]) == 0
    expected = label_agreement(files["human.trec"], files["judge.trec"])
    assert capsys.readouterr().out == str(expected) + "\n"


def test_with_runs_the_json_printed_and_written_is_both_agreements(files, tmp_path, capsys):
    output = tmp_path / "agreement.json"
    runs = [files[name] for name in RUNS]
    argv = ["agree", files["human.trec"], files["judge.trec"], *runs, "-m", "ndcg@3", "--alpha", "0.1", "--format", "json",
            "-o", str(output)]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(output.read_text()) == printed
    assert printed["labels"] == label_agreement(files["human.trec"], files["judge.trec"]).to_dict()
    expected = ranking_agreement(files["human.trec"], files["judge.trec"], runs, "ndcg@3", alpha=0.1)
    assert printed["ranking"] == json.loads(json.dumps(expected.to_dict()))
    assert printed["ranking"]["queries"] == 3 and len(printed["ranking"]["pairs"]) == 3


def test_with_runs_the_table_has_both_parts(files, capsys):
    assert main(["agree", files["human.trec"], files["judge.trec"], *(files[name] for name in RUNS), "-k", "3", "-m", "map"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("label agreement of ") and "ranking agreement on map over 3 queries judged by both (3 runs;" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-o", "out.tsv"], "-o writes JSON: give a .json path"),
        (["RUN_A"], "compares two or more runs, got 1"),
        (["--alpha", "1.5"], r"alpha must be a number in \(0, 1\), got 1.5"),
    ],
)
def test_bad_usage_exits_2_in_one_line(files, extra, message, capsys):
    extra = [files["bm25.trec"] if item == "RUN_A" else item for item in extra]
    assert main(["agree", files["human.trec"], files["judge.trec"], *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and re.search(message, err), err


def test_no_shared_pair_exits_2_naming_both_files(files, tmp_path, capsys):
    other = tmp_path / "other.trec"
    other.write_text("q9 0 z 1\n")
    assert main(["agree", files["human.trec"], str(other)]) == 2
    err = capsys.readouterr().err
    assert "no (query, document) pair is judged by both the human qrels" in err and "other.trec" in err
