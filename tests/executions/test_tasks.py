"""Foundry agent optimizer task datasets: reading, criteria judged 0/1 in one batch, task and overall scores."""

from __future__ import annotations

import json
import math

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.executions import read_tasks, score_tasks
from tests.judging.server import Reply, ScriptedServer, chat_reply

from .judged_support import judge_at


def write_lines(path, records) -> str:
    path.write_text("".join((record if isinstance(record, str) else json.dumps(record)) + "\n" for record in records))
    return str(path)


def task(name: str, *criteria: str, **fields: object) -> dict:
    return {"name": name, "query": f"Do {name}", "criteria": [{"name": c, "instruction": f"check {c}"} for c in criteria],
            "response": f"Done {name}", **fields}


def met_unless(unmet: set[str], broken: set[str] = frozenset()):
    """A script meeting every criterion but those in ``unmet`` (by name), failing with 500 those in ``broken``."""

    def script(request):
        criterion = request.user_text.split("Criterion: ", 1)[1].split("\n", 1)[0]
        if criterion in broken:
            return Reply(500, {"error": {"message": "down"}})
        return chat_reply(json.dumps({"score": 0 if criterion in unmet else 1, "reason": criterion}), request)

    return script


def test_the_spec_examples_three_of_four_and_two_of_three(tmp_path):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "a1", "a2", "a3", "a4")])
    with ScriptedServer(met_unless({"a4"})) as server:
        one = score_tasks(dataset, judge_at(server.url))
        assert len(server.requests) == 4  # one request per criterion
    assert one.tasks.loc[0, "score"] == 0.75 and one.summary["overall"] == 0.75

    dataset = write_lines(tmp_path / "three.jsonl", [task("x", "x1", "x2"), task("y", "y1"), task("z", "z1", "z2")])
    with ScriptedServer(met_unless({"z1", "z2"})) as server:
        results = score_tasks(dataset, judge_at(server.url))
    assert results.tasks["score"].tolist() == [1.0, 1.0, 0.0] and results.tasks["fully_met"].tolist() == [True, True, False]
    assert results.summary["overall"] == pytest.approx(2 / 3) and round(results.summary["overall"], 2) == 0.67
    assert results.summary["fully_met_rate"] == pytest.approx(2 / 3)
    assert results.criteria.columns.tolist() == ["task", "criterion", "score", "reason", "error"]


def test_a_failed_judgment_leaves_the_task_unscored_never_zero(tmp_path):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "a1", "a2"), task("b", "b1")])
    with ScriptedServer(met_unless(set(), broken={"a2"})) as server:
        results = score_tasks(dataset, judge_at(server.url))
    row = results.tasks.set_index("task").loc["a"]
    assert row["status"] == "unscored" and math.isnan(row["score"]) and "down" in row["error"]
    assert results.unscored == ["a"] and results.summary["overall"] == 1.0 and results.summary["criteria_errors"] == 1
    assert results.totals.errors == 1


def test_a_malformed_reply_is_an_error(tmp_path):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "a1")])
    with ScriptedServer(lambda request: chat_reply(json.dumps({"score": 2, "reason": "x"}), request)) as server:
        results = score_tasks(dataset, judge_at(server.url))
    assert results.unscored == ["a"] and "outside the scale 0..1" in results.criteria.loc[0, "error"]


def test_the_cache_answers_a_second_run(tmp_path):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "a1", "a2")])
    with ScriptedServer(met_unless(set())) as server:
        judge = judge_at(server.url, cache=tmp_path / "cache.jsonl")
        score_tasks(dataset, judge)
        again = score_tasks(dataset, judge)
        assert len(server.requests) == 2
    assert again.totals.cache_hits == 2 and again.summary["overall"] == 1.0


def test_responses_from_a_separate_file_and_the_ground_truth(tmp_path):
    records = [{**task("a", "a1", ground_truth="the reference"), "response": None}]
    dataset = write_lines(tmp_path / "tasks.jsonl", records)
    responses = write_lines(tmp_path / "responses.jsonl", [{"name": "a", "response": "from the file"}])
    assert read_tasks(dataset, responses)[0].response == "from the file"
    with ScriptedServer(met_unless(set())) as server:
        score_tasks(dataset, judge_at(server.url), responses=responses)
        text = server.requests[0].user_text
    assert "Response: from the file" in text and "Reference answer: the reference" in text


@pytest.mark.parametrize(("records", "message"), [
    ([task("a", "c"), task("a", "d")], "row 2, field 'name': task 'a' is also on line 1"),
    ([{"name": "a", "query": "q"}], "row 1, field 'criteria': must be a non-empty list"),
    ([{**task("a", "c"), "criteria": []}], "row 1, field 'criteria'"),
    ([{**task("a", "c"), "criteria": [{"name": "c"}]}], "field 'criteria[0].instruction': must be a non-empty string, got missing"),
    ([task("a", "c", "c")], "field 'criteria[1].name': criterion 'c' twice"),
    ([{**task("a", "c"), "query": ""}], "field 'query': must be a non-empty string, got empty"),
    ([task("a", "c"), "[1, 2]"], "row 2: a line is a JSON object"),
    (["{oops"], "row 1: invalid JSON at line 1"),
])  # fmt: skip
def test_dataset_errors_name_the_file_the_line_and_the_field(tmp_path, records, message):
    dataset = write_lines(tmp_path / "tasks.jsonl", records)
    with pytest.raises(InputError) as raised:
        read_tasks(dataset)
    assert "tasks.jsonl" in str(raised.value) and message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(("responses", "message"), [
    ([{"name": "a", "response": "r"}], "task 'a' has a response here and in"),
    ([{"name": "zzz", "response": "r"}], "a response of task 'zzz', which the dataset does not have"),
    ([{"name": "b", "response": "r"}, {"name": "b", "response": "s"}], "a second response of task 'b'"),
])  # fmt: skip
def test_responses_file_errors(tmp_path, responses, message):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "c"), {**task("b", "c"), "response": None}])
    with pytest.raises(InputError, match=message):
        read_tasks(dataset, write_lines(tmp_path / "r.jsonl", responses))


def test_a_task_without_a_response_is_refused_before_anything_is_sent(tmp_path):
    dataset = write_lines(tmp_path / "tasks.jsonl", [task("a", "c"), {**task("b", "c"), "response": None}])
    with ScriptedServer() as server:
        with pytest.raises(InputError, match="task 'b' has no response"):
            score_tasks(dataset, judge_at(server.url))
        assert not server.requests
