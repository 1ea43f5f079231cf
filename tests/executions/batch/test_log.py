"""Execution logs: Arrow's reading and the reference reading give the same tables, errors name the file, line
(or Parquet row) and field, and the loader rules hold on both; a Parquet log reads as the same log in JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.json as pa_json
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.executions.batch import log
from retrieval_eval.executions.batch.log import ExecutionRecord, iter_execution_records, read_execution_log
from retrieval_eval.executions.batch.tables import flatten_records
from retrieval_eval.io import execution_logs as raw

from .. import strategies
from ..fixtures import ODSP, example_telemetry


def write(tmp_path: Path, lines: list, name: str = "log.jsonl", end: str = "\n") -> Path:
    path = tmp_path / name
    text = end.join(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def reference(path: Path):
    """The reference reading: the records loaded one by one, then flattened."""
    return log._read_reference(str(path))


def write_parquet(
    tmp_path: Path, records: list[dict], name: str = "log.parquet", kind: pa.DataType | None = None, **options
) -> Path:
    """The records as a Parquet log, one row each, of struct type ``kind`` (default: inferred; a missing field is null)."""
    path = tmp_path / name
    empty = pa.struct([("retrieval_executions", pa.list_(pa.null()))])
    pq.write_table(pa.Table.from_struct_array(pa.array(records, kind or (None if records else empty))), path, **options)
    return path


def by_arrow(path: Path):
    """Arrow's reading alone (None: it declined)."""
    return (log._read_parquet_with_arrow if raw.is_parquet_log(str(path)) else log._read_with_arrow)(str(path))


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


