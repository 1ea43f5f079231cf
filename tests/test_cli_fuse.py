"""`retrieval-eval fuse` and the fusion grid of `retrieval-eval sweep`: the files written are the API's fused runs,
the leaderboard is fusion_sweep's, every bad flag is exit 2 with one line, and --help loads nothing heavy."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from retrieval_eval import EvaluationOptions
from retrieval_eval.data import Run
from retrieval_eval.fusion import fuse
from retrieval_eval.sweep.fused import fusion_sweep
from tests.test_cli import run_cli
from tests.test_cli_imports import loaded_after

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, BM25, DENSE = str(DATA / "qrels.trec"), str(DATA / "run.trec"), str(DATA / "run_dense.trec")
FAST = ["--resamples", "200", "--rounds", "200"]


def _rows(run: Run) -> list[tuple]:
    return list(zip(run.table["query_id"].to_pylist(), run.table["doc_id"].to_pylist(), run.table["score"].to_pylist()))


@pytest.mark.parametrize(
    ("flags", "method", "norm", "params"),
    [
        (["--method", "rrf"], "rrf", "min-max", {}),
        (["--method", "RRF", "--param", "k=20", "--top-k-in", "15", "--top-k-out", "8"], "rrf", "min-max", {"k": 20}),
        (["--method", "wsum", "--weights", "0.3,0.7", "--norm", "zmuv"], "wsum", "zmuv", {"weights": [0.3, 0.7]}),
        (["--method", "CombMNZ", "--norm", "none"], "mnz", None, {}),
        # Negative weights as a user types them, without "=" (argparse took "-1,1" for an option).
        (["--method", "wsum", "--weights", "-1,1"], "wsum", "min-max", {"weights": [-1, 1]}),
        (["--method", "wsum", "--weights", "-.5,-2e-1"], "wsum", "min-max", {"weights": [-0.5, -0.2]}),
    ],
)
def test_fuse_writes_the_apis_fused_run_in_its_order(capsys, tmp_path, flags, method, norm, params):
    out = tmp_path / "fused.trec"
    code, stdout, err = run_cli(capsys, "fuse", BM25, DENSE, *flags, "-o", str(out))
    assert code == 0 and err == ""
    cut = {"top_k_in": 15, "top_k_out": 8} if "--top-k-in" in flags else {}
    expected = fuse([BM25, DENSE], method, norm=norm, params=params, **cut)
    written = Run.read(str(out))
    assert _rows(written) == _rows(expected)  # the same documents, scores (shortest round-trip text) and order
    lines = out.read_text().splitlines()
    assert lines[0].split()[3] == "1" and lines[0].split()[5] == expected.name
    assert stdout == f"fused 2 runs with {expected.name}: {expected.n_queries} queries, {len(expected)} documents -> {out}\n"


def test_fuse_writes_a_table_by_its_extension_with_a_tag(capsys, tmp_path):
    out = tmp_path / "fused.parquet"
    assert run_cli(capsys, "fuse", BM25, DENSE, "--method", "isr", "-o", str(out))[0] == 0
    frame = pd.read_parquet(out)
    assert list(frame.columns) == ["query_id", "doc_id", "score"] and _rows(Run.read(frame)) == _rows(fuse([BM25, DENSE], "isr"))
    trec = tmp_path / "fused.run"
    assert run_cli(capsys, "fuse", BM25, DENSE, "--method", "rrf", "--tag", "hybrid", "-o", str(trec))[0] == 0
    assert {line.split()[5] for line in trec.read_text().splitlines()} == {"hybrid"}


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--method", "wsum"], "fusion method 'wsum' needs weights="),
        (["--method", "rff"], "unknown fusion method 'rff'; did you mean 'rrf'?"),
        (["--method", "rrf", "--norm", "minmax2"], "unknown fusion normalization 'minmax2'"),
        (["--method", "rrf", "--param", "k"], "--param takes NAME=VALUE (e.g. k=60), got 'k'"),
        (["--method", "rrf", "--param", "k=x"], "k must be a finite number >= 0, got 'x'"),
        (["--method", "rrf", "--param", "k=1", "--param", "k=2"], "the parameter k is given twice"),
        (["--method", "rrf", "--param", "kk=1"], "fusion method 'rrf' has no parameter 'kk'"),
        (["--method", "wsum", "--weights", "a,b"], "--weights takes one number per run, separated by commas"),
        (["--method", "wsum", "--weights", "1,0", "--param", "weights=1"], "the parameter weights is given twice (and --weights)"),
        (["--method", "wsum", "--weights", "1,0,0"], "weights must be 2 numbers (one per run), got 3"),
        (["--method", "probfuse", "--param", "n_segments=2"], "qrels"),
    ],
)
def test_a_bad_fuse_is_exit_2_with_one_line(capsys, tmp_path, flags, message):
    out = tmp_path / "fused.trec"
    code, stdout, err = run_cli(capsys, "fuse", BM25, DENSE, *flags, "-o", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    assert err.startswith("retrieval-eval: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("flags", [["--method", "mapfuse"], ["--method", "probfuse", "--param", "n_segments=2"]])
def test_fuse_refuses_qrels_judging_none_of_the_runs_queries(capsys, tmp_path, flags):
    # Before: every fused score alike (0), exit 0; evaluate refuses such qrels too.
    other = tmp_path / "other.qrels"
    other.write_text("elsewhere 0 d1 1\n")
    out = tmp_path / "fused.trec"
    code, stdout, err = run_cli(capsys, "fuse", BM25, DENSE, *flags, "--qrels", str(other), "-o", str(out))
    assert code == 2 and stdout == "" and not out.exists() and err.count("\n") == 1
    assert err.startswith(f"retrieval-eval: error: {other}: no judged query is a query of the runs fused ({BM25}, {DENSE}), ")
    assert f"so {flags[1]} has nothing to train on" in err


def test_fuse_refuses_more_probfuse_segments_than_documents(capsys, tmp_path):
    # Before: n_segments=1e9 grew to 24 GB; every count past the deepest run's documents fuses alike.
    deepest = max(Run.read(path).table.group_by("query_id").aggregate([("doc_id", "count")])["doc_id_count"].to_numpy().max()
                  for path in (BM25, DENSE))  # fmt: skip
    out = tmp_path / "fused.trec"
    code, _, err = run_cli(capsys, "fuse", BM25, DENSE, "--method", "probfuse", "--param", "n_segments=1000000000",
                           "--qrels", QRELS, "-o", str(out))  # fmt: skip
    assert code == 2 and not out.exists() and err.count("\n") == 1
    assert f"n_segments=1000000000 is more segments than the deepest run ranks documents for a query ({deepest})" in err


def test_fuse_never_writes_over_an_input_and_needs_an_output(capsys, tmp_path):
    copy = tmp_path / "bm25.trec"
    copy.write_text(Path(BM25).read_text())
    before = copy.read_bytes()
    code, _, err = run_cli(capsys, "fuse", str(copy), DENSE, "--method", "rrf", "-o", str(copy))
    assert code == 2 and "it is the input" in err and copy.read_bytes() == before
    code, _, err = run_cli(capsys, "fuse", str(copy), DENSE, "--method", "rrf", "--qrels", QRELS, "-o", QRELS)
    assert code == 2 and "it is the input" in err
    with pytest.raises(SystemExit) as raised:
        run_cli(capsys, "fuse", BM25, DENSE, "--method", "rrf")
    assert raised.value.code == 2 and "-o/--output" in capsys.readouterr().err


def test_fuse_trains_on_the_qrels_given(capsys, tmp_path):
    out = tmp_path / "fused.trec"
    assert run_cli(capsys, "fuse", BM25, DENSE, "--method", "probfuse", "--param", "n_segments=3", "--qrels", QRELS,
                   "-o", str(out))[0] == 0  # fmt: skip
    assert _rows(Run.read(str(out))) == _rows(fuse([BM25, DENSE], "probfuse", n_segments=3, qrels=QRELS))


def test_a_fusion_sweep_prints_and_writes_fusion_sweeps_leaderboard(capsys, tmp_path):
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps([{"method": "mnz", "norm": ["max", "none"]}]))
    out = tmp_path / "leaderboard.csv"
    code, stdout, err = run_cli(
        capsys, "sweep", QRELS, BM25, DENSE, "--fuse", "rrf:k=10,60", "--fuse", "wsum:norm=min-max,sum:step=0.5",
        "--fusion-grid", str(grid), "-m", "ndcg@10", "-m", "map", "--ties", "ranx", "--top-k-out", "20", "-o", str(out), *FAST,
    )  # fmt: skip
    assert code == 0 and err == ""
    assert stdout.startswith("objective: ndcg@10\n")
    written = pd.read_csv(out).set_index("configuration")
    expected = fusion_sweep(
        QRELS, {"run": BM25, "run_dense": DENSE},
        [{"method": "rrf", "k": [10, 60]}, {"method": "wsum", "norm": ["min-max", "sum"], "weights": {"step": 0.5}},
         {"method": "mnz", "norm": ["max", "none"]}],
        ["ndcg@10", "map"], options=EvaluationOptions(ties="ranx"), top_k_out=20, resamples=200, rounds=200,
    ).table  # fmt: skip
    assert list(written.index) == list(expected.index) and len(written) == 10
    assert written["ndcg@10"].tolist() == pytest.approx(expected["ndcg@10"].tolist(), rel=1e-15)
    assert {"method", "norm", "k", "w_run", "w_run_dense"} <= set(written.columns)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--fuse", "rrf:k"], "--fuse 'rrf:k': 'k' is not KEY=VALUES"),
        (["--fuse", "rrf", "--fuse", "rff"], "--fuse 'rff': unknown fusion method 'rff'"),
        (["--fuse", "rrf:k=10", "--fuse", "rrf:k=10,20"],
         "--fuse 'rrf:k=10,20' (rrf): configuration 'rrf,k=10' is 'rrf,k=10' of --fuse 'rrf:k=10' (rrf) again"),
        (["--fuse", "wsum:w=0.5/0.5/0"], "weights must be 2 numbers (one per run), got 3"),
        # A step that does not divide 1 leaves ranx's grid empty: said so, not "give at least one run".
        (["--fuse", "wsum:step=0.3"], "--fuse 'wsum:step=0.3' (wsum): the weight grid at step 0.3 has no 2 weights summing to exactly 1"),
        (["--fuse", "rrf", "--param-pattern", "(?P<x>.)"], "--param-pattern and --cost read the parameters of run files"),
        (["--fuse", "rrf", "--cost", "latency_ms"], "--param-pattern and --cost read the parameters of run files"),
        (["--top-k-in", "10"], "--top-k-in and --top-k-out cut the runs of a fusion sweep"),
        (["--fusion-grid", "missing.json"], "missing.json: cannot read the file"),
    ],
)
def test_a_bad_fusion_sweep_is_exit_2_with_one_line_before_any_work(capsys, flags, message):
    code, stdout, err = run_cli(capsys, "sweep", QRELS, BM25, DENSE, *flags, *FAST)
    assert code == 2 and stdout == ""
    assert err.startswith("retrieval-eval: error: ") and message in err and err.count("\n") == 1


def test_a_grid_file_entry_is_named_in_its_error(capsys, tmp_path):
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps([{"method": "rrf"}, {"method": "wsum", "norm": "max"}]))
    code, _, err = run_cli(capsys, "sweep", QRELS, BM25, DENSE, "--fusion-grid", str(grid))
    assert code == 2 and f"{grid}: entry 2 (wsum): fusion method 'wsum' needs weights=" in err
    code, _, err = run_cli(capsys, "sweep", QRELS, BM25, DENSE, "--fusion-grid", str(grid), "-o", str(grid))
    assert code == 2 and "it is the input" in err


@pytest.mark.parametrize("argv", [["fuse", "--help"], ["sweep", "--help"]])
def test_fuse_and_sweep_help_load_no_heavy_module(argv):
    assert not loaded_after(argv) & {"pandas", "numba", "scipy", "pyarrow", "pydantic", "matplotlib", "dask"}
