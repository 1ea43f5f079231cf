"""The pytrec_eval drop-in (``retrieval_eval.compat.pytrec_eval``) against pytrec_eval itself, side by side.

What a user of pytrec_eval runs, timed for both modules on the same nested dicts (built once,
untimed): ``RelevanceEvaluator(qrels, measures)`` then ``.evaluate(run)``, at two sizes (50 queries
and 10,000 queries x 100 documents, the TREC DL-shaped workload of workload.py) and two measure
sets (five common measures, and pytrec_eval's 34 ``supported_measures``, 95 values per query).

- Warm, in one process: each contender is called until its steady state (ours leaves the python
  kernels of a process's first work behind), then the rounds interleave the contenders; a sample
  repeats the call for at least ``SAMPLE_S``. Reported: construction + evaluate per call, and each
  part alone, medians (min-max) over the rounds, and the round-by-round ratio pytrec_eval / ours
  (above 1: the drop-in is faster).
- First call: each contender in a fresh process, the import included (the dicts are unpickled
  before the clock starts).
- Agreement: the two outputs compared value by value; the only differences expected are
  ``iprec_at_recall`` and ``11pt_avg`` (trec_eval 10's rounding of recall levels, see the module).

Usage (from the repository root, with pytrec-eval-terrier installed)::

    python benchmarks/bench_pytrec_dropin.py [--queries 50,10000] [--rounds 7] [--json OUT]

See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.harness import Spread, describe_machine, interleave, load_average, machine, print_table, ratios  # noqa: E402

DEFAULT_QUERIES = (50, 10_000)
DEPTH = 100
#: The five measures of the other benchmarks, in pytrec_eval's spelling; then everything it has.
MEASURE_SETS = {"5 measures": ("map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"), "supported_measures": None}
#: Calls of each contender before it is timed (ours switches from python to compiled kernels within them).
STEADY_STATE_CALLS = 15
#: The shortest sample: small calls are repeated within it.
SAMPLE_S = 0.2
#: Keys where the drop-in follows trec_eval 10 and pytrec_eval trec_eval 9.
DIFFER_BY_DEFINITION = ("iprec_at_recall_", "11pt_avg")
MODULES = {"drop-in": "retrieval_eval.compat.pytrec_eval", "pytrec_eval": "pytrec_eval"}

#: The child of the first-call measurement: argv = module, pickle path, measure set name.
FIRST_CALL = """
import pickle, sys, time
with open(sys.argv[2], "rb") as f:
    qrels, run, measures = pickle.load(f)
