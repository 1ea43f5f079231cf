"""Execution logs: Arrow's reading and the reference reading give the same tables, errors name the file, line
and field, and the loader rules hold on both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.executions import log
from retrieval_eval.executions.log import ExecutionRecord, iter_execution_records, read_execution_log
from retrieval_eval.executions.tables import flatten_records

from . import strategies
from .fixtures import ODSP, example_telemetry


def write(tmp_path: Path, lines: list, name: str = "log.jsonl", end: str = "\n") -> Path:
    path = tmp_path / name
    text = end.join(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def reference(path: Path):
    records = list(iter_execution_records(path))
    return flatten_records([record.telemetry for record in records], ids=[record.id for record in records])


def by_arrow(path: Path):
    """Arrow's reading alone (None: it declined)."""
    return log._read_with_arrow(str(path))


def spec_log() -> list[dict]:
    telemetry = example_telemetry()
    return [
        {"id": "a", **telemetry},
        {"id": "b", "retrieval_executions": telemetry["retrieval_executions"][2:], "extra": {"x": [1, None]}},
        {"retrieval_executions": []},
        {"id": "d", "retrieval_executions": [{"capability": "Email", "queries": [], "retrievalHits": [
            {"rank": 2, "extracts": [{"text": "Straße"}, {"relevanceScore": 0.5}, None]}, {"extracts": []}, None,
            {"rank": None, "webUrl": "x", "extracts": []}]}]},
    ]  # fmt: skip


def test_arrow_s_reading_is_the_reference_s(tmp_path):
    path = write(tmp_path, spec_log())
    tables = by_arrow(path)
    assert tables is not None, "Arrow declined a well-formed log"
    assert tables.equals(reference(path)) and read_execution_log(path).equals(tables)
    assert tables.records.column("id").to_pylist() == ["a", "b", None, "d"]
    assert tables.executions.num_rows == 5 and tables.hits.num_rows == 6 and tables.extracts.num_rows == 6
    # The hits without a rank and the extracts without text are dropped, as the loader drops them.
    assert tables.hits.slice(5).to_pylist() == [{"execution": 4, "rank": 2, "webUrl": None}]
    assert tables.extracts.slice(5).to_pylist() == [{"hit": 5, "text": "Straße"}]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_blank_lines_a_byte_order_mark_and_crlf_are_read_by_arrow(tmp_path, end):
    lines = ["\ufeff" + json.dumps(spec_log()[0]), "", "  \t", json.dumps(spec_log()[1]), "", ""]
    path = write(tmp_path, lines, end=end)
    tables = by_arrow(path)
    assert tables is not None and tables.equals(reference(path)) and tables.n_records == 2
    assert [record.line for record in iter_execution_records(path)] == [1, 4]


@pytest.mark.parametrize("window", [1, 3000])  # shorter than every line, than some lines
def test_many_chunks_give_the_same_tables(tmp_path, monkeypatch, window):
    monkeypatch.setattr(log, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(log, "_SCAN_BYTES", 1000)
    monkeypatch.setattr(log, "_WINDOW_BYTES", window)
    path = write(tmp_path, [{**record, "id": f"{i}-{record.get('id')}"} for i in range(20) for record in spec_log()])
    tables = by_arrow(path)
    assert tables is not None and tables.executions.column("record").num_chunks > 1
    assert tables.equals(reference(path))


def test_the_raw_form_is_read_the_reference_way(tmp_path):
    raw = {"id": "r", "executions": [{"name": ODSP, "status": "Success", "debugInfo": {"queryString": "q", "retrievalHits": [
        {"rank": 1, "extracts": [{"text": "t"}]}, {"rank": "2"}]}}]}  # fmt: skip
    path = write(tmp_path, [raw, spec_log()[0]])
    assert by_arrow(path) is None
    tables = read_execution_log(path)
    assert tables.equals(reference(path))
    assert tables.executions.slice(0, 1).to_pylist() == [{"record": 0, "capability": ODSP, "status": "success"}]
    assert tables.hits.slice(0, 1).to_pylist() == [{"execution": 0, "rank": 1, "webUrl": ""}]


def test_an_empty_log_has_no_records(tmp_path):
    path = write(tmp_path, [])
    assert read_execution_log(path).n_records == 0 and list(iter_execution_records(path)) == []


def test_records_keep_their_line_id_and_telemetry(tmp_path):
    path = write(tmp_path, ["", json.dumps({"id": "x", "retrieval_executions": [{"capability": "Email"}]})])
    (record,) = iter_execution_records(path)
    assert isinstance(record, ExecutionRecord) and record.line == 2 and record.id == "x"
    assert record.telemetry.retrieval_executions[0].capability == "Email"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "retrieval_executions": [}', "row 2: malformed JSON at column 38: Expecting value"),
        ('{"id": "a"} {"id": "b"}', "row 2: malformed JSON at column 13: Extra data"),
        ("[1, 2]", "row 2: a record must be a JSON object, got list"),
        ('{"id": 5, "retrieval_executions": []}', "row 2, field 'id': must be a string, got int"),
        ('{"id": "a", "retrieval_executions": []}', "row 2, field 'id': duplicate id 'a' (first on line 1)"),
        ('{"retrieval_executions": [{"capability": "E", "retrievalHits": [{"rank": 0}]}]}',
         "row 2, field 'retrieval_executions[0].retrievalHits[0].rank': Input should be greater than or equal to 1"),
        ('{"retrieval_executions": [{"capability": "E", "latencyMs": "slow"}]}',
         "row 2, field 'retrieval_executions[0].latencyMs': Input should be a number"),
        ('{"id": "b"}', "row 2: expected an object with 'retrieval_executions'"),
        ('{"executions": [{"name": "E", "debugInfo": 3}]}', "row 2, field 'executions[0].debugInfo': must be an object"),
    ],
)  # fmt: skip
def test_errors_name_the_file_the_line_and_the_field(tmp_path, line, message):
    path = write(tmp_path, [json.dumps({"id": "a", "retrieval_executions": []}), line])
    for read in (read_execution_log, lambda p: list(iter_execution_records(p))):
        with pytest.raises(InputError) as caught:
            read(path)
        assert str(caught.value).startswith(f"{path}, {message}")


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"retrieval_executions": []}\n{"id": "\xff", "retrieval_executions": []}\n')
    with pytest.raises(InputError, match=r"log.jsonl, row 2: invalid UTF-8 text"):
        read_execution_log(path)


