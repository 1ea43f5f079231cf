"""The sweep as a terminal shows it: the terminal's width whatever the names, metrics and parameters; everything with wide; JSON."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.report.sweep_text import DUELS, sweep_json, sweep_text
from retrieval_eval.sweep import sweep
from retrieval_eval.views import PIPE_WIDTH, elide, marks_legend
from tests.sweep.test_leaderboard import FAST, qrels, run

METRICS = ["ndcg@5", "map", "P@3", "recall@5", "RR", "ndcg_exp@5", "holes@5", "precision@1"]


def _long_name(index: int) -> str:
    return f"k{index:02d}_hybrid_bm25_dense_rerank_cross_encoder_ms_marco_minilm_l6_v2_chunk512_overlap64_é{index}.trec"


@pytest.fixture(scope="module")
def crowded():
    """12 configurations with long names, 8 metrics, 8 parameters (long text among them) and 2 costs."""
    names = [_long_name(index) for index in range(12)]
    runs = {name: run(good=0.3 + 0.05 * index, seed=index) for index, name in enumerate(names)}
    parameters = pd.DataFrame(
        {"latency_ms": [40.5 + 10 * index for index in range(12)], "tokens": [1000 + index for index in range(12)],
         "top_k": [5 * (index + 1) for index in range(12)], "embedding_model": ["text-embedding-3-large-2024-preview"] * 12,
         "reranker": ["on", "off"] * 6, "chunk_size": [512] * 12, "overlap": [64] * 12, "alpha_weight": [0.25] * 12,
         "normalization": ["min-max"] * 12, "prompt_template": ["a very long prompt template name v17"] * 12},
        index=pd.Index(names, name="configuration"),
    )  # fmt: skip
    return sweep(qrels(), runs, METRICS, parameters=parameters, costs=["latency_ms", "tokens"], all_pairs=True, **FAST)


def _rows(text: str, count: int) -> list[str]:
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("rank "))
    return lines[start + 1 : start + 1 + count]


def test_every_line_fits_100_columns(crowded):
    text = sweep_text(crowded, width=100)
    assert max(map(len, text.splitlines())) <= 100
    assert all(len(line) <= 100 for line in marks_legend(0.001))


@pytest.mark.parametrize("width", [80, 60, 40])
def test_every_line_fits_a_narrower_terminal_and_the_configuration_stays(crowded, width):
    lines = sweep_text(crowded, width=width).splitlines()
    assert max(map(len, lines)) <= width
    header = next(line for line in lines if line.startswith("rank "))
    assert header.split()[0] == "rank" and header.split()[1].startswith("conf") and "ndcg@5 [95% CI]" in header
    if width < 80:  # what the leaderboard's own columns leave out is named
        assert "W/T/L" not in header and "W/T/L" in " ".join(lines[lines.index(header) + 13 :])


def test_the_width_is_the_terminals(crowded, monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    assert max(map(len, sweep_text(crowded).splitlines())) <= 72
    monkeypatch.delenv("COLUMNS")  # standard output is not a terminal under pytest's capture: the width of a pipe
    assert sweep_text(crowded) == sweep_text(crowded, width=PIPE_WIDTH)


def test_the_columns_a_search_engineer_reads_first_and_the_costs_then(crowded):
    board = crowded.leaderboard
    text = sweep_text(crowded)
    header = next(line for line in text.splitlines() if line.startswith("rank "))
    assert header.split() == ["rank", "configuration", "ndcg@5", "[95%", "CI]", "p", "vs", "best", "W/T/L", "latency_ms"]
    rows = _rows(text, len(board.table))
    for line, (name, row) in zip(rows, board.table.iterrows()):
        mark = "*" if row["rank"] == 1 else (" " if row["tied_with_best"] else "†")
        assert line.startswith(f"{row['rank']:>2}{mark}".rjust(len("rank")) + "  ")
        shown = line[6:].split("  ")[0]
        assert shown.startswith(name[: len(shown) // 2]) and shown.endswith(name[-(len(shown) - 1 - len(shown) // 2) :])
        assert f"{row['ndcg@5']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in line
        if row["rank"] > 1:
            p = row["p_randomization_holm"]
            assert (f"{p:.4f}" if p >= 1e-4 else "<0.0001") in line
            assert f"{row['wins']}/{row['ties']}/{row['losses']}" in line
        assert line.endswith(f"  {crowded.parameters.at[name, 'latency_ms']:g}")
    assert "†" in "".join(rows) and any(row[3] == " " for row in rows[1:])  # both marks occur
    left_out = ("not shown: tokens, pareto, top_k, embedding_model, reranker, chunk_size, overlap, alpha_weight, "
                "normalization, prompt_template, map, P@3, recall@5, RR, ndcg_exp@5, holes@5, precision@1 (--wide shows every column)")
    assert left_out in text.replace("\n  ", " ")


def test_a_small_sweep_shows_its_parameters_and_metrics_and_names_whole():
    runs = {"bm25": run(good=0.3, seed=1), "hybrid": run(good=0.8, seed=2)}
    parameters = pd.DataFrame({"latency_ms": [12, 48], "mode": ["bm", "hy"]}, index=pd.Index(["bm25", "hybrid"]))
    result = sweep(qrels(), runs, ["ndcg@5", "map"], parameters=parameters, costs=["latency_ms"], **FAST)
    text = sweep_text(result)
    assert "not shown" not in text
    header = next(line for line in text.splitlines() if line.startswith("rank "))
    assert header.split()[-4:] == ["latency_ms", "pareto", "mode", "map"]
    rows = _rows(text, 2)
    assert rows[0].startswith("  1*  hybrid  ") and rows[1].startswith("  2†  bm25    ")
    assert rows[0].split()[-4:] == ["48", "yes", "hy", f"{result.table.at['hybrid', 'map']:.4f}"]
    assert rows[1].split()[-4:] == ["12", "yes", "bm", f"{result.table.at['bm25', 'map']:.4f}"]


def test_wide_prints_every_column(crowded):
    text = sweep_text(crowded, wide=True)
    header = text.splitlines()[2]
    assert header.split() == ["rank", *METRICS, *[c for c in crowded.table.columns if c not in ("rank", *METRICS)]]
    assert all(name in text for name in crowded.table.index)  # whole names
    assert max(map(len, text.splitlines())) > 100


def test_the_marks_and_ties_are_explained_below_the_table(crowded):
    lines = sweep_text(crowded).splitlines()
    legend = marks_legend(crowded.leaderboard.alpha)
    assert legend[0] in lines and legend[1] in lines
    assert "p <= 0.05" in legend[0] and "not the rank" in legend[1]


def test_the_largest_wins_and_losses_against_the_runner_up(crowded):
    board = crowded.leaderboard
    duel = board.head_to_head
    text = sweep_text(crowded)
    wins, ties, losses = ((duel["outcome"] == outcome).sum() for outcome in ("win", "tie", "loss"))
    assert f"the best against the runner-up (rank 2) on ndcg@5, per query: {wins} wins, {ties} ties, {losses} losses" in text
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("the best against"))) + 2
    shown = [line.split() for line in lines[start : start + 2 * DUELS] if line.startswith("  win") or line.startswith("  loss")]
    expected_wins = duel[duel["outcome"] == "win"].head(DUELS)
    expected_losses = duel[duel["outcome"] == "loss"].sort_values("difference", kind="stable").head(DUELS)
    expected = [["win", row.query_id, f"{row.best:.4f}", f"{row.runner_up:.4f}", f"{row.difference:+.4f}"]
                for frame in (expected_wins, expected_losses) for row in frame.itertuples()]  # fmt: skip
    assert shown == expected[: len(expected_wins)] + [["loss", *row[1:]] for row in expected[len(expected_wins) :]]


def test_all_pairs_when_asked(crowded):
    text = sweep_text(crowded)
    assert "all pairs (Holm-adjusted over 66 pairs; * significant at 0.05):" in text
    pairs = crowded.leaderboard.pairwise
    lines = text.splitlines()
    start = lines.index("all pairs (Holm-adjusted over 66 pairs; * significant at 0.05):") + 2
    marked = [line.rstrip().endswith("*") for line in lines[start : start + 66]]
    assert marked == pairs["significant"].tolist()


def test_the_json_holds_the_table_notes_head_to_head_and_pairs(crowded):
    document = json.loads(sweep_json(crowded))
    board = crowded.leaderboard
    assert set(document) == {"objective", "higher_is_better", "alpha", "test", "correction", "queries", "table", "notes", "head_to_head",
                             "pairwise", "effects", "significance"}  # fmt: skip
    assert document["significance"] is None  # not asked for
    assert (document["test"], document["correction"]) == ("randomization", "holm")
    assert (document["objective"], document["higher_is_better"], document["alpha"], document["queries"]) == ("ndcg@5", True, 0.05, 30)
    assert [record["configuration"] for record in document["table"]] == list(board.table.index)
    assert document["table"][0]["p_t"] is None and document["table"][1]["latency_ms"] == crowded.parameters.iloc[:, 0][board.table.index[1]]
    assert [record["query_id"] for record in document["head_to_head"]] == board.head_to_head["query_id"].tolist()
    assert len(document["pairwise"]) == 66 and document["pairwise"][0]["a"] == board.table.index[0]
    assert document["effects"][0]["parameter"] == "top_k"


@given(st.text(min_size=0, max_size=60), st.integers(1, 50))
def test_a_name_is_elided_in_the_middle(text, width):
    shown = elide(text, width)
    printable = "".join(character if character.isprintable() else repr(character)[1:-1] for character in text)
    assert len(shown) <= width and shown.isprintable()
    if len(printable) <= width:
        assert shown == printable
    else:
        head = width // 2
        assert shown == printable[:head] + "…" + printable[len(printable) - (width - 1 - head) :]


def test_counts_are_in_the_singular_where_they_are_one():
    from retrieval_eval.views import counted

    assert [counted(1, "pair"), counted(2, "pair"), counted(0, "query", "queries"), counted(1, "loss", "losses")] == [
        "1 pair", "2 pairs", "0 queries", "1 loss"]  # fmt: skip