start = time.perf_counter()
module = __import__(sys.argv[1], fromlist=["RelevanceEvaluator"])
measures = module.supported_measures if measures is None else measures
module.RelevanceEvaluator(qrels, measures).evaluate(run)
print(time.perf_counter() - start)
"""


def nested(frame: Any, value: str) -> dict[str, dict[str, Any]]:
    """``{query_id: {doc_id: value}}`` from a workload table, as a pytrec_eval user holds it."""
    out: dict[str, dict[str, Any]] = {}
    for query, doc, number in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame[value].tolist()):
        out.setdefault(query, {})[doc] = number
    return out


def sampled(call: Callable[[], Any]) -> Callable[[], float]:
    """A sample of ``call``: repeated until SAMPLE_S has passed (at least once), seconds per call."""
    def sample() -> float:
        gc.collect()
        calls, start = 0, time.perf_counter()
        while True:
            call()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= SAMPLE_S:
                return elapsed / calls
    return sample


def contenders(qrels: dict, run: dict, measures: Sequence[str] | None) -> dict[str, dict[str, Callable[[], Any]]]:
    """Per module: ``whole`` (construction + evaluate), ``build`` (construction), ``score`` (evaluate of a built one)."""
    calls = {}
    for name, module_name in MODULES.items():
        module = __import__(module_name, fromlist=["RelevanceEvaluator"])
        chosen = module.supported_measures if measures is None else set(measures)
        built = module.RelevanceEvaluator(qrels, chosen)
        calls[name] = {
            "whole": lambda module=module, chosen=chosen: module.RelevanceEvaluator(qrels, chosen).evaluate(run),
            "build": lambda module=module, chosen=chosen: module.RelevanceEvaluator(qrels, chosen),
            "score": lambda built=built: built.evaluate(run),
        }
    return calls


def agreement(ours: dict, theirs: dict) -> dict[str, Any]:
    """Value-by-value comparison: counts, and the keys that differ (expected: DIFFER_BY_DEFINITION only)."""
    compared = differing = 0
    keys: set[str] = set()
    same_shape = list(ours) == list(theirs) and all(list(ours[q]) == list(theirs[q]) for q in theirs)
    for query, values in theirs.items():
        for key, value in values.items():
            mine = ours.get(query, {}).get(key, math.inf)
            compared += 1
            if not (mine == value or (math.isnan(mine) and math.isnan(value))):
                differing += 1
                keys.add(key)
    unexpected = sorted(key for key in keys if not key.startswith(DIFFER_BY_DEFINITION))
    return {"same_queries_and_keys_in_order": same_shape, "values": compared, "differing": differing,
            "differing_keys": sorted(keys), "unexpected": unexpected}


def first_call(module: str, data: Path) -> float:
    done = subprocess.run([sys.executable, "-c", FIRST_CALL, module, str(data)], check=True, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def measure_size(n_queries: int, args: argparse.Namespace, directory: Path) -> list[dict[str, Any]]:
    from benchmarks.workload import make_trec_dl_workload

    workload = make_trec_dl_workload(n_queries, depth=DEPTH, seed=args.seed)
    qrels, run = nested(workload.qrels, "relevance"), nested(workload.run, "score")
    found = []
    for label, measures in MEASURE_SETS.items():
        print(f"{n_queries:,} queries x {DEPTH}, {label}: {args.rounds} rounds ...", flush=True)
        data = directory / f"{n_queries}-{len(found)}.pickle"
        data.write_bytes(pickle.dumps((qrels, run, None if measures is None else set(measures))))
        first = {name: first_call(module, data) for name, module in MODULES.items()}
        calls = contenders(qrels, run, measures)
        outputs = {name: calls[name]["whole"]() for name in calls}
        for name in calls:
            for _ in range(STEADY_STATE_CALLS if n_queries <= 1_000 else 2):
                calls[name]["whole"]()
        times = {part: interleave({name: sampled(calls[name][part]) for name in calls}, args.rounds)
                 for part in ("whole", "build", "score")}
        found.append({
            "queries": n_queries, "measures": label, "run_rows": len(workload.run), "qrels_rows": len(workload.qrels),
            "first_call_s": first,
            "seconds": {part: {name: Spread(tuple(values)).to_dict() for name, values in series.items()}
                        for part, series in times.items()},
            "ratio": {part: ratios(series["pytrec_eval"], series["drop-in"]).to_dict() for part, series in times.items()},
            "agreement": agreement(outputs["drop-in"], outputs["pytrec_eval"]),
        })
    return found


def _ms(spread: dict[str, Any]) -> str:
    return f"{spread['median'] * 1e3:.2f} ({spread['min'] * 1e3:.2f}-{spread['max'] * 1e3:.2f})"


def _ratio(spread: dict[str, Any]) -> str:
    return f"{spread['median']:.2f}x ({spread['min']:.2f}-{spread['max']:.2f})"


def print_report(results: list[dict[str, Any]], rounds: int) -> None:
    rows = [("size, measures", "module", "construction + evaluate, ms", "construction, ms", "evaluate, ms", "first call, s")]
    for result in results:
        size = f"{result['queries']:,} x {DEPTH}, {result['measures']}"
        for name in MODULES:
            rows.append((size, name, *(_ms(result["seconds"][part][name]) for part in ("whole", "build", "score")),
                         f"{result['first_call_s'][name]:.2f}"))
        rows.append((size, "pytrec_eval / drop-in", *(_ratio(result["ratio"][part]) for part in ("whole", "build", "score")),
                     f"{result['first_call_s']['pytrec_eval'] / result['first_call_s']['drop-in']:.2f}x"))
    print_table(rows, title=f"Warm, medians (min-max) of {rounds} interleaved rounds; first call in a fresh process, "
                            "import included (one run)")
    rows = [("size, measures", "values compared", "differing", "keys that differ", "same queries and keys, in order")]
    for result in results:
        check = result["agreement"]
        keys = ", ".join(check["differing_keys"]) or "none"
        if check["unexpected"]:
            keys += f" (UNEXPECTED: {', '.join(check['unexpected'])})"
        rows.append((f"{result['queries']:,} x {DEPTH}, {result['measures']}", f"{check['values']:,}", f"{check['differing']:,}",
                     keys, "yes" if check["same_queries_and_keys_in_order"] else "NO"))
    print_table(rows, title="Agreement, value by value (differences expected only in iprec_at_recall and 11pt_avg)")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default=",".join(map(str, DEFAULT_QUERIES)),
                        help="comma-separated query counts (default 50,10000)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per part (default 7)")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    try:
        args.queries = [int(part) for part in args.queries.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--queries takes comma-separated integers, got {args.queries!r}")
    if args.rounds < 1 or not args.queries or min(args.queries) < 1:
        parser.error("--rounds and every --queries count must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    host = machine("retrieval_eval", "pytrec-eval-terrier")
    print(f"Machine: {describe_machine(host)}")
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        print("pytrec_eval is not installed (pip install pytrec-eval-terrier): nothing to compare with")
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-pytrec-dropin-") as tmp:
        results = [result for n_queries in args.queries for result in measure_size(n_queries, args, Path(tmp))]
    print(f"\nFigures at commit {host['commit']}; load average {host['load_average']:.2f} before, {load_average():.2f} after")
    print_report(results, args.rounds)
    if args.json:
        args.json.write_text(json.dumps({"machine": host, "results": results, "rounds": args.rounds}, indent=2) + "\n",
                             encoding="utf-8")
    return 1 if any(result["agreement"]["unexpected"] for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
