"""The judge's cache: a second run sends nothing, replay refuses a miss, refresh keeps both, a foreign file is refused,
and an interrupted run keeps every reply already paid for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.judging.cache import CacheMiss, JudgeCache
from retrieval_eval.judging.judge import Judge
from retrieval_eval.judging.prompts import RELEVANCE
from retrieval_eval.judging.replies import LabelParser
from tests.judging.server import ScriptedServer, chat_reply
from tests.judging.test_judge import expected_labels, items, labelling, relevance_judge

REPO = Path(__file__).resolve().parents[2]


def test_a_second_run_sends_zero_requests_and_gives_the_same_judgments(tmp_path):
    cache = tmp_path / "judge.jsonl"
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        first = judge.run(items(12), cache=cache)
        sent = len(server.requests)
        second = judge.run(items(12), cache=cache)
        assert sent == 12 and len(server.requests) == 12
        assert second.values == first.values == expected_labels(judge, items(12))
        assert second.totals.cache_hits == 12 and second.totals.requests == 0 and second.totals.cost == 0
        assert all(item.cached and item.attempts == 0 for item in second.items)
    header = json.loads(cache.read_text().splitlines()[0])
    assert header["fingerprint"] == judge.fingerprint and header["judge"]["template"] == RELEVANCE.name


def test_replay_refuses_a_miss_and_sends_nothing(tmp_path):
    cache = tmp_path / "judge.jsonl"
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        judge.run(items(3), cache=cache)
        assert judge.run(items(3), cache=cache, cache_mode="replay").values == expected_labels(judge, items(3))
        with pytest.raises(CacheMiss, match=r"2 item\(s\) not in the cache, first item 4; replay mode sends nothing"):
            judge.run(items(5), cache=cache, cache_mode="replay")
        assert len(server.requests) == 3
    with pytest.raises(ConfigError, match="no such file, and replay mode sends nothing"):
        judge.run(items(1), cache=tmp_path / "absent.jsonl", cache_mode="replay")


def test_refresh_asks_again_and_keeps_both_replies(tmp_path):
    cache = tmp_path / "judge.jsonl"
    answers = iter([1, 3])
    with ScriptedServer(lambda r: chat_reply(json.dumps({"label": next(answers)}), r)) as server:
        judge = relevance_judge(server)
        assert judge.run(items(1), cache=cache).values == [1]
        assert judge.run(items(1), cache=cache, cache_mode="refresh").values == [3]
        assert len(server.requests) == 2
    opened = JudgeCache(cache, judge.fingerprint, judge.describe())
    (key,) = {json.loads(line)["key"] for line in cache.read_text().splitlines()[1:]}
    assert [json.loads(reply.content)["label"] for reply in opened.replies(key)] == [1, 3]
    assert judge.run(items(1), cache=cache).values == [1]  # read-write uses the first reply


def test_a_cache_of_another_judge_is_refused_naming_both(tmp_path):
    cache = tmp_path / "judge.jsonl"
    with ScriptedServer(labelling) as server:
        relevance_judge(server).run(items(1), cache=cache)
        other = relevance_judge(server, model="another-model")
        with pytest.raises(ConfigError, match=r"was written by judge \w+ \(model judge-model.*not by this judge \w+ "
                                              r"\(model another-model"):
            other.run(items(1), cache=cache)


def test_a_folder_holds_one_file_per_judge(tmp_path):
    with ScriptedServer(labelling) as server:
        first, second = relevance_judge(server), relevance_judge(server, model="another-model")
        first.run(items(2), cache=tmp_path)
        second.run(items(2), cache=tmp_path)
        assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
            [f"{first.fingerprint}.jsonl", f"{second.fingerprint}.jsonl"])


def test_a_damaged_line_is_named(tmp_path):
    cache = tmp_path / "judge.jsonl"
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        judge.run(items(2), cache=cache)
        with cache.open("a") as handle:
            handle.write("{not json\n")
        with pytest.raises(InputError, match=r"judge.jsonl, row 4: not JSON"):
            judge.run(items(2), cache=cache)


def test_a_reply_that_does_not_parse_is_kept_and_stays_an_error(tmp_path):
    cache = tmp_path / "judge.jsonl"
    with ScriptedServer(lambda r: chat_reply("relevant, I think", r)) as server:
        judge = relevance_judge(server)
        assert judge.run(items(1), cache=cache).totals.errors == 1
        again = judge.run(items(1), cache=cache)
        assert again.totals.errors == 1 and again.totals.requests == 0 and len(server.requests) == 1


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_keeps_every_reply_already_paid_for(tmp_path, stop):
    """A child process judges 40 items, one at a time, 200 ms a reply; it is stopped part-way, then run again."""
    cache, log = tmp_path / "judge.jsonl", tmp_path / "served.txt"
    child = textwrap.dedent(f"""
        import json, signal, sys
        sys.path.insert(0, {str(REPO)!r})
        from tests.judging.server import Reply, ScriptedServer, chat_reply
        from tests.judging.test_judge import items, relevance_judge
        from retrieval_eval.judging.limits import Limits
        signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
        # A process started in the background of a non-interactive shell inherits SIGINT ignored (and
        # Python then leaves it so): Ctrl-C's KeyboardInterrupt is what this test sends.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        def script(request):
            reply = chat_reply(json.dumps({{"label": 1}}), request)
            return Reply(body=reply.body, delay=0.2)  # 8 s for all 40: the signal comes first even on a loaded machine
        with ScriptedServer(script) as server:
            print("ready", flush=True)
            try:
                relevance_judge(server).run(items(40), cache={str(cache)!r}, limits=Limits(concurrency=1))
            finally:
                open({str(log)!r}, "w").write(str(len(server.requests)))
    """)
    process = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        assert process.stdout.readline().strip() == b"ready"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (not cache.exists() or len(cache.read_text().splitlines()) < 6):
            time.sleep(0.02)
        process.send_signal(stop)
        process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    kept = len(cache.read_text().splitlines()) - 1
    assert 5 <= kept < 40, kept
    assert kept >= int(log.read_text()) - 1  # every reply that arrived is in the file (one may have been cut off)
    with ScriptedServer(labelling) as server:
        again = relevance_judge(server).run(items(40), cache=cache)
        assert again.totals.cache_hits == kept and len(server.requests) == 40 - kept


def test_the_cache_key_is_the_request_not_its_position():
    from retrieval_eval.judging.cache import request_key

    body = {"messages": [{"role": "user", "content": "x"}], "temperature": 0.0}
    assert request_key("f", body) == request_key("f", dict(reversed(list(body.items()))))
    assert request_key("f", body) != request_key("g", body)


def test_cache_modes_are_checked(tmp_path):
    judge = Judge(object.__new__(type("B", (), {"describe": lambda self: {"backend": "x"}})), template=RELEVANCE,
                  parse=LabelParser())
    with pytest.raises(ConfigError, match="cache mode must be one of"):
        judge.open_cache(tmp_path / "c.jsonl", "sometimes")
    assert not os.path.exists(tmp_path / "c.jsonl")
