"""The sweep report: the leaderboard with its parameter, cost and Pareto columns and marks in Markdown, LaTeX and
HTML; what each mark means, stated on the page; the optional comparisons; the HTML page parsed back."""

from __future__ import annotations

import dataclasses
import re

import pandas as pd
import pytest

from retrieval_eval.report import html_report, markdown_report, to_html, to_latex, to_markdown
from retrieval_eval.report.comparisons import SHOWN_QUERIES
from retrieval_eval.report.legend import inversion
from retrieval_eval.sweep.analysis import SweepResult, sweep
from retrieval_eval.sweep.ranking import Leaderboard
from tests.sweep.test_leaderboard import FAST, qrels, run

from .sweeps import with_comparisons
from .test_views import Fragment

HEADER = ["configuration", "rank", "ndcg@5", "map", "95% CI", "p (Holm)", "tied_with_best", "wins", "ties", "losses"]


def tables_of(page: str) -> dict[str, dict]:
    """The page's tables by their class, each its header and rows of cell texts (the page must be well formed)."""
    parsed = Fragment(page)
    classes = [attributes.get("class") for tag, attributes in parsed.starts if tag == "table"]
    return dict(zip(classes, parsed.tables))


def plain(markdown: str) -> str:
    """Markdown text as it reads: each backslash escape replaced by the character it escapes."""
    return re.sub(r"\\(.)", r"\1", markdown)


def markdown_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table as they read (its header first, the rule line left out)."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    rows = [[plain(cell.strip()) for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return [rows[0], *rows[2:]]


def latex_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.endswith("\\\\")]
    return [[cell.strip() for cell in line[: -len("\\\\")].split(" & ")] for line in lines]


def expected_rows(result) -> list[list[str]]:
    """The oracle of the leaderboard's cells, written from the table's definition."""
    rows = []
    for name, row in result.table.iterrows():
        rank = int(row["rank"])
        mark = "*" if rank == 1 else ("" if row["tied_with_best"] else "†")
        statistics = (
            ["", "best", "", "", ""]
            if rank == 1
            else [f"{row['p_randomization_holm']:.4f}", "yes" if row["tied_with_best"] else "no",
                  str(row["wins"]), str(row["ties"]), str(row["losses"])]
        )  # fmt: skip
        rows.append(
            [name + mark, str(rank), f"{row['ndcg@5']:.4f}", f"{row['map']:.4f}",
             f"{row['ci_low']:.4f}–{row['ci_high']:.4f}", *statistics,
             str(result.parameters.at[name, "top_k"]), str(result.parameters.at[name, "chunk"]),
             f"{result.parameters.at[name, 'latency_ms']:g}", "yes" if result.pareto[name] else "no"]
        )  # fmt: skip
    return rows


# -- the leaderboard in three formats ---------------------------------------------------------


def test_every_format_shows_the_parameters_the_cost_and_the_pareto_front(grid):
    header = [*HEADER, "top_k", "chunk", "latency_ms", "pareto"]
    rows = expected_rows(grid)
    assert markdown_rows(to_markdown(grid)) == [header, *rows]
    board = tables_of(to_html(grid))["leaderboard"]
    assert [board["header"], *board["rows"]] == [header, *rows]
    latex = latex_rows(to_latex(grid))
    escape = lambda text: text.replace("_", "\\_").replace("%", "\\%").replace("–", "--")  # noqa: E731
    marks = {"*": "$^*$", "†": "$^\\dagger$"}
    assert latex[0] == [escape(column) for column in header]
    for shown, row in zip(latex[1:], rows):
        name = row[0].rstrip("*†")
        assert shown == [escape(name) + marks.get(row[0][len(name):], ""), *map(escape, row[1:])]
    assert to_latex(grid).startswith("\\begin{tabular}{lrrrrrlrrrrrrl}")
    assert grid.pareto.any() and not grid.pareto.all()  # both cells are seen


def test_marks_follow_tied_with_best(grid):
    table = grid.table
    names = [row[0] for row in markdown_rows(to_markdown(grid))[1:]]
    assert names[0] == table.index[0] + "*"
    assert [name.endswith("†") for name in names] == (~table["tied_with_best"]).tolist()
    assert (~table["tied_with_best"]).any()  # the test sees a dagger


def test_a_leaderboard_alone_has_no_parameter_columns(grid):
    assert markdown_rows(to_markdown(grid.leaderboard))[0] == HEADER


