"""``retrieval-eval gdeval``: gdeval.pl's command line, its lines on stdout, one-line errors with exit 2."""

from __future__ import annotations

from retrieval_eval.cli import main
from retrieval_eval.frontends.gdeval import gdeval


def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n3 0 y 3\n5 0 z 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.5 runA\n1 Q0 b 2 1.5 runA\n3 Q0 z 1 1 runA\n3 Q0 y 2 1 runA\n")
    base = tmp_path / "base.txt"
    base.write_text("1 Q0 b 1 2 base\n1 Q0 a 2 1 base\n5 Q0 z 1 1 base\n")
    return str(qrels), str(run), str(base)


def test_the_command_prints_gdevals_lines(tmp_path, capsys):
    qrels, run, base = _files(tmp_path)
    assert main(["gdeval", "-k", "2", "-c", "-baseline", base, "-riskAlpha", "1.0", qrels, run]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == gdeval(qrels, run, k=2, baseline=base, risk_alpha="1.0", all_topics=True)
    assert printed[0] == "runid,topic,ndcg@2,err@2"
    assert printed[1].startswith("runA (rel to. base, rs=1+a, a=1.0),1,")
    assert [line.split(",")[-3] for line in printed[1:]] == ["1", "3", "5", "amean"]
    assert main(["gdeval", qrels, run]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "runid,topic,ndcg@20,err@20"


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    qrels, run, _ = _files(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 0 a 7\n")
    assert main(["gdeval", str(bad), run]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "above 4" in error and "bad.txt" in error
    assert main(["gdeval", "-riskAlpha", "-1", "-baseline", run, qrels, run]) == 2
    assert "riskAlpha" in capsys.readouterr().err
