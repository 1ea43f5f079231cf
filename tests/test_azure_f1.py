"""The F1 drop-in against golden vectors recorded from azure-ai-evaluation 1.18.10, and its columnar path.

``tests/data/f1_golden.jsonl`` is produced by ``tests/golden/make_f1_vectors.py``. Where the SDK
is right, output dicts equal the SDK's (keys, order, value types, values to the bit) and its
errors carry the SDK's message; where it misbehaves, the documented difference is asserted.
The columnar path equals the per-call path on every golden text and on random texts, and both
equal a plain-Python oracle written from the definition.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.azure import EvaluationException, F1ScoreEvaluator
from retrieval_eval.azure.f1_columns import f1_scores
from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import string_buffers
from retrieval_eval.kernels.text import answer_tokens
from tests.reference.answer_f1 import oracle_f1
from tests.reference.test_oracle_vs_golden import decode_input, decode_typed
from tests.test_azure import assert_identical

GOLDEN = Path(__file__).resolve().parent / "data" / "f1_golden.jsonl"


def _load() -> list[dict[str, Any]]:
    cases = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        case["init"], case["call"] = decode_input(case["init"]), decode_input(case["call"])
        if case["output"] is not None:
            case["output"] = decode_typed(["dict", case["output"]])
        cases.append(case)
    return cases


CASES = _load()


def _threshold_misbehaves(case: dict[str, Any]) -> bool:
    """The SDK takes a threshold that is not a finite real number (True, NaN, infinity, None, a string)."""
    threshold = case["init"].get("threshold", 0.5)
    return isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold)


def _text_misbehaves(case: dict[str, Any]) -> bool:
    """The SDK raised a raw AttributeError for a response or ground truth that is not a string."""
    return case["error"] is not None and case["error"]["type"] == "AttributeError"


SUCCESS = [c for c in CASES if c["output"] is not None and not _threshold_misbehaves(c)]
SDK_ERRORS = [c for c in CASES if c["error"] is not None and c["error"]["type"] == "EvaluationException"]
BAD_THRESHOLDS = [c for c in CASES if _threshold_misbehaves(c)]
BAD_TEXTS = [c for c in CASES if _text_misbehaves(c)]
TEXT_PAIRS = [
    (c["call"]["response"], c["call"]["ground_truth"], c["output"]["f1_score"])
    for c in SUCCESS
    if "conversation" not in c["call"]
]


def test_golden_file() -> None:
    """The vectors exist, come from the pinned SDK, have unique ids and cover every category."""
    assert len(CASES) >= 250
    assert {c["sdk_version"] for c in CASES} == {"1.18.10"}
    assert len({c["case_id"] for c in CASES}) == len(CASES)
    categories = {c["category"] for c in CASES}
    assert {"empty", "punctuation", "articles", "unicode", "repeated", "long", "threshold", "conversation"} <= categories
    assert len(SUCCESS) > 200 and SDK_ERRORS and BAD_THRESHOLDS and BAD_TEXTS


@pytest.mark.parametrize("case", SUCCESS, ids=[c["case_id"] for c in SUCCESS])
def test_output_dict_identical_to_sdk(case: dict[str, Any]) -> None:
    assert_identical(F1ScoreEvaluator(**case["init"])(**case["call"]), case["output"])


@pytest.mark.parametrize("case", SDK_ERRORS, ids=[c["case_id"] for c in SDK_ERRORS])
def test_errors_carry_the_sdk_message(case: dict[str, Any]) -> None:
    evaluator = F1ScoreEvaluator(**case["init"])
    with pytest.raises(EvaluationException) as raised:
        evaluator(**case["call"])
    assert raised.value.detail == case["error"]["message"]


@pytest.mark.parametrize("case", BAD_THRESHOLDS, ids=[c["case_id"] for c in BAD_THRESHOLDS])
def test_a_threshold_that_is_not_a_finite_number_is_refused_when_made(case: dict[str, Any]) -> None:
    """The SDK accepts it, then raises TypeError per call (None, "0.5") or judges every response by it (True, NaN, inf)."""
    with pytest.raises(EvaluationException, match="threshold must be a finite number"):
        F1ScoreEvaluator(**case["init"])


@pytest.mark.parametrize("case", BAD_TEXTS, ids=[c["case_id"] for c in BAD_TEXTS])
def test_a_text_that_is_not_a_string_is_named(case: dict[str, Any]) -> None:
    """The SDK raises AttributeError ("'int' object has no attribute 'lower'"); this names the argument."""
    name = "response" if not isinstance(case["call"]["response"], str) else "ground_truth"
    with pytest.raises(EvaluationException, match=f"'{name}' must be a string, got {type(case['call'][name]).__name__}"):
        F1ScoreEvaluator()(**case["call"])


@pytest.mark.parametrize(
    "conversation",
    [{"turns": []}, {"messages": "hi"}, {"messages": [{"content": "x"}]}, [],
     {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}]}],
)
def test_a_malformed_conversation_is_an_error(conversation: Any) -> None:
    with pytest.raises(EvaluationException):
        F1ScoreEvaluator()(conversation=conversation)


def test_golden_scores_equal_the_oracle() -> None:
    """The SDK's recorded scores are the definition's: the oracle is checked against the SDK first."""
    assert [oracle_f1(response, truth) for response, truth, _ in TEXT_PAIRS] == [score for *_, score in TEXT_PAIRS]


def test_columnar_path_equals_the_sdk_on_every_golden_text() -> None:
    rows = [{"response": response, "ground_truth": truth} for response, truth, _ in TEXT_PAIRS]
    evaluator = F1ScoreEvaluator(threshold=2 / 3)  # a score the golden texts reach exactly
    table = evaluator.evaluate_table(rows)
    assert table["f1_score"].tolist() == [score for *_, score in TEXT_PAIRS]
    assert table["f1_score_passed"].tolist() == [score >= 2 / 3 for *_, score in TEXT_PAIRS]
    assert table["f1_score_result"].tolist() == ["pass" if score >= 2 / 3 else "fail" for *_, score in TEXT_PAIRS]
    for ours, row in zip(evaluator.evaluate_rows(rows), rows):
        assert_identical(ours, evaluator(**row))


# Characters that exercise each step: case (with the two lower cases that are not one code point
# for one: capital sigma, final or not, and capital I with dot), case-ignorable characters around
# sigmas ("'", ".", "^", soft hyphen, combining acute, modifier letter), ASCII and non-ASCII
# punctuation, word characters of every kind, every kind of whitespace.
ALPHABET = "aAnNtThHeE xyz_09.,'-!(\t\n\x1c\x85\xa0\u3000éÉßσςΣΣİΟΔ中🙂…«’½²ǅﬁK^\xad\u0301\u02b0"
WORDS = ["the", "The", "a", "A", "an", "AN", "cat", "Cat.", "the_", "a1", "ΟΔΟΣ", "ΣΑΣ.", "Σ'Α", "İ", "é", "ﬁ", "K",
         "straße", "€the", "€", "½a", "½", "…an…", "…", "cat€the€cat"]
texts = (
    st.text(alphabet=ALPHABET, max_size=40)
    | st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
)


@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=12))
def test_columnar_path_equals_the_oracle_and_the_per_call_path(pairs: list[tuple[str, str]]) -> None:
    responses, truths = (pa.chunked_array([list(side)], pa.string()) for side in zip(*pairs))
    scores = f1_scores(responses, truths).tolist()
    assert scores == [oracle_f1(response, truth) for response, truth in pairs]
    evaluator = F1ScoreEvaluator()
    assert scores == [evaluator(response=response, ground_truth=truth)["f1_score"] for response, truth in pairs]


def test_capital_sigma_and_capital_i_with_dot_are_read_by_the_kernel() -> None:
    """The two code points whose lower case is not one code point of their own, read exactly, no row left to Python."""
    pairs = [("ΟΔΟΣ ΣΑΣ", "οδος σας"), ("ΟΔΟΣ.ΣΑΣ Σ", "οδοσσας σ"), ("AΣ'B Σ", "aσb σ"), ("ΣΑΣ.", "σας"),
             ("İstanbul", "i̇stanbul"), ("x İ y", "x i̇ y"), ("İ", "i"), ("ΑΣ\u0301Σ", "ασ́ς")]
    responses, truths = (pa.chunked_array([list(side)]) for side in zip(*pairs))
    r_offsets, r_data = string_buffers(responses)
    t_offsets, t_data = string_buffers(truths)
    points = np.array(sorted({ord(c) for pair in pairs for c in "".join(pair) if ord(c) >= 0x80}), dtype=np.int64)
    points.setflags(write=False)
    table = answer_tokens.code_point_table(points)
    *_, flagged = answer_tokens.answer_token_counts(r_offsets, r_data, t_offsets, t_data, points, table, answer_tokens.ASCII_TABLE)
    assert not flagged.any()
    assert f1_scores(responses, truths).tolist() == [oracle_f1(r, t) for r, t in pairs] == [1.0] * 6 + [0.0, 1.0]


def test_every_other_code_point_lowers_to_one_code_point() -> None:
    """What the kernel's tables assume of ``str.lower`` (U+0130 is read as two code points, U+03A3 by its context)."""
    longer = [point for point in range(0x110000) if len(chr(point).lower()) != 1]
    assert longer == [answer_tokens.DOTTED_CAPITAL_I] and chr(longer[0]).lower() == "i\u0307"
    assert answer_tokens.char_class("\u0307") == answer_tokens.OTHER