def test_a_parameter_that_does_not_apply_is_an_empty_cell(fusion):
    shown = markdown_rows(to_markdown(fusion))
    header, rows = shown[0], shown[1:]
    assert header[-6:] == ["method", "norm", "k", "w0", "tokens", "pareto"]
    for row, (name, parameters) in zip(rows, fusion.parameters.loc[fusion.table.index].iterrows()):
        k, w0 = row[header.index("k")], row[header.index("w0")]
        assert (k != "") == (parameters["method"] == "rrf") and (w0 != "") == (parameters["method"] == "wsum")
        assert k == ("" if pd.isna(parameters["k"]) else str(int(parameters["k"])))
        assert row[header.index("norm")] == ("" if pd.isna(parameters["norm"]) else parameters["norm"])


def test_names_are_text_in_every_format():
    runs = {"a|b <script>": run(good=0.9, seed=1), "c & d_e": run(good=0.1, seed=2)}
    result = sweep(qrels(), runs, ["ndcg@5", "map"], **FAST)
    assert [row[0] for row in markdown_rows(to_markdown(result))[1:]] == ["a|b <script>*", "c & d_e†"]
    assert "a\\|b \\<script\\>\\*" in to_markdown(result)  # as written, not a cell, a tag or emphasis
    assert "<script>" not in html_report(result, with_plots=False) and "a|b &lt;script&gt;*" in to_html(result)
    assert "c \\& d\\_e$^\\dagger$" in to_latex(result)


# -- what the marks mean, on the page ---------------------------------------------------------


def test_the_page_explains_the_marks_and_why_a_tied_one_can_rank_below_a_worse_one(inverted):
    table = inverted.table
    assert list(table.index) == ["best", "steady", "noisy"]
    assert table["tied_with_best"].tolist() == [True, False, True]  # rank 2 worse, rank 3 tied
    sentence = "In this sweep: rank 2 (steady) is significantly worse, while rank 3 (noisy) is tied with the best."
    html_text = re.sub(r"<[^>]+>", "", html_report(inverted, with_plots=False)).replace("&#x27;", "'")
    for text in (html_text, plain(markdown_report(inverted))):
        assert sentence in text
        for words in (
            "* best; † significantly worse than the best; no mark: tied with the best",
            "Holm-adjusted over the 2 comparisons with the best", "at most alpha = 0.05", "tied_with_best is no",
            "Tied means not shown to differ, not shown to be equal", "tested against the best alone",
            "how consistently its per-query differences from the best point one way, not how far down it ranks",
            "Objective: ndcg@5 (higher is better); 3 configurations, 30 queries compared; tests at alpha = 0.05.",
        ):  # fmt: skip
            assert words in text, words


def test_the_level_on_the_page_is_the_sweeps(grid):
    result = sweep(qrels(), {"a": run(good=0.9, seed=1), "b": run(good=0.6, seed=2)}, ["map"], alpha=0.01, **FAST)
    markdown = plain(markdown_report(result))
    assert "at most alpha = 0.01" in markdown and "alpha = 0.05" not in markdown
    assert "pareto" not in markdown  # no costs: no Pareto entry
    assert "**pareto**: yes for a configuration no other beats on ndcg@5 and on the costs (latency_ms)" in plain(markdown_report(grid))


def _inversion_oracle(ranks_and_tied: list[tuple[int, bool]]):
    for index, (rank, tied) in enumerate(ranks_and_tied):
        later = [r for r, t in ranks_and_tied[index + 1 :] if t]
        if not tied and later:
            return rank, later[-1]
    return None


@pytest.mark.parametrize(
    "tied", [[True, True, False, False], [True, False, True, False, True, True], [True], [True, False, False, True]]
)
def test_the_example_of_an_inversion_is_the_first_worse_above_the_last_tied(tied):
    table = pd.DataFrame({"rank": range(1, len(tied) + 1), "tied_with_best": tied}, index=[f"c{i}" for i in range(len(tied))])
    board = Leaderboard(table, pd.DataFrame(), "map")
    found = inversion(board)
    expected = _inversion_oracle(list(zip(table["rank"], tied)))
    assert (None if found is None else (found[0][0], found[1][0])) == expected
    if found is not None:
        assert found[0][1] == f"c{found[0][0] - 1}" and found[1][1] == f"c{found[1][0] - 1}"


# -- the comparisons, when the sweep computed them --------------------------------------------