def test_the_reference_flattens_the_records_of_iter_execution_records(tmp_path):
    path = write(tmp_path, ["", *spec_log()])
    records = list(iter_execution_records(path))
    expected = flatten_records([record.telemetry for record in records], ids=[record.id for record in records])
    assert reference(path).equals(expected)


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
    monkeypatch.setattr(raw, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(raw, "_SCAN_BYTES", 1000)
    monkeypatch.setattr(raw, "_WINDOW_BYTES", window)
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
        ('{"id": "a", "retrieval_executions": [}', "row 2: invalid JSON at line 2, column 38: Expecting value"),
        ('{"id": "a"} {"id": "b"}', "row 2: invalid JSON at line 2, column 13: Extra data"),
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


def test_a_rank_beyond_64_bits_names_the_file_and_the_line(tmp_path):
    big = {"retrieval_executions": [{"capability": "E", "retrievalHits": [{"rank": 2**64}]}]}
    path = write(tmp_path, ["", {"retrieval_executions": []}, big])
    field = "retrieval_executions[0].retrievalHits[0].rank"
    with pytest.raises(InputError) as caught:
        read_execution_log(path)
    assert str(caught.value) == f"{path}, row 3, field '{field}': rank 18446744073709551616 does not fit in 64 bits"


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
        patch.setattr(raw, "_WINDOW_BYTES", window)
        try:
            expected = reference(path)
        except InputError as exc:
            with pytest.raises(InputError) as caught:
                read_execution_log(path)
            assert str(caught.value) == str(exc)
            return
        assert read_execution_log(path).equals(expected)


# -- Parquet logs: the tables of the same records in JSON Lines ---------------------------------

_E = {"capability": "E", "queries": [{"queryString": "q"}]}
_RAW = {"id": "r", "executions": [{"name": ODSP, "status": "Success", "debugInfo": {"queryString": "q", "retrievalHits": [
    {"rank": 1, "extracts": [{"text": "t"}]}, {"rank": 2, "webUrl": "u"}]}}]}  # fmt: skip


@pytest.mark.parametrize(("name", "row_group_size"), [("log.parquet", None), ("log.PQ", 1)])
def test_a_parquet_log_reads_as_its_json_lines(tmp_path, name, row_group_size):
    parquet = write_parquet(tmp_path, spec_log(), name, row_group_size=row_group_size)
    tables = by_arrow(parquet)
    assert tables is not None, "Arrow declined a well-formed log"
    assert tables.equals(read_execution_log(write(tmp_path, spec_log())))
    assert reference(parquet).equals(tables) and read_execution_log(parquet).equals(tables)


@pytest.mark.parametrize(
    ("records", "by_arrow_too"),
    [
        ([{"id": "a", "retrieval_executions": [{**_E, "status": None, "retrievalHits": [
            {"rank": None, "webUrl": "u", "extracts": [{"text": "t"}]}, {"rank": 1, "webUrl": "u", "extracts": [{"text": None}]}]}]}],
         True),
        ([{"retrieval_executions": [{**_E, "retrievalHits": []}, {**_E, "capability": "", "retrievalHits": []}]}], False),
        ([_RAW], False),  # no retrieval_executions column
        ([_RAW, {"id": "a", **example_telemetry()}], False),  # a row without retrieval_executions
        ([{"retrieval_executions": [{**_E, "retrievalHits": [{"rank": 1, "extracts": []}]}]}], False),  # no webUrl
    ],
    ids=["a hit without rank", "an empty capability", "the raw form", "both forms", "a field the checks read is missing"],
)  # fmt: skip
def test_what_arrow_declines_reads_as_in_json_lines(tmp_path, records, by_arrow_too):
    parquet = write_parquet(tmp_path, records)
    assert (by_arrow(parquet) is not None) == by_arrow_too
    assert read_execution_log(parquet).equals(read_execution_log(write(tmp_path, records)))


def test_parquet_written_with_the_log_schema_is_read_by_arrow_for_the_fields_the_checks_read(tmp_path):
    jsonl = write(tmp_path, spec_log())
    table = pa_json.read_json(jsonl, parse_options=raw._PARSE).select(["id", "retrieval_executions"])
    parquet = tmp_path / "log.parquet"
    pq.write_table(table, parquet)
    tables = by_arrow(parquet)
    assert tables is not None and tables.equals(read_execution_log(jsonl))
    with pq.ParquetFile(parquet) as file:
        read = {column.rsplit(".", 1)[-1] for column in raw._read_columns(file)}
    assert read == {"id", "capability", "status", "queryString", "rank", "webUrl", "text"}


def test_wider_types_are_read_by_arrow(tmp_path):
    extract = pa.struct([("text", pa.large_string()), ("relevanceScore", pa.float32())])
    hit = pa.struct([("rank", pa.int32()), ("webUrl", pa.large_string()), ("extracts", pa.large_list(extract))])
    query = pa.struct([("queryString", pa.string())])
    execution = pa.struct(
        [("capability", pa.large_string()), ("status", pa.null()), ("queries", pa.list_(query)), ("retrievalHits", pa.large_list(hit))]
    )
    records = [{"id": "a", "retrieval_executions": [{**_E, "retrievalHits": [{"rank": 1, "webUrl": "u", "extracts": [
        {"text": "t", "relevanceScore": 0.5}]}]}]}]  # fmt: skip
    schema = pa.schema([("id", pa.large_string()), ("retrieval_executions", pa.large_list(execution))])
    parquet = tmp_path / "log.parquet"
    pq.write_table(pa.Table.from_pylist(records, schema=schema), parquet)
    tables = by_arrow(parquet)
    assert tables is not None and tables.equals(read_execution_log(write(tmp_path, records)))


def test_a_null_field_of_parquet_is_a_missing_one(tmp_path):
    parquet = write_parquet(tmp_path, [{"retrieval_executions": [{"capability": "E", "queries": None, "retrievalHits": [
        {"rank": 1, "webUrl": None, "extracts": None}]}]}])  # fmt: skip
    expected = write(tmp_path, [{"retrieval_executions": [{"capability": "E", "retrievalHits": [{"rank": 1}]}]}])
    assert read_execution_log(parquet).equals(read_execution_log(expected))


_WIDE_RANKS = pa.struct([("retrieval_executions", pa.list_(pa.struct(
    [("capability", pa.string()), ("retrievalHits", pa.list_(pa.struct([("rank", pa.uint64())])))])))])  # fmt: skip


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"retrieval_executions": []}, {"id": 5, "retrieval_executions": []}], "row 2, field 'id': must be a string, got int"),
        ([{"id": "a", "retrieval_executions": []}] * 2, "row 2, field 'id': duplicate id 'a' (first on row 1)"),
        ([{"retrieval_executions": []}, {"retrieval_executions": [{**_E, "retrievalHits": [{"rank": 0, "webUrl": "u"}]}]}],
         "row 2, field 'retrieval_executions[0].retrievalHits[0].rank': Input should be greater than or equal to 1"),
        ([{"retrieval_executions": []}, {"retrieval_executions": [{**_E, "latencyMs": "slow"}]}],
         "row 2, field 'retrieval_executions[0].latencyMs': Input should be a number"),
        ([{"retrieval_executions": []}, {"retrieval_executions": [{"capability": "E", "retrievalHits": [{"rank": 2**63}]}]}],
         "row 2, field 'retrieval_executions[0].retrievalHits[0].rank': rank 9223372036854775808 does not fit in 64 bits"),
        ([{"retrieval_executions": []}, {"retrieval_executions": [None]}],
         "row 2, field 'retrieval_executions[0]': an execution must be an object, got NoneType"),
        ([{"id": "a"}, {"id": "b"}], "row 1: expected an object with 'retrieval_executions'"),
        ([{"executions": []}, {"executions": [{"name": "E", "debugInfo": 3}]}],
         "row 2, field 'executions[0].debugInfo': must be an object"),
    ],
)  # fmt: skip
def test_parquet_errors_name_the_file_the_row_and_the_field(tmp_path, records, message):
    path = write_parquet(tmp_path, records, kind=_WIDE_RANKS if "64 bits" in message else None)
    with pytest.raises(InputError) as caught:
        read_execution_log(path)
    assert str(caught.value).startswith(f"{path}, {message}")


