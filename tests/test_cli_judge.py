"""``retrieval-eval judge`` on the sample data against the scripted server: the holes filled, sources kept, a cached
second run sending nothing, errors listed with exit status 1, a dry run sending nothing, bad settings in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import retrieval_eval as rev
from retrieval_eval.cli import main
from retrieval_eval.io.label_sources import read_label_sources
from tests.judging.server import Reply, ScriptedServer, chat_reply

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = [str(DATA / "qrels.trec"), str(DATA / "run.trec"), str(DATA / "run_dense.trec")]
TEXTS = ["--topics", str(DATA / "topics.tsv"), "--docs", str(DATA / "docs.jsonl")]


def label_from_text(request) -> int:
    return int(request.user_text.split("Section ", 1)[1][:3]) % 4


def labelling(request):
    return chat_reply(json.dumps({"label": label_from_text(request)}), request)


def judge_args(server: ScriptedServer, *extra: str) -> list[str]:
    return ["judge", *SAMPLE, "--depth", "10", *TEXTS, "--base-url", server.url + "/v1", "--model", "judge-model",
            "--max-retries", "1", *extra]


def test_judge_fills_every_hole_of_the_sample_and_a_cached_run_sends_nothing(tmp_path, capsys):
    out, cache = tmp_path / "judged.trec", tmp_path / "cache"
    with ScriptedServer(labelling) as server:
        assert main(judge_args(server, "--cache", str(cache) + "/", "-o", str(out))) == 0
        sent = len(server.requests)
        first = capsys.readouterr().out
        assert main(judge_args(server, "--cache", str(cache) + "/", "-o", str(tmp_path / "again.trec"))) == 0
        assert len(server.requests) == sent > 0
    assert f"judged {sent} of {sent} pooled documents at depth 10 (0 from the cache, {sent} requests, 0 errors)" in first
    assert "from the cache" in capsys.readouterr().out
    assert (tmp_path / "again.trec").read_bytes() == out.read_bytes()
    options = rev.EvaluationOptions(ties="docid")
    evaluator = rev.Evaluator(str(out), ["holes@10"], options=options)
    for run in SAMPLE[1:]:
        assert np.all(evaluator.evaluate(run).values("holes@10") == 0)
    human = (DATA / "qrels.trec").read_text().split("\n")
    merged = set(out.read_text().split("\n"))
    assert set(human) <= merged  # every human label unchanged
    sources = read_label_sources(out).to_pandas()
    assert (sources["source"] == "human").sum() == len([line for line in human if line])
    summary = json.loads((tmp_path / "judged.trec.judge.json").read_text())
    assert summary["totals"]["requests"] == sent and summary["judge"]["template"] == "relevance-0-3"


def test_items_left_unjudged_are_listed_and_exit_1(tmp_path, capsys):
    def script(request):
        # Retry-After: 0 stands for the backoff's wait, which --max-retries cannot shorten from the command line.
        failing = Reply(500, {"error": {"message": "down"}}, {"Retry-After": "0"})
        return failing if label_from_text(request) == 0 else labelling(request)

    with ScriptedServer(script) as server:
        status = main(judge_args(server, "-o", str(tmp_path / "j.tsv"), "--errors", str(tmp_path / "errors.tsv")))
    captured = capsys.readouterr()
    assert status == 1
    assert "58 items not judged; all of them in" in captured.err and "no reply after 2 attempt(s): status 500" in captured.err
    errors = pd.read_csv(tmp_path / "errors.tsv", sep="\t", dtype=str)
    assert list(errors.columns) == ["query_id", "doc_id", "error"] and len(errors)
    labels = pd.read_csv(tmp_path / "j.tsv", sep="\t", dtype=str)
    assert list(labels.columns) == ["query_id", "doc_id", "relevance", "source"]
    assert not set(zip(errors["query_id"], errors["doc_id"])) & set(zip(labels["query_id"], labels["doc_id"]))


def test_dry_run_sends_nothing_and_bounds_the_cost(tmp_path, capsys):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"judge-model": {"prompt": 0.15, "completion": 0.6}}))
    with ScriptedServer(labelling) as server:
        assert main(judge_args(server, "-o", str(tmp_path / "j.trec"), "--dry-run", "--prices", str(prices))) == 0
        assert len(server.requests) == 0
    line = capsys.readouterr().out
    assert "pooled documents to judge at depth 10; 0 answered by the cache" in line and "cost at most 0.0" in line
    assert not (tmp_path / "j.trec").exists()


def test_rejudge_then_agree(tmp_path, capsys):
    out = tmp_path / "judge_labels.tsv"
    with ScriptedServer(labelling) as server:
        assert main(["judge", SAMPLE[0], "--rejudge", "--sample", "40", *TEXTS, "--base-url", server.url + "/v1",
                     "--model", "judge-model", "-o", str(out)]) == 0
        assert len(server.requests) == 40
    assert len(out.read_text().splitlines()) == 41
    capsys.readouterr()
    assert main(["agree", SAMPLE[0], str(out)]) == 0
    assert "40 pairs judged by both" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--depth", "10", "--budget", "0"], "argument --budget: expected a positive number, got '0'"),
        (["--depth", "10", "--budget", "1"], "--budget COST needs the model's price: --prices PRICES.json"),
        (["--rejudge", "--depth", "10"], "--rejudge judges the pairs of QRELS: give no runs and no --depth"),
        (["--depth", "10", "--scale", "3"], "--scale takes LOW-HIGH"),
    ],
)
def test_bad_settings_are_one_line_with_exit_2(tmp_path, extra, message):
    run = subprocess.run([sys.executable, "-m", "retrieval_eval.cli", "judge", *SAMPLE, *TEXTS, "--base-url",
                          "http://127.0.0.1:9/v1", "--model", "m", "-o", str(tmp_path / "o.trec"), *extra],
                         capture_output=True, text=True, cwd=DATA.parent)
    # The error is the last line (argparse's own errors come after its usage lines).
    assert run.returncode == 2 and message in run.stderr.strip().splitlines()[-1], run.stderr


def test_a_missing_key_is_named(tmp_path):
    env = {key: value for key, value in __import__("os").environ.items() if key != "OPENAI_API_KEY"}
    run = subprocess.run([sys.executable, "-m", "retrieval_eval.cli", "judge", *SAMPLE, "--depth", "5", *TEXTS,
                          "--model", "gpt-4o-mini", "-o", str(tmp_path / "o.trec")],
                         capture_output=True, text=True, cwd=DATA.parent, env=env)
    assert run.returncode == 2 and "set OPENAI_API_KEY" in run.stderr, run.stderr


def test_the_items_left_unjudged_are_listed_with_their_ids_escaped(capsys):
    import pyarrow as pa

    from retrieval_eval.cli.judge import _report_errors

    errors = pa.table({"query_id": ["q\x1b]0;owned\x07"], "doc_id": ["d\r\u202e"], "error": ["item 1: status 500: \x1b[2Jdown"]})
    _report_errors(errors, "errors.tsv")
    err = capsys.readouterr().err
    assert err.splitlines() == ["retrieval-eval: 1 item not judged; all of them in errors.tsv",
                                "  query q\\x1b]0;owned\\x07 doc d\\r\\u202e: status 500: \\x1b[2Jdown"]  # fmt: skip