def test_files_of_every_format_give_the_same_scores(tmp_path: Path) -> None:
    rows = [{"id": i, "response": r, "ground_truth": t} for i, (r, t, _) in enumerate(TEXT_PAIRS[:40])]
    expected = [score for *_, score in TEXT_PAIRS[:40]]
    frame = pd.DataFrame(rows)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "a.parquet")
    frame.to_csv(tmp_path / "a.csv", index=False)
    evaluator = F1ScoreEvaluator()
    for source in (tmp_path / "a.jsonl", tmp_path / "a.parquet", frame, pa.Table.from_pandas(frame), rows):
        assert evaluator.evaluate_table(source)["f1_score"].tolist() == expected, source
    # CSV reads an empty field as missing: compare only rows whose texts are not empty.
    full = [i for i, row in enumerate(rows)
            if row["response"] and row["ground_truth"] and "\n" not in row["response"] + row["ground_truth"]]
    csv_rows = [row for i, row in enumerate(rows) if i in full]
    pd.DataFrame(csv_rows).to_csv(tmp_path / "b.csv", index=False)
    assert evaluator.evaluate_table(tmp_path / "b.csv")["f1_score"].tolist() == [expected[i] for i in full]


def test_user_column_names() -> None:
    rows = [{"answer": "the cat", "truth": "a cat"}]
    table = F1ScoreEvaluator().evaluate_table(rows, response_field="answer", ground_truth_field="truth")
    assert table.to_dict("records") == [{"f1_score": 1.0, "f1_score_passed": True, "f1_score_result": "pass"}]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"response": "cat", "ground_truth": "cat"}, {"response": None, "ground_truth": "cat"}], r"row 2.*response"),
        ([{"response": "cat"}], "ground_truth"),
        ([{"response": 5, "ground_truth": "cat"}], r"response.*expected text, got int64"),
        ([], "no rows"),
    ],
)
def test_bad_rows_are_named(rows: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InputError, match=message):
        F1ScoreEvaluator().evaluate_table(rows)


