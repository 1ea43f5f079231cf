"""The HTML views in a real browser: headless Chromium reads the same tables as the parser, and a hostile name does not run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .test_views import SCRIPT_NAME, four, parse, views_of_each_kind


def dump_dom(chromium: str, page: Path, profile: Path) -> str:
    """The page's DOM after the browser has loaded it and run its scripts."""
    command = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
        "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    shown = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0 and "</html>" in shown.stdout, shown.stderr[-2000:]
    return shown.stdout


def _section(dom: str, name: str) -> str:
    start = dom.index(f'<section id="{name}">') + len(f'<section id="{name}">')
    return dom[start : dom.index("</section>", start)]


def test_a_browser_reads_each_view_as_its_tables_and_runs_nothing_from_a_name(chromium, tmp_path):
    results = views_of_each_kind(tmp_path)
    views = {name: fragment for name, (_, fragment) in results.items()}
    sections = "\n".join(f'<section id="{name}">{fragment}</section>' for name, fragment in views.items())
    page = tmp_path / "views.html"
    page.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>views</title></head><body>\n'
        f"{sections}\n<script>document.body.setAttribute('data-page-script', 'ran')</script>\n</body></html>\n",
        encoding="utf-8",
    )
    dom = dump_dom(chromium, page, tmp_path / "profile")
    body = dom[dom.index("<body") : dom.index(">", dom.index("<body"))]
    assert 'data-page-script="ran"' in body  # the browser runs scripts: a hostile one would have run too
    assert "data-hostile" not in body
    for name, fragment in views.items():
        shown, ours = parse(_section(dom, name)), parse(fragment)
        assert shown.tables == ours.tables and shown.facts == ours.facts, name
    evaluation, _ = results["evaluation"]
    read = parse(_section(dom, "evaluation"))
    assert SCRIPT_NAME in read.facts[0]
    assert [row[0] for row in read.table("per query")["rows"]] == evaluation.query_ids.to_pylist()
    assert read.table("summary")["rows"][0][:2] == ["map", four(evaluation.summary_records()[0]["mean"])]
    board = parse(_section(dom, "sweep")).table("leaderboard")
    assert [row[0] for row in board["rows"]] == list(results["sweep"][0].table.index) and board["header"][-1] == SCRIPT_NAME
    assert parse(_section(dom, "log")).table("statuses")["rows"][-1] == [SCRIPT_NAME, results["log"][0].statuses.iloc[-1]]
    assert parse(_section(dom, "document")).table("evaluators")["rows"][1][0] == "RetrievalQuery"