def test_a_missing_file_is_an_input_error(tmp_path):
    for read in (read_execution_log, lambda p: list(iter_execution_records(p))):
        with pytest.raises(InputError, match="cannot read the file"):
            read(tmp_path / "missing.jsonl")


# -- any log: Arrow's reading never differs from the reference's ------------------------------

_anything = st.sampled_from([None, 5, 2.5, True, "x", [], {}, [None], {"k": 1}])
_text = st.sampled_from(["a", "Straße", "5–15", ""])
_extract = st.one_of(
    st.fixed_dictionaries({}, optional={"text": _text | _anything, "relevanceScore": st.sampled_from([0.5, 1, None, "x"])}),
    _anything,
)
_hit = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "rank": st.sampled_from([1, 2, 3, 0, -1, None, "2", 2.0, True, 2**64]),
            "webUrl": st.sampled_from(["u", None, 7]),
            "extracts": st.lists(_extract, max_size=3) | _anything,
            "resourceMetadata": _anything,
        },
    ),
    _anything,
)
_execution = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "capability": st.sampled_from(["Email", "People", "", None, 3]),
            "status": st.sampled_from(["success", "failed", None, 1]),
            "queries": st.lists(st.fixed_dictionaries({}, optional={"queryString": _text | _anything}) | _anything, max_size=2)
            | _anything,
            "retrievalHits": st.lists(_hit, max_size=3) | _anything,
            "latencyMs": st.sampled_from([3, 2.5, "slow", None]),
            "name": st.just("Email"),
        },
    ),
    _anything,
)
_record = st.one_of(
    st.fixed_dictionaries(
        {"retrieval_executions": st.lists(_execution, max_size=3)},
        optional={"id": st.sampled_from(["a", "b", "c", None, 4]), "source": st.sampled_from(["s", None, 1])},
    ),
    st.fixed_dictionaries({"executions": st.lists(st.fixed_dictionaries({"name": st.just("Email"), "debugInfo": st.just({})}))}),
)
_line = _record.map(lambda record: json.dumps(record, ensure_ascii=False)) | st.sampled_from(["", "  ", "[1]", "{}", '{"a": 1} {"b": 2}'])


# Well-formed records, with what Arrow does represent: hits without a rank, null hits, extracts without text.
_sprinkles = st.sampled_from([None, {"rank": None}, {"extracts": []}, {"rank": 1, "webUrl": "u", "extracts": [{}, None]}])
_plausible = st.builds(
    lambda executions, sprinkle, name: json.dumps(
        {"id": name, "retrieval_executions": [{**e, "retrievalHits": e["retrievalHits"] + [sprinkle]} for e in executions]}
    ),
    strategies.executions,
    _sprinkles,
    st.none() | st.text("abc", min_size=1, max_size=3),
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_line, max_size=5) | st.lists(_plausible, max_size=4), st.sampled_from([1, 40, 64 << 20]))
def test_any_log_reads_as_the_reference_reads_it(tmp_path, lines, window):
    path = write(tmp_path, lines)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log, "_WINDOW_BYTES", window)
        try:
            expected = reference(path)
        except InputError as exc:
            with pytest.raises(InputError) as caught:
                read_execution_log(path)
            assert str(caught.value) == str(exc)
            return
        assert read_execution_log(path).equals(expected)