def test_every_pair_and_the_head_to_head_are_shown_when_present(grid):
    result = with_comparisons(grid)
    board = result.leaderboard
    pairs, duel = board.pairwise, board.head_to_head
    tables = tables_of(html_report(result, with_plots=False))
    shown = tables["pairwise"]
    assert shown["header"] == ["a", "b", "mean_a", "mean_b", "difference", "p_t_holm", "p_randomization_holm", "significant"]
    assert len(shown["rows"]) == len(pairs) == 66
    for row, pair in zip(shown["rows"], pairs.itertuples()):
        assert row == [pair.a, pair.b, f"{pair.mean_a:.4f}", f"{pair.mean_b:.4f}", f"{pair.difference:.4f}",
                       f"{pair.p_t_holm:.4f}", f"{pair.p_randomization_holm:.4f}", "yes" if pair.significant else "no"]  # fmt: skip
    for outcome, css in (("win", "wins"), ("loss", "losses")):
        chosen = duel[duel["outcome"] == outcome]
        largest = sorted(chosen.itertuples(), key=lambda row: -abs(row.difference))[:SHOWN_QUERIES]
        assert tables[css]["rows"] == [[str(r.query_id), f"{r.best:.4f}", f"{r.runner_up:.4f}", f"{r.difference:.4f}"] for r in largest]
        assert 0 < len(largest) <= SHOWN_QUERIES
    counts = duel["outcome"].value_counts()
    summary = (f"The best, {board.table.index[0]}, against the runner-up, {board.table.index[1]}, on ndcg@5 query by "
               f"query: {counts.get('win', 0)} wins, {counts.get('tie', 0)} ties and {counts.get('loss', 0)} losses")  # fmt: skip
    markdown = markdown_report(result)
    assert summary in plain(markdown) and summary in html_report(result, with_plots=False)
    assert "## Every pair" in markdown and "Holm-adjusted over all 66 pairs" in markdown
    assert markdown_rows(markdown.split("## Every pair")[1].split("##")[0])[1][:2] == [pairs.at[0, "a"], pairs.at[0, "b"]]


def identical_leaders() -> SweepResult:
    """A sweep whose best two configurations score the same on every query, with a worse third."""
    same = run(good=0.8, seed=2)
    return sweep(qrels(), {"k100": same, "k20": same.copy(), "k5": run(good=0.2, seed=3)}, ["ndcg@5"], **FAST)


def test_identical_leaders_are_said_identical_with_no_empty_tables():
    result = identical_leaders()
    page = html_report(result, with_plots=False)
    sentence = "The best, k20, and the runner-up, k100, are identical on ndcg@5 on every one of the 30 queries."
    assert sentence in page and sentence in markdown_report(result)
    assert "wins" not in tables_of(page) and "losses" not in tables_of(page)
    assert "Largest wins" not in markdown_report(result) and "Largest losses" not in markdown_report(result)
    assert "ranks 1-2 (k20, k100) are identical on every query compared on ndcg@5: ordered by name" in page


def test_without_comparisons_there_is_no_such_section(grid):
    result = dataclasses.replace(grid, leaderboard=dataclasses.replace(grid.leaderboard, pairwise=None, head_to_head=None))
    page = html_report(result, with_plots=False)
    assert 'id="pairwise"' not in page and 'id="head-to-head"' not in page
    assert "Every pair" not in markdown_report(result) and "runner-up" not in markdown_report(result)


# -- the page ---------------------------------------------------------------------------------


def test_the_html_report_holds_the_tables_the_guide_and_the_plots(grid_report):
    page = grid_report.read_text(encoding="utf-8")
    parsed = Fragment(page)
    tables = tables_of(page)
    assert list(tables) == ["leaderboard", "wins", "losses", "effects"]  # the head-to-head of the best and the runner-up
    assert len(tables["leaderboard"]["rows"]) == 12 and len(tables["effects"]["rows"]) == 3 + 4  # values of top_k, chunk
    images = [attributes for tag, attributes in parsed.starts if tag == "img"]
    # Per-query boxes, the cost's Pareto plot, one plot per parameter, the heatmap of the two.
    assert [image["alt"] for image in images] == [
        "ndcg@5 per query: the top 5 of 12 configurations", "ndcg@5 against latency_ms: the Pareto front",
        "ndcg@5 by top_k", "ndcg@5 by chunk", "Mean ndcg@5 by top_k and chunk",
    ]  # fmt: skip
    assert all(image["src"].startswith("data:image/png;base64,iVBOR") for image in images)
    assert parsed.starts.count(("figcaption", {})) == len(images)
    sections = [attributes["id"] for tag, attributes in parsed.starts if tag == "section"]
    assert sections == ["leaderboard", "reading", "head-to-head", "effects", "plots"]
    assert "Top-k &amp; chunk &lt;sweep&gt;" in page and '<meta name="viewport"' in page
    assert page.count('<div class="scroll">') == len(tables)  # each table in its own scrolling box
    assert all(tag != "script" for tag, _ in parsed.starts)