def test_a_missing_or_unreadable_parquet_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match=r"missing\.parquet: cannot read the file"):
        read_execution_log(tmp_path / "missing.parquet")
    not_parquet = write(tmp_path, spec_log(), "log.parquet")  # the extension says parquet, the content JSON Lines
    with pytest.raises(InputError, match=r"log\.parquet: this is JSON, but its name says a parquet file"):
        read_execution_log(not_parquet)


def test_an_empty_parquet_log_has_no_records(tmp_path):
    assert read_execution_log(write_parquet(tmp_path, [])).n_records == 0


_bodies = strategies.executions.map(lambda found: {"retrieval_executions": found}) | strategies.raw_form()
_records = st.lists(st.tuples(st.booleans(), _bodies), max_size=5).map(
    lambda drawn: [{"id": f"r{i}", **body} if named else body for i, (named, body) in enumerate(drawn)]
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_records, st.sampled_from([None, 2]))
def test_any_log_reads_from_parquet_as_from_json_lines(tmp_path, records, row_group_size):
    expected = read_execution_log(write(tmp_path, records))
    parquet = write_parquet(tmp_path, records, row_group_size=row_group_size)
    assert read_execution_log(parquet).equals(expected) and reference(parquet).equals(expected)


def test_a_json_error_at_the_end_of_a_line_is_reported_at_its_end_not_at_column_1(tmp_path):
    line = '{"id": "a", "retrieval_executions": []'
    path = write(tmp_path, [line, '{"retrieval_executions": []}'])
    for read in (read_execution_log, lambda p: list(iter_execution_records(p))):
        with pytest.raises(InputError, match=rf"row 1: invalid JSON at line 1, column {len(line) + 1}: Expecting ','"):
            read(path)


@pytest.mark.parametrize("raw", ["3", '"abc"', "null", '[{"name": "X"}]'])
def test_a_record_with_executions_in_both_forms_is_an_error_not_the_normalized_ones_alone(tmp_path, raw):
    path = write(tmp_path, ['{"retrieval_executions": []}', '{"retrieval_executions": [], "executions": ' + raw + "}"])
    for read in (read_execution_log, lambda p: list(iter_execution_records(p))):
        with pytest.raises(InputError, match=r"row 2, field 'executions': holds executions in both forms"):
            read(path)
