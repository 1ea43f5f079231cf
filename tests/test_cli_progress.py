"""Progress lines of the command line: none unless stderr is a terminal or --progress says so (never with
--quiet), and one for each long phase: reading, scoring, streaming, buckets, Dask, explain's tables and page,
a fusion sweep's alignment and its configurations."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval import progress
from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN, RUN_DENSE = (str(DATA / name) for name in ("qrels.trec", "run.trec", "run_dense.trec"))


@pytest.fixture
def no_delay(monkeypatch):
    """Every phase prints at once, so that the sample's tiny inputs show their lines."""
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)


def lines(err: str) -> list[str]:
    """The progress lines of stderr, a counter's rewrites on a terminal split apart."""
    return [part.strip() for part in re.split(r"[\r\n]", err) if part.startswith("retrieval-eval: ")]


# The command line: when the lines appear.


def test_not_on_a_terminal_the_commands_print_no_progress(no_delay, capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "ndcg@10")
    assert (code, err) == (0, "")


def test_on_a_terminal_they_do_and_quiet_silences_them(no_delay, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "ndcg@10")
    assert code == 0 and f"retrieval-eval: reading {RUN} ..." in lines(err)
    code, _, err = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "ndcg@10", "--quiet")
    assert (code, err) == (0, "")


def test_progress_and_quiet_go_together_never(capsys):
    with pytest.raises(SystemExit):
        run_cli(capsys, "evaluate", QRELS, RUN, "--progress", "--quiet")
    assert "not allowed with argument" in capsys.readouterr().err


# The command line: each long phase has its line.


def test_evaluate_in_memory_reads_and_scores(no_delay, capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "ndcg@10", "-m", "map", "--progress")
    assert code == 0
    starts = [line for line in lines(err) if line.endswith(" ...")]
    assert starts == [f"retrieval-eval: reading {QRELS} ...", f"retrieval-eval: reading {RUN} ...",
                      f"retrieval-eval: scoring {RUN} (25 queries x 2 metrics) ..."]  # fmt: skip


def _sample_run_parquet(path: Path, shuffled: bool) -> str:
    """The sample run as a parquet file of row groups of 100 rows, sorted by query or shuffled."""
    from retrieval_eval.io import read_run_table

    table = read_run_table(RUN)
    if shuffled:
        table = table.take(pa.array(list(range(0, table.num_rows, 2)) + list(range(1, table.num_rows, 2))))
    pq.write_table(table, path, row_group_size=100)
    return str(path)


def test_a_streamed_single_file_counts_its_rows(no_delay, capsys, tmp_path, monkeypatch):
    run = _sample_run_parquet(tmp_path / "run.parquet", shuffled=False)
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 0.0)
    code, _, err = run_cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--memory-budget", "256MiB", "--progress")
    assert code == 0
    counted = [line for line in lines(err) if line.startswith(f"retrieval-eval: streaming {run}: ")]
    total = pq.read_metadata(run).num_rows
    assert counted[0] == f"retrieval-eval: streaming {run}: 0/{total:,} rows"
    assert re.fullmatch(rf"retrieval-eval: streaming {re.escape(run)}: {total:,}/{total:,} rows, \d+\.\d s", counted[-1])


def test_an_unsorted_run_shows_its_partitioning_and_its_buckets(no_delay, capsys, tmp_path, monkeypatch):
    from tests.scale.layouts import set_chunk_rows

    set_chunk_rows(monkeypatch, 200)
    run = _sample_run_parquet(tmp_path / "run.parquet", shuffled=True)
    code, _, err = run_cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--memory-budget", "128MiB", "--progress")
    assert code == 0
    shown_lines = lines(err)
    assert any(re.fullmatch(rf"retrieval-eval: partitioning {re.escape(run)} into \d+ buckets: .*rows, \d+\.\d s", line)
               for line in shown_lines)  # fmt: skip
    assert any(re.fullmatch(r"retrieval-eval: scoring the buckets: (\d+)/\1 buckets, \d+\.\d s", line) for line in shown_lines)


def test_explain_shows_its_phases_and_the_page(no_delay, capsys, tmp_path):
    page = str(tmp_path / "page.html")
    code, _, err = run_cli(capsys, "explain", QRELS, RUN, RUN_DENSE, "-m", "ndcg@10", "-o", page, "--progress")
    assert code == 0
    starts = [line for line in lines(err) if line.endswith(" ...")]
    # The two runs scored under one counter: each one's own scoring line is left out.
    assert any(re.fullmatch(r"retrieval-eval: scoring the runs: 2/2 runs, \d+\.\d s", line) for line in lines(err))
    assert not any(line.startswith(f"retrieval-eval: scoring {RUN}") for line in lines(err))
    assert "retrieval-eval: listing the top 20 documents of each run (25 queries) ..." in starts
    assert "retrieval-eval: finding the relevant documents each run missed (25 queries) ..." in starts
    assert "retrieval-eval: comparing the two runs' top 20 documents (25 queries) ..." in starts
    assert starts[-1] == f"retrieval-eval: building the page {page} (25 queries) ..."


def test_a_fusion_sweep_shows_the_alignment_and_counts_its_configurations(no_delay, capsys):
    code, _, err = run_cli(capsys, "sweep", QRELS, RUN, RUN_DENSE, "--fuse", "rrf:k=10,60", "-m", "ndcg@10",
                           "--resamples", "100", "--rounds", "100", "--progress")  # fmt: skip
    assert code == 0
    shown_lines = lines(err)
    assert any(re.fullmatch(r"retrieval-eval: aligning 2 runs \([\d,]+ rows\) \.\.\.", line) for line in shown_lines)
    assert any(re.fullmatch(r"retrieval-eval: scoring: 2/2 configurations, \d+\.\d s", line) for line in shown_lines)
    assert any(line.startswith("retrieval-eval: bootstrap intervals: 100 resamples x 2 configurations: 100/100") for line in shown_lines)


def test_dask_shows_the_cluster_starting_and_counts_partitions(no_delay, capsys, tmp_path):
    pytest.importorskip("distributed")
    run = _sample_run_parquet(tmp_path / "run.parquet", shuffled=False)
    code, _, err = run_cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--dask", "local:1", "--progress")
    assert code == 0
    shown_lines = lines(err)
    assert "retrieval-eval: loading dask.dataframe ..." in shown_lines
    assert "retrieval-eval: starting a local Dask cluster of 1 worker ..." in shown_lines
    assert shown_lines[-2] == "retrieval-eval: stopping the local Dask cluster ..."
    assert any(re.fullmatch(r"retrieval-eval: planning the Dask job \(\d+ pieces? of the run, shuffled by query\) \.\.\.", line)
               for line in shown_lines)  # fmt: skip
    assert any(re.fullmatch(r"retrieval-eval: scoring on Dask: (\d+)/\1 partitions, \d+\.\d s", line) for line in shown_lines)


def test_every_command_that_works_on_inputs_takes_progress_and_quiet():
    import argparse

    from retrieval_eval.cli import build_parser

    def commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
        """Every leaf command (``qrels merge`` as well as ``evaluate``)."""
        found = {}
        for action in parser._actions:  # noqa: SLF001  (argparse keeps the subcommands there)
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for name, child in action.choices.items():
                    found.update(commands(child, f"{prefix}{name} ") or {f"{prefix}{name}": child})
        return found

    leaves = commands(build_parser())
    assert {"evaluate", "qrels merge", "sweep", "explain"} <= set(leaves)
    assert [name for name, parser in leaves.items() if name != "metrics" and "--quiet" not in parser.format_help()] == []
