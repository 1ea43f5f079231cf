"""The retrieval-eval command: outputs, exit codes (0 ran/passed, 1 threshold failed, 2 bad input) and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from retrieval_eval import REGISTRY
from retrieval_eval.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_default_summary_of_trec_files_is_trec_evals_official_set(capsys):
    code, out, err = run_cli(capsys, "evaluate", QRELS, RUN)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[1].startswith("measures: trec_eval 10 (relevant: label >= 1; ties: descending doc id)")
    header = next(index for index, line in enumerate(lines) if line.startswith("metric "))
    assert lines[header - 1].startswith("queries: 25 evaluated")  # the conventions line wrapped to 100 columns above
    names = [line.split()[0] for line in lines[header + 1 :]]
    assert names[:4] == ["num_ret", "num_rel", "num_rel_ret", "map"]
    # trec_eval's names, as trec_eval prints them.
    assert {"gm_map", "Rprec", "bpref", "recip_rank", "P_5", "P_1000"} <= set(names)
    assert "P_3" not in names and "precision@3" not in names  # -k's default never replaces the cutoffs of trec_eval's P


def test_default_summary_of_tables_is_azures_document_retrieval_set(capsys):
    code, out, err = run_cli(capsys, "evaluate", str(DATA / "qrels.parquet"), str(DATA / "run.parquet"))
    assert code == 0 and err == ""
    assert out.splitlines()[1].startswith("measures: azure-ai-evaluation document retrieval (labels 0..4")
    for name in ("ndcg_exp@3", "xdcg@3", "fidelity", "holes@3", "total_ground_truth_documents"):
        assert name in out


def test_json_summary_and_outputs(capsys, tmp_path):
    per_query, summary = tmp_path / "pq.parquet", tmp_path / "summary.json"
    code, out, _ = run_cli(capsys, "evaluate", str(DATA / "qrels.parquet"), str(DATA / "run.parquet"), "-m", "ndcg_exp@10",
                           "-m", "fidelity", "--format", "json", "-o", str(per_query), "--summary-output", str(summary))
    assert code == 0
    printed = json.loads(out)
    assert set(printed["metrics"]) == {"ndcg_exp@10", "fidelity"}
    assert json.loads(summary.read_text()) == printed
    table = pd.read_parquet(per_query)
    assert list(table.columns) == ["query_id", "ndcg_exp@10", "fidelity"] and len(table) == 25


def test_k_applies_to_metrics_without_cutoff(capsys):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "-k", "5", "-m", "xdcg", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("xdcg@5,")


def test_column_names_can_be_given(capsys, tmp_path):
    qrels, run = tmp_path / "q.csv", tmp_path / "r.csv"
    qrels.write_text("topic,passage,grade\nt1,a,2\nt1,b,0\n")
    run.write_text("topic,passage,bm25\nt1,b,3.5\nt1,a,1.0\n")
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "top1_relevance", "-m", "max_relevance@2",
                           "--qrels-column", "query_id=topic", "--qrels-column", "doc_id=passage", "--qrels-column", "relevance=grade",
                           "--run-column", "query_id=topic", "--run-column", "doc_id=passage", "--run-column", "score=bm25",
                           "--format", "csv")
    assert code == 0
    assert out.splitlines()[1:] == ["top1_relevance,0.0,0", "max_relevance@2,2.0,0"]
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(run), "--run-column", "score")
    assert code == 2 and "CANONICAL=NAME" in err


def test_thresholds_set_the_exit_code(capsys):
    failed, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "--threshold", "ndcg_exp@3=0.99")
    assert failed == 1 and "verdict: FAIL" in out
    passed, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "--threshold", "ndcg_exp@3=0.01", "--threshold", "holes_ratio=1")
    assert passed == 0 and "verdict: PASS" in out


def test_azure_rows(capsys):
    code, out, _ = run_cli(capsys, "evaluate", "--azure", str(DATA / "azure_rows.jsonl"), "--format", "json")
    assert code == 0
    azure = json.loads(out)["metrics"]
    _, out, _ = run_cli(capsys, "evaluate", str(DATA / "qrels.parquet"), str(DATA / "run.parquet"), "--format", "json")
    assert json.loads(out)["metrics"] == azure


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", QRELS, RUN, "-m", "ndgc_exp@3"], "did you mean"),
        (["evaluate", QRELS, "missing.trec"], "missing.trec"),
        (["evaluate", QRELS, RUN, "-k", "0"], "positive integer"),
        (["evaluate", QRELS, RUN, "--threshold", "fidelity"], "METRIC=NUMBER"),
        (["evaluate", QRELS, RUN, "-m", "ndcg_exp@3", "--label-max", "1"], "label range"),
        (["evaluate", QRELS], "qrels file and a run file"),
        (["evaluate", "--azure", QRELS, RUN], "one file of Azure rows"),
        (["evaluate", QRELS, RUN, "-o", "/nonexistent-dir/x.parquet"], "x.parquet"),
        (["evaluate", QRELS, RUN, "-o", "out.xlsx"], "xlsx"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("retrieval-eval: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_debug_shows_the_traceback(capsys):
    with pytest.raises(Exception, match="did you mean"):
        main(["evaluate", QRELS, RUN, "-m", "ndgc_exp@3", "--debug"])


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["evaluate", QRELS, RUN, "--format", "yaml"])
    assert raised.value.code == 2


def test_metrics_listing_comes_from_the_registry(capsys):
    code, out, _ = run_cli(capsys, "metrics", "--format", "json")
    assert code == 0
    assert [row["metric"] for row in json.loads(out)] == [d.display_name for d in REGISTRY]
    _, text, _ = run_cli(capsys, "metrics")
    assert all(d.display_name in text for d in REGISTRY)


def test_evaluate_help_lists_every_metric(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(d.display_name in text for d in REGISTRY)


def test_module_entry_point_runs_as_a_program():
    completed = subprocess.run([sys.executable, "-m", "retrieval_eval.cli", "evaluate", QRELS, RUN, "--format", "csv"],
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("metric,mean,undefined")


def test_trec_output_has_trec_eval_columns_and_names(capsys):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "P.5,10", "-m", "map", "-m", "num_ret", "--trec")
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert all(len(fields) == 3 for fields in lines)
    names = [fields[0].strip() for fields in lines]
    # trec_eval's order (its measure table), not the order of -m; runid and num_q only when asked for.
    assert names == ["num_ret", "map", "P_5", "P_10"]
    assert all(fields[1] == "all" for fields in lines)
    assert lines[0][2] == "385"  # counts print whole (summed), as trec_eval's
    assert lines[2][2].startswith("0.") and len(lines[2][2]) == 6  # %6.4f


def test_trec_output_per_query_lines(capsys):
    code, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "ndcg_cut.10", "--trec", "-q", "-l", "2")
    assert code == 0
    queries = [line.split("\t")[1] for line in out.splitlines() if line.startswith("ndcg_cut_10")]
    assert queries[-1] == "all" and len(queries) == 26
    assert queries[:-1] == sorted(queries[:-1], key=str.encode)


def test_per_query_lines_need_trec_output(capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, RUN, "-q")
    assert code == 2 and "-q goes with --trec" in err


def test_trec_conventions_from_the_command_line(capsys, tmp_path):
    run = tmp_path / "run.tsv"
    run.write_text("query_id\tdoc_id\tscore\nq1\ta\t1\nq1\ta\t2\n")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query_id\tdoc_id\trelevance\nq1\ta\t1\nq2\tb\t1\n")
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "map")
    assert code == 2 and "more than once" in err and "row 2" in err
    # trec_eval 10 stops with status 4 at a judged query without results (q2), unless -c.
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "map", "--run-duplicates", "max", "--trec")
    assert (code, out) == (4, "") and "judged query 'q2' has no results" in err and "-c" in err
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "num_q", "-m", "map", "--run-duplicates",
                           "max", "--trec", "-c")
    assert code == 0 and out == "num_q                 \tall\t2\nmap                   \tall\t0.5000\n"


def test_trec_output_is_byte_identical_to_trec_eval(capsys, trec_eval_test):
    """Without -m, --trec prints what `trec_eval qrels run` prints, byte for byte."""
    for qrels, run, expected in [("qrels.test", "results.test", "out.test"),
                                 ("qrels.comment.test", "results.comment.test", "out.comment.test")]:
        code, out, _ = run_cli(capsys, "evaluate", str(trec_eval_test / qrels), str(trec_eval_test / run), "--trec")
        assert code == 0 and out == (trec_eval_test / expected).read_text()


def test_a_repeated_judgment_follows_the_conventions_of_the_measures(capsys, tmp_path):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query_id\tdoc_id\trelevance\nq1\ta\t1\nq1\ta\t0\n")
    run = tmp_path / "run.tsv"
    run.write_text("query_id\tdoc_id\tscore\nq1\ta\t1\n")
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "map", "--run-duplicates", "last")
    assert code == 2 and "judged more than once" in err  # trec_eval refuses it, whatever the run policy
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "map", "--qrels-duplicates", "last", "--trec")
    assert code == 0 and "map                   \tall\t0.0000" in out  # the last label (0) counts
    code, _, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "holes")
    assert code == 0  # Azure's conventions: the last label wins


def one_line_exit_2(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "", (code, out)
    assert err.startswith("retrieval-eval: error: ") and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    "thresholds",
    [("P@5=0.1", "precision@5=0.9"), ("P@5=0.1", "P@5=0.1"), ("ndcg_exp=0.5", "ndcg_exp@3=0.5"), ("P_5=0.2", "p.5=0.3")],
)
def test_a_metric_thresholded_twice_is_refused_naming_both(capsys, thresholds):
    # A second --threshold once replaced the first silently, so a gate could check another number than written.
    first, second = thresholds
    err = one_line_exit_2(capsys, "evaluate", QRELS, RUN, "--threshold", first, "--threshold", second)
    assert "has two thresholds" in err
    for given in thresholds:
        name, _, value = given.partition("=")
        assert f"{name}={float(value)!r}" in err


def test_a_parameter_repeated_in_a_metric_name_is_refused(capsys):
    err = one_line_exit_2(capsys, "evaluate", QRELS, RUN, "-m", "precision(rel=2,rel=3)@10")
    assert "parameter rel is given twice (rel=2, rel=3)" in err


PAST_INT64 = "99999999999999999999"


@pytest.mark.parametrize(
    "arguments",
    [["-k", PAST_INT64], ["-l", PAST_INT64], ["-M", PAST_INT64], ["-m", f"holes@{PAST_INT64}"],
     ["-m", f"P(rel={PAST_INT64})@5"], ["--label-max", PAST_INT64], ["--label-min", f"-{PAST_INT64}"]],
)
def test_a_number_past_int64_is_refused_in_one_line(capsys, arguments):
    # These were OverflowErrors and numba TypingErrors (or 24 GB of memory for -k).
    assert "2^63" in one_line_exit_2(capsys, "evaluate", QRELS, RUN, *arguments)


def test_a_run_that_shares_no_query_with_the_qrels_is_refused(capsys, tmp_path):
    # It exited 0 with NaN means (TREC measures) or zeros that passed a holes threshold.
    run = tmp_path / "other.trec"
    run.write_text("x1 Q0 d1 1 3.0 r\nx2 Q0 d2 1 2.0 r\n")
    per_query = tmp_path / "per_query.parquet"
    for metrics in (["-m", "P@5"], ["--threshold", "holes=0"]):
        err = one_line_exit_2(capsys, "evaluate", QRELS, str(run), *metrics, "-o", str(per_query))
        assert "has a document in the run" in err and "other.trec" in err
        assert not per_query.exists()


@pytest.mark.parametrize(
    "flags",
    [["-k", "5", "-k", "10"], ["-k", "5", "-k", "5"], ["-l", "1", "--rel-level", "2"], ["--format", "json", "--format", "csv"],
     ["--ties", "input", "--ties", "docid"], ["--query-set", "both", "--query-set", "qrels"], ["-M", "5", "-M", "9"],
     ["--label-max", "4", "--label-max", "5"], ["-o", "a.parquet", "-o", "b.parquet"]],
)
def test_a_flag_that_sets_one_value_given_twice_is_a_usage_error(capsys, flags):
    # The last one won silently: -k 5 -k 10 scored at 10.
    with pytest.raises(SystemExit) as raised:
        main(["evaluate", QRELS, RUN, *flags])
    err = capsys.readouterr().err
    assert raised.value.code == 2
    assert f"{flags[0]} {flags[1]} and {flags[2]} {flags[3]}: the option is given twice" in err.splitlines()[-1]


def test_a_column_named_twice_is_refused(capsys):
    err = one_line_exit_2(capsys, "evaluate", QRELS, RUN, "--qrels-column", "query_id=a", "--qrels-column", "query_id=b")
    assert "--qrels-column names query_id twice (query_id=a, query_id=b)" in err