def test_without_plots(grid):
    page = html_report(grid, with_plots=False)
    assert "<img" not in page and 'id="plots"' not in page and list(tables_of(page)) == ["leaderboard", "wins", "losses", "effects"]


def test_the_markdown_report_holds_the_leaderboard_the_guide_and_the_effects(grid):
    markdown = markdown_report(grid, title="Grid")
    assert markdown.startswith("# Grid\n\nObjective: ndcg@5 (higher is better); 12 configurations, 30 queries")
    leaderboard = markdown.split("## Leaderboard")[1].split("## How to read")[0]
    assert markdown_rows(leaderboard)[1:] == expected_rows(grid)
    effects = markdown_rows(markdown.split("## Marginal effects")[1])
    assert effects[0] == ["parameter", "value", "mean", "configurations", "delta"]
    assert [row[:2] for row in effects[1:]] == [["top_k", "5"], ["top_k", "10"], ["top_k", "20"],
                                                ["chunk", "128"], ["chunk", "256"], ["chunk", "512"], ["chunk", "1024"]]  # fmt: skip


def test_a_cutoff_plot_is_a_png():
    pytest.importorskip("matplotlib")
    from pathlib import Path

    from retrieval_eval.report.plots import cutoff_plot
    from retrieval_eval.sweep import cutoff_curve

    data = Path(__file__).resolve().parents[2] / "data"
    curve = cutoff_curve(str(data / "qrels.trec"), str(data / "run.trec"), "recall", 20)
    assert cutoff_plot({"run": curve}, "recall").startswith(b"\x89PNG")


def test_a_table_is_made_from_a_result_not_a_frame(grid):
    from retrieval_eval.errors import ConfigError

    with pytest.raises(ConfigError, match="^a leaderboard's table is made from a SweepResult or a Leaderboard, got a DataFrame$"):
        to_markdown(grid.table)


def test_one_configuration_has_no_test_to_explain():
    result = sweep(qrels(), {"only": run(good=0.5, seed=1)}, ["map"], **FAST)
    markdown = plain(markdown_report(result))
    assert "Objective: map (higher is better); 1 configuration, 30 queries compared" in markdown
    assert "**†**" not in markdown and "why a tied configuration" not in markdown and "runner-up" not in markdown
    assert "> one configuration: nothing to compare, no test was run" in markdown


def test_a_lower_is_better_objective_is_said_so():
    params = pd.DataFrame({"latency_ms": [10.0, 20.0]}, index=pd.Index(["a", "b"], name="configuration"))
    runs = {"a": run(good=0.2, seed=1), "b": run(good=0.8, seed=2)}
    result = sweep(qrels(), runs, ["holes@5"], parameters=params, costs=["latency_ms"], **FAST)
    markdown = plain(markdown_report(result))
    assert "Objective: holes@5 (lower is better)" in markdown and "the lowest mean holes@5 over the 30 queries" in markdown


def test_the_sweeps_own_comparisons_are_rendered_as_they_come():
    runs = {name: run(good=good, seed=seed) for seed, (name, good) in enumerate([("a", 0.9), ("b", 0.6), ("c", 0.5), ("d", 0.2)])}
    result = sweep(qrels(), runs, ["map"], all_pairs=True, **FAST)
    board = result.leaderboard
    tables = tables_of(html_report(result, with_plots=False))
    pairs = board.pairwise
    assert [row[:2] for row in tables["pairwise"]["rows"]] == [list(pair) for pair in zip(pairs["a"], pairs["b"])]
    assert len(pairs) == 6 and [row[-1] for row in tables["pairwise"]["rows"]] == ["yes" if s else "no" for s in pairs["significant"]]
    duel = board.head_to_head.set_index("query_id")
    wins = duel[duel["outcome"] == "win"]
    shown = [row[0] for row in tables["wins"]["rows"]]
    assert len(shown) == min(len(wins), SHOWN_QUERIES) > 0 and set(shown) <= set(map(str, wins.index))
    gaps = [abs(wins.loc[query, "difference"]) for query in wins.index if str(query) in shown]
    assert min(gaps) >= max([abs(d) for q, d in wins["difference"].items() if str(q) not in shown], default=0.0)
