"""``retrieval-eval ndeval``: ndeval's command line, its lines on stdout, one-line errors with exit 2."""

from __future__ import annotations

from retrieval_eval.cli import main
from retrieval_eval.frontends.ndeval import ndeval


def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 1 A 1\n1 2 B 1\n1 2 D 1\n1 3 C 1\n2 1 A 0\n")
    run = tmp_path / "run.txt"
    run.write_text("wt09-1 Q0 A 1 9.3 first\n1 Q0 D 2 8.4 r\n1 Q0 E 3 8.1 r\n1 Q0 B 4 7.6 r\n3 Q0 A 1 1 r\n")
    return str(qrels), str(run)


def test_the_command_prints_ndevals_lines(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["ndeval", "-c", "-M", "3", "-alpha", "0.3", "-beta", "0.9", "-traditional", qrels, run]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == ndeval(qrels, run, alpha="0.3", beta="0.9", max_docs=3, all_topics=True)
    assert main(["ndeval", qrels, run]) == 0
    printed = capsys.readouterr().out.splitlines()
    # As ndeval -traditional prints it (checked against ndeval.c 4.5 built from pyndeval 0.0.8's sdist).
    assert printed[1] == ("first,1,0.393343,0.390776,0.390730,0.829787,0.829787,0.829787,0.405289,0.399879,"
                          "0.399741,0.786896,0.786896,0.786896,0.390625,0.862069,0.500000,0.200000,0.100000,"
                          "0.050000,0.666667,0.666667,0.666667")
    assert [line.split(",")[1] for line in printed[1:]] == ["1", "3", "amean"]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1 A 1\nx1 1 B 1\n")
    assert main(["ndeval", str(bad), run]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "bad.txt" in error and "row 2" in error and "natural number" in error
    assert main(["ndeval", "-alpha", "1.5", qrels, run]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "-alpha" in error
    (tmp_path / "empty.txt").write_text("")
    assert main(["ndeval", qrels, str(tmp_path / "empty.txt")]) == 2
    assert "empty" in capsys.readouterr().err


def test_baseline_lines_as_ndeval_prints_them(tmp_path, capsys):
    """-c -baseline -riskAlpha 1: the run's topics and the baseline's (2 and 7 only there), URisk's doubled losses."""
    _, run = _files(tmp_path)
    (tmp_path / "qrels.txt").write_text("1 1 A 1\n1 2 B 1\n1 2 D 1\n1 3 C 1\n2 1 A 1\n")
    base = tmp_path / "base.txt"
    base.write_text("1 Q0 A 1 0.9 b\n2 Q0 A 1 0.9 b\n7 Q0 A 1 1 b\n")
    assert main(["ndeval", "-c", "-baseline", str(base), "-riskAlpha", "1", str(tmp_path / "qrels.txt"), run]) == 0
    printed = capsys.readouterr().out.splitlines()
    # As ndeval.c 4.5 prints it (built from pyndeval 0.0.8's sdist).
    runid = "first (rel to. b; rs=1+a; a=1)"
    assert [line.split(",")[1] for line in printed[1:]] == ["1", "2", "3", "7", "amean"]
    assert printed[2] == (f"{runid},2,-1.452345,-1.442866,-1.442695,-2.000000,-2.000000,-2.000000,-1.317109,"
                          "-1.299526,-1.299079,-2.000000,-2.000000,-2.000000,-1.500000,-2.000000,-2.000000,-0.400000,"
                          "-0.200000,-0.100000,-2.000000,-2.000000,-2.000000")
    assert printed[5] == (f"{runid},amean,-0.325265,-0.323142,-0.323104,-0.420213,-0.420213,-0.420213,-0.282834,"
                          "-0.279059,-0.278963,-0.409828,-0.409828,-0.409828,-0.339844,-0.422414,-0.458333,-0.066667,"
                          "-0.033333,-0.016667,-0.416667,-0.416667,-0.416667")
