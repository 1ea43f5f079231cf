"""Generate golden vectors from azure-ai-evaluation's ``DocumentRetrievalEvaluator`` (pinned to 1.18.10).

Run once with the SDK installed; CI does not need the SDK, it only reads the committed output::

    python3 -m venv .venv-sdk && .venv-sdk/bin/pip install azure-ai-evaluation==1.18.10
    .venv-sdk/bin/python tests/golden/make_azure_vectors.py      # from the repository root

The cases are generated from a fixed seed, so re-running reproduces ``tests/data/azure_golden.jsonl`` byte for byte.
Each case is run through the SDK's public call ``DocumentRetrievalEvaluator(**init)(**call)``.

Output format: one JSON object per line, with keys

``case_id`` (str), ``category`` (str)
    Unique id and the family of cases it belongs to.
``sdk_version`` (str)
    Installed ``azure-ai-evaluation`` version that produced the record.
``bugs`` (list[str])
    Known SDK bugs the case can hit (see ``BUG_TAGS``). Tests skip exactly the affected fields.
``init`` (dict)
    Constructor keyword arguments. Plain JSON: ints stay ints, floats keep their ``.0``.
``call`` (dict)
    The call's keyword arguments; a kwarg missing here was not passed. Values are plain JSON (ids that are ints
    stay ints, float scores keep their ``.0``) except that non-finite floats are ``{"float": "NaN" | "Infinity" |
    "-Infinity"}`` and a tuple is ``{"tuple": [...]}``.
``output`` (dict | null)
    The returned dict, key order preserved, every value as a pair ``[type_name, value]`` with ``type_name`` one of
    ``"int"``, ``"float"``, ``"bool"``, ``"str"``, ``"NoneType"``, ``"dict"`` (the value of a ``"dict"`` is again
    a mapping of such pairs). Non-finite floats are the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``.
``error`` (dict | null)
    When the SDK raised: ``stage`` (``"init"`` or ``"call"``), ``type`` (class name), ``message`` (``args[0]``),
    and for ``EvaluationException`` also ``category`` and ``blame``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Hashable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from azure.ai.evaluation import DocumentRetrievalEvaluator
from azure.ai.evaluation._exceptions import EvaluationException

OUTPUT = Path(__file__).resolve().parents[1] / "data" / "azure_golden.jsonl"
SEED = 20_240_611
SDK_VERSION = version("azure-ai-evaluation")

BUG_TAGS = {
    "fidelity_misalignment": "label range whose decimal strings sort differently from the numbers: the SDK zips "
    "string-sorted label counts with numerically ordered weights, so fidelity is wrong (spec 3.1)",
    "bool_label": "a bool ground-truth label: fidelity raises KeyError('True'/'False') in branch 3 (spec 3.2)",
    "unjudged_above_max": "label_max < 0 and an unjudged doc retrieved: fidelity raises KeyError('0') in branch 3",
    "nan_score": "a NaN score: the ranking depends on input order (spec 3.11)",
    "zero_division": "IDCG@3 == 0 in branch 3: ZeroDivisionError (spec 3.5)",
    "overflow": "label_max >= 1023: fidelity weights overflow, OverflowError in branch 3 (spec 3.6)",
    "threshold_type": "a None or str threshold: every call raises TypeError (spec 3.9)",
}

Row = dict[str, Any]
Case = dict[str, Any]


# ----------------------------------------------------------------------------------------------------------------
# Encoding
# ----------------------------------------------------------------------------------------------------------------


def _float_token(value: float) -> str | float:
    """A finite float unchanged; NaN/inf as ``"NaN"``/``"Infinity"``/``"-Infinity"``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def encode_input(value: Any) -> Any:
    """JSON-encode a call argument: non-finite floats as ``{"float": token}``, tuples as ``{"tuple": [...]}``."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": _float_token(value)}
    if isinstance(value, tuple):
        return {"tuple": [encode_input(v) for v in value]}
    if isinstance(value, list):
        return [encode_input(v) for v in value]
    if isinstance(value, dict):
        return {key: encode_input(v) for key, v in value.items()}
    return value


def encode_typed(value: Any) -> list[Any]:
    """Encode an output value as ``[type_name, value]``, recursing into dicts and keeping key order."""
    if isinstance(value, dict):
        return ["dict", {key: encode_typed(v) for key, v in value.items()}]
    if isinstance(value, float):
        return ["float", _float_token(value)]
    return [type(value).__name__, value]


# ----------------------------------------------------------------------------------------------------------------
# Case construction
# ----------------------------------------------------------------------------------------------------------------


def gt_rows(pairs: list[tuple[Hashable, Any]]) -> list[Row]:
    """Ground-truth rows from ``(document_id, query_relevance_label)`` pairs."""
    return [{"document_id": d, "query_relevance_label": label} for d, label in pairs]


def ret_rows(pairs: list[tuple[Hashable, Any]]) -> list[Row]:
    """Retrieved rows from ``(document_id, relevance_score)`` pairs."""
    return [{"document_id": d, "relevance_score": s} for d, s in pairs]


def make_case(category: str, gt: Any, ret: Any, **init: Any) -> Case:
    """A case passing both call kwargs."""
    return {"category": category, "init": init, "call": {"retrieval_ground_truth": gt, "retrieved_documents": ret}}


def label_range(lo: int, hi: int) -> dict[str, int]:
    """Constructor kwargs for the label range ``lo..hi``."""
    return {"ground_truth_label_min": lo, "ground_truth_label_max": hi}


def _score(rng: random.Random, kind: str) -> float | int:
    """One relevance score of the given kind."""
    if kind == "float":
        return rng.random()
    if kind == "wide":
        return rng.uniform(-50.0, 50.0)
    if kind == "int":
        return rng.randint(-3, 12)
    if kind == "ties":
        return rng.choice([0.0, 0.5, 1.0])
    if kind == "mixed":
        return rng.choice([rng.randint(0, 3), float(rng.randint(0, 3)), round(rng.random() * 3, 1)])
    if kind == "inf":
        return rng.choice([math.inf, -math.inf, rng.random(), rng.random()])
    raise ValueError(kind)


def _doc_id(number: int, kind: str, rng: random.Random) -> Hashable:
    """A document id of the given kind."""
    if kind == "int":
        return number
    if kind == "mixed":
        return number if rng.random() < 0.5 else f"{number}"
    return f"doc-{number}"


def random_case(
    rng: random.Random,
    category: str,
    lo: int = 0,
    hi: int = 4,
    *,
    n_gt: int,
    n_ret: int,
    overlap: float,
    id_kind: str = "str",
    score_kind: str = "float",
    dup_ret: int = 0,
    dup_gt: int = 0,
    label_pool: list[int] | None = None,
    **init: Any,
) -> Case:
    """A random query: ``n_gt`` judged docs, ``n_ret`` retrieved docs of which about ``overlap`` are judged.

    ``dup_ret``/``dup_gt`` extra rows repeat existing ids at random positions with fresh scores/labels.
    Labels are drawn uniformly from ``label_pool`` (default ``lo..hi``). ``lo``/``hi`` become the init range
    unless they are the defaults.
    """
    pool = label_pool if label_pool is not None else list(range(lo, hi + 1))
    numbers = rng.sample(range(100_000), n_gt + n_ret)
    ids = list(dict.fromkeys(_doc_id(n, id_kind, rng) for n in numbers))
    gt_ids, spare = ids[:n_gt], ids[n_gt:]
    n_judged = min(round(overlap * n_ret), n_gt)
    ret_ids = rng.sample(gt_ids, n_judged) + spare[: n_ret - n_judged]
    rng.shuffle(ret_ids)

    gt = [(d, rng.choice(pool)) for d in gt_ids]
    ret = [(d, _score(rng, score_kind)) for d in ret_ids]
    for _ in range(dup_gt):
        gt.insert(rng.randint(0, len(gt)), (rng.choice(gt_ids), rng.choice(pool)))
    for _ in range(dup_ret if ret_ids else 0):
        ret.insert(rng.randint(0, len(ret)), (rng.choice(ret_ids), _score(rng, score_kind)))

    if (lo, hi) != (0, 4):
        init = {**label_range(lo, hi), **init}
    return make_case(category, gt_rows(gt), ret_rows(ret), **init)


def random_cases(rng: random.Random) -> list[Case]:
    """Randomised families: default range, other ranges, ties, duplicates, large lists, thresholds."""
    out: list[Case] = []
    kinds = ["float", "wide", "int", "ties", "mixed", "inf"]
    for i in range(60):
        out.append(
            random_case(
                rng,
                "default_range",
                n_gt=rng.randint(1, 25),
                n_ret=rng.randint(0, 30),
                overlap=rng.choice([0.0, 0.2, 0.5, 0.8, 1.0]),
                id_kind=["str", "int", "mixed"][i % 3],
                score_kind=kinds[i % len(kinds)],
                dup_ret=rng.choice([0, 0, 1, 3]),
                dup_gt=rng.choice([0, 0, 1, 2]),
            )
        )
    ranges = [(0, 1), (0, 2), (1, 5), (-1, 3), (-2, 2), (0, 10), (0, 20), (-5, 5), (9, 20), (10, 100), (2, 3)]
    for lo, hi in ranges:
        for i in range(10):
            out.append(
                random_case(
                    rng,
                    f"range_{lo}_{hi}",
                    lo,
                    hi,
                    n_gt=rng.randint(1, 20),
                    n_ret=rng.randint(1, 25),
                    overlap=rng.choice([0.3, 0.6, 0.9, 1.0]),
                    id_kind=["str", "int"][i % 2],
                    score_kind=kinds[i % len(kinds)],
                    dup_ret=rng.choice([0, 1]),
                    dup_gt=rng.choice([0, 1]),
                )
            )
    for lo, hi in [(-3, -1), (-5, -1)]:
        for overlap in (1.0, 1.0, 0.7):
            out.append(random_case(rng, f"range_{lo}_{hi}", lo, hi, n_gt=8, n_ret=6, overlap=overlap))
    for i in range(12):
        out.append(
            random_case(
                rng,
                "ties",
                n_gt=rng.randint(3, 12),
                n_ret=rng.randint(3, 12),
                overlap=0.7,
                id_kind=["str", "int"][i % 2],
                score_kind="ties",
            )
        )
    for i in range(12):
        out.append(
            random_case(
                rng,
                "duplicates",
                n_gt=rng.randint(2, 10),
                n_ret=rng.randint(2, 10),
                overlap=0.8,
                score_kind=["float", "ties", "int"][i % 3],
                dup_ret=rng.randint(1, 6),
                dup_gt=rng.randint(1, 6),
            )
        )
    for i in range(10):
        lo, hi = [(0, 4), (0, 4), (0, 4), (0, 10), (-1, 3)][i % 5]
        out.append(
            random_case(
                rng,
                "large",
                lo,
                hi,
                n_gt=rng.randint(30, 120),
                n_ret=rng.randint(80, 120),
                overlap=rng.choice([0.3, 0.6, 0.9]),
                id_kind=["str", "int"][i % 2],
                score_kind=["float", "ties", "int", "wide", "mixed"][i % 5],
                dup_ret=rng.randint(0, 5),
                dup_gt=rng.randint(0, 5),
            )
        )
    for _ in range(15):
        thresholds = {
            "ndcg_threshold": rng.choice([0.0, 0.3, 0.7, 1, 0.9]),
            "xdcg_threshold": rng.choice([10.0, 25, 60.5]),
            "fidelity_threshold": rng.choice([0.1, 0.5, 1]),
            "top1_relevance_threshold": rng.choice([1, 2.0, 3]),
            "top3_max_relevance_threshold": rng.choice([2, 4.0]),
            "total_retrieved_documents_threshold": rng.choice([1, 5, 10.5]),
            "total_ground_truth_documents_threshold": rng.choice([1, 3, 20]),
        }
        chosen = dict(rng.sample(sorted(thresholds.items()), rng.randint(1, len(thresholds))))
        out.append(
            random_case(
                rng,
                "thresholds",
                n_gt=rng.randint(1, 10),
                n_ret=rng.randint(0, 10),
                overlap=0.7,
                **chosen,
            )
        )
    for lo, hi, pool in [(0, 4, [0]), (0, 2, [0]), (1, 5, [1]), (-1, 3, [-1, 0]), (0, 4, [0, 4])]:
        out.append(random_case(rng, "label_pool", lo, hi, n_gt=6, n_ret=6, overlap=0.7, label_pool=pool))
    return out


def edge_cases() -> list[Case]:
    """Hand-written cases: spec examples, branches, ids, scores, duplicates and SDK bugs."""
    gt = gt_rows
    rt = ret_rows
    inf = math.inf
    r = label_range(-2, 2)
    return [
        # branch 1: nothing retrieved
        make_case("empty_retrieved", gt([("a", 3)]), []),
        make_case("empty_retrieved", gt([("a", 1), ("a", 5)]), [], **label_range(1, 5)),
        make_case("empty_retrieved", gt([("a", -5)]), [], **label_range(-5, 5)),
        make_case("non_list_retrieved", gt([("a", 3)]), (rt([("a", 1.0)])[0],)),
        # branch 2: nothing relevant retrieved
        make_case("all_unjudged", gt([("a", 4), ("b", 2)]), rt([("x", 1.0), ("y", 0.5)])),
        make_case("all_label_zero", gt([("a", 0), ("b", 0)]), rt([("a", 1.0), ("b", 0.5), ("x", 0.2)])),
        make_case("all_label_zero", gt([("a", 0), ("b", 3)]), rt([("a", 1.0)]), ground_truth_label_min=-1),
        make_case("all_unjudged", gt([("a", 2)]), rt([("x", 1.0)]), **label_range(0, 2000)),
        # branch 3 shapes
        make_case("single", gt([("a", 4)]), rt([("a", 0.0)])),
        make_case("single", gt([(7, 1)]), rt([(7, -1)])),
        make_case("below_rank3", gt([("a", 4), ("b", 0)]), rt([("x", 4), ("y", 3), ("b", 2), ("a", 1)])),
        make_case("short_lists", gt([("a", 2), ("b", 1)]), rt([("b", 0.9), ("a", 0.1)])),
        make_case("ones_only", gt([("a", 1)]), rt([("x", 3.0), ("a", 2.0)]), **label_range(0, 1)),
        # fidelity corner cases
        make_case("fidelity_above_one", gt([("a", 1)]), rt([("a", 3), ("x", 2), ("y", 1)]), **label_range(-1, 3)),
        make_case("fidelity_nan", gt([("a", 1), ("b", 1)]), rt([("a", 0.5)]), **label_range(1, 5)),
        make_case("negative_labels", gt([("a", -2), ("b", 1)]), rt([("a", 2.0), ("b", 1.0)]), **r),
        make_case("negative_labels", gt([("a", -2), ("b", -1), ("c", 2)]), rt([("b", 3), ("a", 2), ("x", 1)]), **r),
        # ids and equality
        make_case("id_equality", gt([(1, 3), ("1", 1)]), rt([(1.0, 0.5), (True, 0.9), ("1", 0.7)])),
        make_case("id_equality", gt([("Doc", 2), ("", 3)]), rt([("doc", 0.9), ("", 0.5), ("Doc", 0.7)])),
        # scores
        make_case("score_types", gt([("a", 1), ("b", 2), ("c", 3)]), rt([("a", 1), ("b", 1.0), ("c", True)])),
        make_case("score_inf", gt([("a", 1), ("b", 2)]), rt([("a", -inf), ("b", inf), ("c", 0.0), ("d", inf)])),
        make_case("score_signed_zero", gt([("a", 1), ("b", 2)]), rt([("a", -0.0), ("b", 0.0)])),
        make_case("score_big_int", gt([("a", 1), ("b", 4)]), rt([("a", 10**20 + 1), ("b", 1e20)])),
        make_case("score_big_int", gt([("a", 1), ("b", 4)]), rt([("a", 10**20), ("b", 1e20)])),
        make_case("ties", gt([("a", 1), ("b", 2), ("c", 3)]), rt([("a", 1.0), ("b", 1.0), ("c", 1.0)])),
        # duplicates
        make_case("duplicates", gt([("a", 1), ("b", 2)]), rt([("a", 1.0), ("b", 2.0), ("a", 3.0)])),
        make_case("duplicates", gt([("a", 4), ("b", 2), ("a", 0)]), rt([("a", 1.0), ("b", 0.5)])),
        make_case("duplicates", gt([("a", 4)]), rt([("x", 2.0), ("x", 1.0), ("a", 1.5), ("x", 0.1)])),
        # spec 3.1: fidelity misalignment
        make_case("misalignment", gt([("a", 10), ("b", 1)]), rt([("a", 1.0)]), **label_range(0, 10)),
        make_case("misalignment", gt([("a", 1), ("b", 2)]), rt([("a", 1.0)]), **label_range(0, 1022)),
        make_case("misalignment", gt([("a", -1), ("b", -2), ("c", 1)]), rt([("a", 1), ("x", 0)]), **label_range(-3, 2)),
        make_case("misalignment", gt([("a", 100), ("b", 11)]), rt([("b", 1.0)]), **label_range(9, 100)),
        # spec 3.2: bool labels
        make_case("bool_label", gt([("a", True), ("b", False), ("c", 3)]), rt([("a", 1.0), ("c", 0.5)])),
        make_case("bool_label", gt([("a", False)]), rt([("a", 1.0)])),
        make_case("bool_label", gt([("a", True), ("b", 3)]), rt([("a", 1.0), ("b", 0.5)]), **label_range(1, 5)),
        # unjudged doc label 0 above label_max
        make_case("unjudged_above_max", gt([("a", -1), ("b", -3)]), rt([("a", 1), ("x", 0)]), **label_range(-3, -1)),
        # spec 3.11: NaN scores
        make_case("nan_score", gt([("a", 1), ("b", 2), ("c", 3)]), rt([("c", 1.0), ("a", math.nan), ("b", 2.0)])),
        make_case("nan_score", gt([("a", 1), ("b", 2), ("c", 3)]), rt([("a", math.nan), ("b", 2.0), ("c", 1.0)])),
        # spec 3.5: IDCG == 0
        make_case("zero_division", gt([("a", 0), ("b", 0), ("c", 0), ("d", -1)]), rt([("d", 1.0)]), **r),
        # spec 3.6: overflow
        make_case("overflow", gt([("a", 1), ("b", 2)]), rt([("a", 1.0)]), **label_range(0, 1023)),
        make_case("overflow", gt([("a", 5)]), rt([("a", 1.0), ("x", 0.0)]), **label_range(0, 5000)),
        # spec 3.9: None / str thresholds
        make_case("threshold_type", gt([("a", 1)]), rt([("a", 1.0)]), fidelity_threshold=None),
        make_case("threshold_type", gt([("a", 1)]), [], ndcg_threshold=None),
    ]


def error_cases() -> list[Case]:
    """Validation errors at construction and at call time."""
    gt = gt_rows
    rt = ret_rows
    good_gt = gt([("a", 1)])
    good_rt = rt([("a", 1.0)])
    return [
        make_case("error_init", good_gt, good_rt, ground_truth_label_min=2.5),
        make_case("error_init", good_gt, good_rt, ground_truth_label_max="4"),
        make_case("error_init", good_gt, good_rt, **label_range(4, 4)),
        make_case("error_init", good_gt, good_rt, **label_range(5, 1)),
        make_case("error_init", good_gt, good_rt, ground_truth_label_min=1.0, ground_truth_label_max=0.5),
        make_case("threshold_type", good_gt, good_rt, xdcg_threshold="50"),
        make_case("error_empty_gt", [], good_rt),
        make_case("error_empty_gt", [], []),
        make_case("error_label_range", gt([("a", 1), ("b", -1)]), good_rt),
        make_case("error_label_range", gt([("a", 5)]), good_rt),
        make_case("error_label_range", gt([("a", 0)]), good_rt, **label_range(1, 5)),
        make_case("error_label_type", gt([("a", 4.0)]), good_rt),
        make_case("error_label_type", gt([("a", "3")]), good_rt),
        make_case("error_label_type", gt([("a", 1), ("b", 2.5)]), rt([("a", "x")])),
        make_case("error_missing", [{"document_id": "a"}], good_rt),
        make_case("error_missing", [{"query_relevance_label": 1}], good_rt),
        make_case("error_missing", [{"document_id": None, "query_relevance_label": 1}], good_rt),
        make_case("error_missing", [{"document_id": "a", "query_relevance_label": None}], good_rt),
        make_case("error_missing", good_gt, [{"document_id": "a"}]),
        make_case("error_missing", good_gt, [{"relevance_score": 1.0}]),
        make_case("error_missing", good_gt, [{"document_id": "a", "relevance_score": None}]),
        make_case("error_score_type", good_gt, rt([("a", 1.0), ("b", "0.5")])),
        make_case("error_order", gt([("a", 1), ("b", 9)]), [{"document_id": "a"}]),
        {"category": "error_kwargs", "init": {}, "call": {"retrieval_ground_truth": good_gt}},
        make_case("error_kwargs", good_gt, None),
        {"category": "error_kwargs", "init": {}, "call": {"retrieved_documents": good_rt}},
    ]


# ----------------------------------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------------------------------


def _static_bugs(init: dict[str, Any], call: dict[str, Any]) -> list[str]:
    """Bug tags that follow from the inputs alone."""
    lo = init.get("ground_truth_label_min", 0)
    hi = init.get("ground_truth_label_max", 4)
    gt = call.get("retrieval_ground_truth")
    ret = call.get("retrieved_documents")
    gt = gt if isinstance(gt, list) else []
    ret = ret if isinstance(ret, list) else []
    judged = {row.get("document_id") for row in gt}
    bugs = []
    if isinstance(lo, int) and isinstance(hi, int):
        relevant = [str(v) for v in range(lo + 1, hi + 1)]
        if sorted(relevant) != relevant:
            bugs.append("fidelity_misalignment")
        if hi >= 1023:
            bugs.append("overflow")
        if hi < 0 and any(row.get("document_id") not in judged for row in ret):
            bugs.append("unjudged_above_max")
    if any(isinstance(row.get("query_relevance_label"), bool) for row in gt):
        bugs.append("bool_label")
    if any(isinstance(s := row.get("relevance_score"), float) and math.isnan(s) for row in ret):
        bugs.append("nan_score")
    if any(key.endswith("_threshold") and not isinstance(value, (int, float)) for key, value in init.items()):
        bugs.append("threshold_type")
    return bugs


def _error_record(stage: str, error: Exception) -> dict[str, Any]:
    """The JSON record of an exception."""
    record: dict[str, Any] = {
        "stage": stage,
        "type": type(error).__name__,
        "message": error.args[0] if error.args else "",
    }
    if isinstance(error, EvaluationException):
        record["category"] = error.category.name
        record["blame"] = error.blame.name
    return record


# SDK exception types (other than EvaluationException) and the bug tags that explain them
EXPLAINED_CRASHES = {
    "KeyError": {"bool_label", "unjudged_above_max"},
    "OverflowError": {"overflow"},
    "TypeError": {"threshold_type"},
    "ZeroDivisionError": {"zero_division"},
}


def run_case(case_id: str, spec: Case) -> dict[str, Any]:
    """Run one case through the SDK and build its JSON record."""
    init, call = spec["init"], spec["call"]
    bugs = _static_bugs(init, call)
    output = error = None
    try:
        evaluator = DocumentRetrievalEvaluator(**init)
    except Exception as exc:  # every SDK failure is recorded
        error = _error_record("init", exc)
    else:
        try:
            output = encode_typed(evaluator(**call))[1]
        except Exception as exc:
            error = _error_record("call", exc)
            if isinstance(exc, ZeroDivisionError):
                bugs.append("zero_division")
    crashed = error is not None and error["type"] != "EvaluationException"
    if crashed and not EXPLAINED_CRASHES.get(error["type"], set()) & set(bugs):
        raise AssertionError(f"{case_id}: SDK crash not explained by a bug tag: {error}")
    return {
        "case_id": case_id,
        "category": spec["category"],
        "sdk_version": SDK_VERSION,
        "bugs": bugs,
        "init": init,
        "call": encode_input(call),
        "output": output,
        "error": error,
    }


def main() -> None:
    """Generate every case, run it and write ``tests/data/azure_golden.jsonl``."""
    rng = random.Random(SEED)
    specs = edge_cases() + error_cases() + random_cases(rng)
    lines = [
        json.dumps(run_case(f"c{index:04d}", spec), separators=(",", ":"), allow_nan=False)
        for index, spec in enumerate(specs)
    ]
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases ({OUTPUT.stat().st_size} bytes) to {OUTPUT}")


if __name__ == "__main__":
    main()