def test_bad_file_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"response": "cat", "ground_truth": "cat"}\n{"response": "dog"}\n', encoding="utf-8")
    with pytest.raises(InputError) as raised:
        F1ScoreEvaluator().evaluate_table(path)
    assert str(path) in str(raised.value) and "ground_truth" in str(raised.value)


def test_rows_flagged_by_the_kernel_are_counted_by_the_definition(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row the kernel flags (two distinct tokens with one hash) is scored by the definition, exactly."""
    real = answer_tokens.answer_token_counts

    def flag_odd_rows(*args: Any) -> tuple:
        predicted, reference, shared, flagged = real(*args)
        flagged = flagged.copy()
        flagged[1::2] = True
        return predicted * 0, reference * 0, shared * 0, flagged

    monkeypatch.setattr(answer_tokens, "answer_token_counts", flag_odd_rows)
    pairs = [(r, t) for r, t, _ in TEXT_PAIRS[:30]]
    responses, truths = (pa.chunked_array([list(side)]) for side in zip(*pairs))
    scores = f1_scores(responses, truths).tolist()
    assert scores[1::2] == [oracle_f1(r, t) for r, t in pairs[1::2]]
    assert any(scores[1::2])


def test_a_hash_shared_by_distinct_tokens_is_flagged() -> None:
    """The kernel's table confirms every hash match on the tokens' code points."""
    data = np.frombuffer(b"cat dog", dtype=np.uint8)
    same_hash = np.array([7, 7], dtype=np.uint64)
    spans = np.array([[0, 4], [3, 7]], dtype=np.int64)  # "cat", "dog"
    empty = np.empty(0, dtype=np.int64)
    table = answer_tokens.code_point_table(empty)
    slots, counts = np.empty(8, dtype=np.int64), np.empty(2, dtype=np.int64)
    shared = answer_tokens._shared.python
    args = (slots, counts, empty, table, answer_tokens.ASCII_TABLE)
    # The ground truth's two tokens collide: flagged while the table is built.
    assert shared(data, 0, 7, same_hash, spans, 2, data, 0, 7, same_hash, spans, 2, *args) == -1
    # A response token colliding with a ground-truth token: flagged at lookup; equal tokens count.
    one, first_span, second_span = np.array([7], dtype=np.uint64), spans[:, :1].copy(), spans[:, 1:].copy()
    assert shared(data, 0, 7, one, second_span, 1, data, 0, 7, one, first_span, 1, *args) == -1
    assert shared(data, 0, 7, one, first_span, 1, data, 0, 7, one, first_span, 1, *args) == 1


@pytest.mark.parametrize(
    ("conversation", "keys"),
    [
        ({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a cat", "answer": "a cat"}]},
         "conversation message 2 has the key(s) 'answer'"),
        ({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a cat"}], "ground_truth": "cat"},
         "a conversation has the key(s) 'ground_truth'"),
    ],
)
def test_a_guessed_key_of_a_conversation_is_refused_naming_the_keys(conversation: dict[str, Any], keys: str) -> None:
    # The SDK ignores the key and scores the turn against an empty ground truth: 0.0, silently (issue 27, item 12).
    with pytest.raises(EvaluationException, match=f"^F1ScoreEvaluator: {re.escape(keys)}; expected only '"):
        F1ScoreEvaluator()(conversation=conversation)
    good = {"messages": [{"role": "user", "content": "q", "context": "c"},
                         {"role": "assistant", "content": "a cat", "ground_truth": "cat", "context": "c"}], "context": "c"}
    assert F1ScoreEvaluator()(conversation=good)["f1_score"] == 1.0


def test_the_table_keeps_the_rows_ids() -> None:
    rows = [{"id": "a1", "query_id": "q1", "context": "long", "response": "the cat", "ground_truth": "cat"},
            {"id": "a2", "query_id": "q2", "context": "long", "response": "dog", "ground_truth": "cat"}]
    table = F1ScoreEvaluator().evaluate_table(rows)
    assert table.columns.tolist() == ["id", "query_id", "f1_score", "f1_score_passed", "f1_score_result"]
    assert table[["id", "query_id", "f1_score"]].values.tolist() == [["a1", "q1", 1.0], ["a2", "q2", 0.0]]
    # A query id under another of its names keeps that name, as in the input.
    assert F1ScoreEvaluator().evaluate_table(pd.DataFrame(rows).rename(columns={"query_id": "qid"})).columns[1] == "qid"


def test_dictionary_encoded_text_is_text_and_a_number_is_not() -> None:
    rows = pd.DataFrame({"response": pd.Categorical(["the cat", "dog", "the cat"]), "ground_truth": ["cat", "cat", "dog"]})
    assert F1ScoreEvaluator().evaluate_table(rows)["f1_score"].tolist() == [1.0, 0.0, 0.0]
    arrow = pa.table({"response": pa.array(["the cat", "dog"]).dictionary_encode(), "ground_truth": ["cat", "cat"]})
    assert F1ScoreEvaluator().evaluate_table(arrow)["f1_score"].tolist() == [1.0, 0.0]
    for mixed in ([{"response": "cat", "ground_truth": "cat"}, {"response": 5, "ground_truth": "cat"}],
                  pd.DataFrame({"response": ["cat", 5], "ground_truth": ["cat", "cat"]})):
        with pytest.raises(InputError, match=r"row 2, field 'response': expected text, got int 5$"):
            F1ScoreEvaluator().evaluate_table(mixed)
