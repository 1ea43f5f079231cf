"""Latency at everyday sizes: the CLI warm and after a fresh install, and in-process scoring,
side by side with the ir_measures CLI, the trec_eval binary and pytrec_eval.

Three sections, each printed as a table with its targets:

1. CLI, warm caches: ``retrieval-eval evaluate QRELS RUN -m ...`` (five measures) and
   ``--trec`` (trec_eval's default measures) against ``ir_measures QRELS RUN '...'`` and
   ``trec_eval``, on trec_eval's own test files and on a TREC DL-shaped run (43 queries x 100
   and x 1000 documents); ``retrieval-eval --help`` / ``--version`` against ``python -c pass``.
   Wall time of each subprocess, ``--runs`` times, all commands interleaved round by round;
   ratios are taken round by round, then their median, min and max.
2. In process, warm: ``Evaluator(qrels, metrics).evaluate(run_df)`` (and ``evaluate(Qrels,
   run_df)``, ``evaluate(qrels_df, run_df)``) against pytrec_eval's
   ``RelevanceEvaluator.evaluate(run_dict)`` on dicts built beforehand, at 43, 1,000 and 10,000
   queries x 100 documents; the means are checked to agree to 1e-12.
3. First call after a fresh install: commands run with ``NUMBA_CACHE_DIR`` set to a new empty
   directory, then again with what the first call wrote; ``retrieval-eval compile`` when the
   CLI has it.

Usage (from the repository root, in the project's environment)::

    python benchmarks/bench_latency.py [--quick] [--runs 15] [--rounds 15] [--cold-repeats 3]
        [--shared ../shared] [--trec-eval PATH] [--sections cli,inprocess,cold] [--json OUT]

A peer that is not installed is reported as such and the rest still runs. See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.harness import (  # noqa: E402
    Spread,
    describe_machine,
    interleave,
    load_average,
    machine,
    print_table,
    ratios,
    verdict,
)
from benchmarks.workload import Workload, make_trec_dl_workload, top, write_trec  # noqa: E402

# The same five measures in each tool's spelling. Ours accepts trec_eval's names on the CLI.
TREC_MEASURES = ("ndcg_cut.10", "map", "P.5", "recall.100", "recip_rank")
MEASURE_OPTIONS = tuple(part for name in TREC_MEASURES for part in ("-m", name))
IR_MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@5": "P_5", "R@100": "recall_100", "RR": "recip_rank"}
# Our metric names (in process) -> pytrec_eval's result keys.
METRICS = {"ndcg@10": "ndcg_cut_10", "map": "map", "precision@5": "P_5", "recall@100": "recall_100",
           "recip_rank": "recip_rank"}

DL_QUERIES = 43
DL_DEPTHS = (100, 1000)
INPROCESS_QUERIES = (43, 1_000, 10_000)
INPROCESS_DEPTH = 100
README_COMMAND = ("evaluate", "data/qrels.trec", "data/run.trec")

TARGET_VS_IR_MEASURES = 2.0
STRETCH_VS_IR_MEASURES = 1.0
TARGET_VS_TREC_EVAL = 20.0
TARGET_STARTUP_S = 0.3
TARGET_VS_PYTREC = 1.0
TARGET_COLD_S = 5.0
MEANS_TOLERANCE = 1e-12
# An in-process sample repeats the call until it has taken about this long, then takes the mean.
SAMPLE_S = 0.05
NOT_INSTALLED = "not installed"


# ---------------------------------------------------------------------------------------------
# Tools and files


def find_tool(name: str) -> str | None:
    """The console script installed beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def find_trec_eval(explicit: Path | None, shared: Path) -> tuple[str | None, str]:
    """(path or None, how it was found): ``--trec-eval``, else what the shared build script prints."""
    if explicit is not None:
        found = explicit.is_file() and os.access(explicit, os.X_OK)
        return (str(explicit), "--trec-eval") if found else (None, f"{explicit} is not an executable")
    script = shared / "peers" / "build_trec_eval.sh"
    if not script.is_file():
        return None, f"{script} not found"
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None, f"build_trec_eval.sh failed: {done.stderr.strip()[-300:]}"
    return lines[-1], "build_trec_eval.sh"


@dataclass(frozen=True)
class FileSet:
    """A qrels file and a run file, scored by every CLI."""

    key: str
    description: str
    qrels: Path
    run: Path


def write_file_sets(shared: Path, directory: Path, seed: int) -> tuple[list[FileSet], list[str]]:
    """trec_eval's test files (when the shared directory has them) and the DL-shaped runs, written
    to ``directory``; and notes on what is missing."""
    sets, notes = [], []
    tests = shared / "peers" / "trec_eval_test"
    if (tests / "qrels.test").is_file() and (tests / "results.test").is_file():
        sets.append(FileSet("trec_eval_test", "trec_eval's qrels.test + results.test (3 queries)",
                            tests / "qrels.test", tests / "results.test"))
    else:
        notes.append(f"trec_eval's test files not found under {tests}: that file set is skipped")
    deepest = make_trec_dl_workload(DL_QUERIES, depth=max(DL_DEPTHS), seed=seed)
    qrels_path = directory / "dl.qrels"
    for depth in DL_DEPTHS:
        workload = top(deepest, depth)
        run_path = directory / f"dl.{depth}.run"
        write_trec(workload, qrels_path, run_path)
        sets.append(FileSet(f"dl{depth}", f"DL-shaped, {DL_QUERIES} queries x {depth} documents, "
                            f"{len(workload.qrels):,} judgments", qrels_path, run_path))
    return sets, notes


# ---------------------------------------------------------------------------------------------
# Subprocess timing


@dataclass
class Command:
    """One command line to time; ``argv`` None when its tool is not installed."""

    key: str
    label: str
    argv: list[str] | None
    files: str = "-"
    output: str | None = None  # stdout of the untimed check run
    error: str | None = None  # why it is not timed

    def check(self) -> None:
        """Run once untimed (warms the OS and numba caches) and keep its output, or why it failed."""
        if self.argv is None:
            self.error = NOT_INSTALLED
            return
        done = subprocess.run(self.argv, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            self.error = f"exit {done.returncode}: {_last_line(done.stderr)}"
        self.output = done.stdout

    def timed(self) -> float:
        seconds, error = wall_seconds(self.argv or [])
        if error:
            raise RuntimeError(f"{self.label} failed during timing ({error}) after passing its check")
        return seconds


def wall_seconds(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, str | None]:
    """Wall time of one run, and its error (None when it exited 0)."""
    start = time.perf_counter()
    done = subprocess.run(list(argv), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    error = None if done.returncode == 0 else f"exit {done.returncode}: {_last_line(done.stderr)}"
    return elapsed, error


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[-1][:200]


def _seconds(spread: Spread | None) -> tuple[str, str, str]:
    if spread is None:
        return "-", "-", "-"
    return f"{spread.median:.3f}", f"{spread.min:.3f}", f"{spread.max:.3f}"


def _ratio(spread: Spread | None) -> str:
    if spread is None:
        return "-"
    return f"{spread.median:.2f} ({spread.min:.2f}-{spread.max:.2f})"


# ---------------------------------------------------------------------------------------------
# Section 1: the CLI, warm


def parse_trec_output(text: str) -> dict[str, str]:
    """trec_eval's three-column output: measure -> value (as printed) of the 'all' lines."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            found[parts[0]] = parts[2]
    return found


def parse_ir_measures_output(text: str) -> dict[str, str]:
    """ir_measures' summary (``measure<TAB>value``), renamed to trec_eval's measure names."""
    found = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0] in IR_MEASURES:
            found[IR_MEASURES[parts[0]]] = parts[1]
    return found


def compare_values(ours: dict[str, str], theirs: dict[str, str], keys: Sequence[str]) -> str:
    """'same' when every key is printed by both as the same number, else what differs."""
    differing = [key for key in keys if key not in ours or key not in theirs or float(ours[key]) != float(theirs[key])]
    if not differing:
        return "same"
    return "DIFFER: " + ", ".join(f"{key} {ours.get(key)} vs {theirs.get(key)}" for key in differing)


def compare_outputs(ours: str, theirs: str) -> str:
    if ours == theirs:
        return "identical bytes"
    ours_lines, their_lines = ours.splitlines(), theirs.splitlines()
    if [line.split() for line in ours_lines] == [line.split() for line in their_lines]:
        return "same values, whitespace differs"
    differing = sum(a.split() != b.split() for a, b in zip(ours_lines, their_lines))
    return f"DIFFER: {differing} lines of {len(their_lines)}, line counts {len(ours_lines)} vs {len(their_lines)}"


def cli_commands(tools: dict[str, str | None], sets: list[FileSet]) -> list[Command]:
    ours, ir_measures, trec_eval = tools["retrieval-eval"], tools["ir_measures"], tools["trec_eval"]
    commands = [
        Command("floor", "python -c pass", [sys.executable, "-c", "pass"]),
        Command("import", "python -c 'import retrieval_eval'", [sys.executable, "-c", "import retrieval_eval"]),
        Command("version", "retrieval-eval --version", ours and [ours, "--version"]),
        Command("help", "retrieval-eval --help", ours and [ours, "--help"]),
    ]
    for files in sets:
        q, r = str(files.qrels), str(files.run)
        commands += [
            Command(f"{files.key}:ours", "retrieval-eval evaluate -m (5 measures)",
                    ours and [ours, "evaluate", q, r, *MEASURE_OPTIONS], files.key),
            Command(f"{files.key}:ir_measures", "ir_measures (5 measures)",
                    ir_measures and [ir_measures, q, r, " ".join(IR_MEASURES)], files.key),
            Command(f"{files.key}:trec_eval", "trec_eval -m (5 measures)",
                    trec_eval and [trec_eval, *MEASURE_OPTIONS, q, r], files.key),
            Command(f"{files.key}:ours_default", "retrieval-eval evaluate --trec (default measures)",
                    ours and [ours, "evaluate", q, r, "--trec"], files.key),
            Command(f"{files.key}:trec_eval_default", "trec_eval (default measures)",
                    trec_eval and [trec_eval, q, r], files.key),
        ]
    return commands


def cli_agreement(commands: dict[str, Command], tools: dict[str, str | None], sets: list[FileSet]) -> dict[str, dict[str, str]]:
    """Per file set: our five measures (printed with --trec) and ir_measures' against trec_eval's,
    and our --trec default output against trec_eval's, byte for byte."""
    found: dict[str, dict[str, str]] = {}
    keys = list(IR_MEASURES.values())
    for files in sets:
        reference = commands[f"{files.key}:trec_eval"]
        if reference.output is None or reference.error:
            found[files.key] = {"note": "no trec_eval output to compare with"}
            continue
        expected = parse_trec_output(reference.output)
        checks = {}
        if tools["retrieval-eval"]:
            ours = Command("check", "ours --trec", [tools["retrieval-eval"], "evaluate", str(files.qrels), str(files.run),
                                                   *MEASURE_OPTIONS, "--trec"])
            ours.check()
            checks["retrieval-eval, 5 measures"] = ours.error or compare_values(parse_trec_output(ours.output), expected, keys)
        ir = commands[f"{files.key}:ir_measures"]
        if ir.output is not None and not ir.error:
            checks["ir_measures, 5 measures"] = compare_values(parse_ir_measures_output(ir.output), expected, keys)
        default, reference_default = commands[f"{files.key}:ours_default"], commands[f"{files.key}:trec_eval_default"]
        if default.output is not None and not default.error and reference_default.output is not None:
            checks["retrieval-eval --trec, default measures"] = compare_outputs(default.output, reference_default.output)
        found[files.key] = checks
    return found


def cli_section(args: argparse.Namespace, tools: dict[str, str | None], sets: list[FileSet]) -> dict[str, Any]:
    commands = {command.key: command for command in cli_commands(tools, sets)}
    print(f"Section 1: checking {len(commands)} commands once (untimed) ...", flush=True)
    for command in commands.values():
        command.check()
    ready = {key: command.timed for key, command in commands.items() if command.error is None}
    print(f"  timing {len(ready)} commands x {args.runs} runs, interleaved ...", flush=True)
    times = interleave(ready, args.runs, on_round=lambda i: print(f"    round {i + 1}/{args.runs}", flush=True))
    spreads = {key: Spread(tuple(values)) for key, values in times.items()}

    def ratio(mine: str, theirs: str) -> Spread | None:
        return ratios(times[mine], times[theirs]) if mine in times and theirs in times else None

    targets = []
    for key, label in (("version", "retrieval-eval --version"), ("help", "retrieval-eval --help")):
        spread = spreads.get(key)
        targets.append({"target": f"{label} wall time", "files": "-",
                        "value": "-" if spread is None else f"{spread.median:.3f} s ({spread.min:.3f}-{spread.max:.3f})",
                        "goal": f"<= {TARGET_STARTUP_S} s",
                        "met": None if spread is None else spread.median <= TARGET_STARTUP_S})
    for files in sets:
        k = files.key
        for mine, theirs, name, goal, stretch in (
            ("ours", "ir_measures", "ours / ir_measures, 5 measures", TARGET_VS_IR_MEASURES, STRETCH_VS_IR_MEASURES),
            ("ours", "trec_eval", "ours / trec_eval, 5 measures", TARGET_VS_TREC_EVAL, None),
            ("ours_default", "trec_eval_default", "ours / trec_eval, default measures", TARGET_VS_TREC_EVAL, None),
        ):
            spread = ratio(f"{k}:{mine}", f"{k}:{theirs}")
            missing = next((commands[f"{k}:{side}"].error for side in (mine, theirs) if commands[f"{k}:{side}"].error), None)
            targets.append({
                "target": name, "files": k, "value": missing or _ratio(spread),
                "goal": f"<= {goal:g}" + (f" (stretch <= {stretch:g})" if stretch else ""),
                "met": None if spread is None else spread.median <= goal,
                "stretch_met": None if (spread is None or stretch is None) else spread.median <= stretch,
                "ratio": None if spread is None else spread.to_dict(),
            })
    return {
        "commands": [{"key": c.key, "label": c.label, "files": c.files, "argv": c.argv, "error": c.error,
                      "seconds": spreads[c.key].to_dict() if c.key in spreads else None} for c in commands.values()],
        "targets": targets,
        "agreement": cli_agreement(commands, tools, sets),
        "runs": args.runs,
    }


def print_cli(section: dict[str, Any], sets: list[FileSet]) -> None:
    rows = [("command", "files", "median s", "min s", "max s")]
    for command in section["commands"]:
        seconds = command["seconds"]
        spread = None if seconds is None else Spread(tuple(seconds["values"]))
        cells = _seconds(spread) if command["error"] is None else (command["error"], "", "")
        rows.append((command["label"], command["files"], *cells))
    print_table(rows, title=f"1. CLI, warm caches: wall time of each subprocess, {section['runs']} runs each, interleaved")
    print("\nFiles: " + "; ".join(f"{s.key} = {s.description}" for s in sets))
    rows = [("target", "files", "measured: median (min-max)", "goal", "verdict")]
    for target in section["targets"]:
        state = verdict(target["met"])
        if target.get("stretch_met") is not None:
            state += ", stretch " + verdict(target["stretch_met"])
        rows.append((target["target"], target["files"], target["value"], target["goal"], state))
    print_table(rows, title="Targets (ratios taken round by round)")
    print("\nAgreement with trec_eval (values as printed):")
    for key, checks in section["agreement"].items():
        for name, outcome in checks.items():
            print(f"  {key}: {name}: {outcome}")


# ---------------------------------------------------------------------------------------------
# Section 2: in process, warm


def _nested(queries: Any, docs: Any, values: Any) -> dict[str, dict[str, Any]]:
    """{query: {doc: value}}, pytrec_eval's input."""
    nested: dict[str, dict[str, Any]] = {}
    for query, doc, value in zip(queries.tolist(), docs.tolist(), values.tolist()):
        nested.setdefault(query, {})[doc] = value
    return nested


def _per_call(call: Callable[[], Any], calls: int) -> Callable[[], float]:
    """A sample: ``calls`` calls in a row, seconds per call."""
    def sample() -> float:
        gc.collect()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        return (time.perf_counter() - start) / calls
    return sample


def _timed_once(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def _timed_build(build: Callable[[], Any]) -> tuple[float, Any]:
    """The second of two builds: the first may compile or load kernels for this size."""
    _timed_once(build)
    return _timed_once(build)


@dataclass
class Contender:
    """One in-process call, with how to read means and per-query values from what it returns."""

    label: str
    call: Callable[[], Any] | None  # None: not available, ``note`` says why
    means: Callable[[Any], dict[str, float]]
    per_query: Callable[[Any], dict[str, dict[str, float]]]
    build_s: float | None = None
    note: str | None = None


def _our_means(result: Any) -> dict[str, float]:
    return {metric: float(result.means[metric]) for metric in METRICS}


def _our_per_query(result: Any) -> dict[str, dict[str, float]]:
    table = result.per_query
    return {metric: dict(zip(table["query_id"].tolist(), table[metric].tolist())) for metric in METRICS}


def _pytrec_means(per_query: dict[str, dict[str, float]]) -> dict[str, float]:
    return {metric: float(np.mean([values[key] for values in per_query.values()])) for metric, key in METRICS.items()}


def _pytrec_per_query(per_query: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {metric: {query: values[key] for query, values in per_query.items()} for metric, key in METRICS.items()}


OURS_MAIN, OURS_FALLBACK = "evaluator", "evaluate_qrels"


def _one_thread(call: Callable[[], Any]) -> Callable[[], Any]:
    """``call`` with numba's parallel kernels on one thread: on a loaded machine a second thread
    may wait for a core, which at small sizes costs more than it saves."""
    import numba

    def single() -> Any:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return call()
        finally:
            numba.set_num_threads(threads)
    return single


def inprocess_contenders(workload: Workload) -> dict[str, Contender]:
    """Ours (three entry points) and pytrec_eval, each with its build done once, untimed."""
    import retrieval_eval as rx

    qrels_df, run_df, metrics = workload.qrels, workload.run, list(METRICS)
    contenders = {}
    if hasattr(rx, "Evaluator"):
        build_s, evaluator = _timed_build(lambda: rx.Evaluator(qrels_df, metrics))
        contenders[OURS_MAIN] = Contender("rx.Evaluator(qrels_df, metrics).evaluate(run_df)",
                                          lambda: evaluator.evaluate(run_df), _our_means, _our_per_query, build_s)
    else:
        contenders[OURS_MAIN] = Contender("rx.Evaluator(qrels_df, metrics).evaluate(run_df)", None, _our_means,
                                          _our_per_query, note="no rx.Evaluator in this version")
    build_s, qrels = _timed_build(lambda: rx.Qrels.read(qrels_df))
    contenders[OURS_FALLBACK] = Contender("rx.evaluate(Qrels, run_df, metrics)",
                                          lambda: rx.evaluate(qrels, run_df, metrics), _our_means, _our_per_query,
                                          build_s)
    main = contenders[OURS_MAIN if contenders[OURS_MAIN].call is not None else OURS_FALLBACK]
    contenders["one_thread"] = Contender("  the same, numba.set_num_threads(1) around it",
                                         _one_thread(main.call), _our_means, _our_per_query)
    contenders["evaluate_frames"] = Contender("rx.evaluate(qrels_df, run_df, metrics)",
                                              lambda: rx.evaluate(qrels_df, run_df, metrics), _our_means, _our_per_query)
    try:
        import pytrec_eval
    except ImportError:
        contenders["pytrec_eval"] = Contender("pytrec_eval RelevanceEvaluator.evaluate(run_dict)", None, _pytrec_means,
                                              _pytrec_per_query, note=NOT_INSTALLED)
        return contenders

    def build() -> tuple[Any, dict]:
        judged = _nested(qrels_df["query_id"], qrels_df["doc_id"], qrels_df["relevance"])
        return pytrec_eval.RelevanceEvaluator(judged, set(TREC_MEASURES)), _nested(run_df["query_id"], run_df["doc_id"],
                                                                                    run_df["score"])

    build_s, (relevance_evaluator, run_dict) = _timed_build(build)
    contenders["pytrec_eval"] = Contender("pytrec_eval RelevanceEvaluator.evaluate(run_dict)",
                                          lambda: relevance_evaluator.evaluate(run_dict), _pytrec_means,
                                          _pytrec_per_query, build_s)
    return contenders


def agreement(ours: Contender, ours_result: Any, reference: Contender, reference_result: Any) -> dict[str, float]:
    """Largest |mean difference| and largest |per-query difference| over the metrics, queries on one side only."""
    means, expected = ours.means(ours_result), reference.means(reference_result)
    mine, theirs = ours.per_query(ours_result), reference.per_query(reference_result)
    query_diff, missing = 0.0, 0
    for metric in METRICS:
        common = mine[metric].keys() & theirs[metric].keys()
        missing = max(missing, len(mine[metric]) + len(theirs[metric]) - 2 * len(common))
        query_diff = max([query_diff, *(abs(mine[metric][q] - theirs[metric][q]) for q in common)])
    return {"mean_diff": max(abs(means[m] - expected[m]) for m in METRICS), "max_query_diff": query_diff,
            "queries_on_one_side": missing}


#: Calls of each contender before it is timed, so that ours has left the python kernels behind.
STEADY_STATE_CALLS = 15


def inprocess_size(n_queries: int, args: argparse.Namespace) -> dict[str, Any]:
    workload = make_trec_dl_workload(n_queries, depth=INPROCESS_DEPTH, seed=args.seed)
    contenders = inprocess_contenders(workload)
    available = {key: c for key, c in contenders.items() if c.call is not None}
    first, results, samples = {}, {}, {}
    for key, contender in available.items():
        first[key], results[key] = _timed_once(contender.call)  # loads compiled code; not a measurement
        # A long-lived process's steady state: auto kernels run a process's first work as python and
        # switch to compiled once that work passes their threshold (at most ~12 calls at these sizes).
        for _ in range(STEADY_STATE_CALLS):
            contender.call()
        single, _ = _timed_once(contender.call)
        samples[key] = _per_call(contender.call, max(1, math.ceil(SAMPLE_S / max(single, 1e-6))))
    times = interleave(samples, args.rounds)
    checks = {}
    if "pytrec_eval" in results:
        for key in results.keys() - {"pytrec_eval"}:
            checks[key] = agreement(contenders[key], results[key], contenders["pytrec_eval"], results["pytrec_eval"])
    ours_key = OURS_MAIN if OURS_MAIN in times else OURS_FALLBACK
    versus = ratios(times[ours_key], times["pytrec_eval"]) if "pytrec_eval" in times else None
    one_thread = ratios(times["one_thread"], times["pytrec_eval"]) if "pytrec_eval" in times else None
    return {
        "queries": n_queries,
        "run_rows": len(workload.run),
        "qrels_rows": len(workload.qrels),
        "contenders": {key: {"label": c.label, "note": c.note, "build_s": c.build_s, "first_call_s": first.get(key),
                             "seconds": Spread(tuple(times[key])).to_dict() if key in times else None}
                       for key, c in contenders.items()},
        "agreement": checks,
        "ours": ours_key,
        "ratio": None if versus is None else versus.to_dict(),
        "ratio_one_thread": None if one_thread is None else one_thread.to_dict(),
        "met": None if versus is None else versus.median <= TARGET_VS_PYTREC,
        "agree": None if not checks else all(c["mean_diff"] <= MEANS_TOLERANCE for c in checks.values()),
    }


def inprocess_section(args: argparse.Namespace) -> dict[str, Any]:
    # Every path once on a tiny input first: imports, and whatever the first call of a process pays.
    for contender in inprocess_contenders(make_trec_dl_workload(5, depth=20, seed=args.seed)).values():
        if contender.call is not None:
            contender.call()
    found = []
    for n_queries in args.inprocess_queries:
        print(f"Section 2: {n_queries:,} queries x {INPROCESS_DEPTH} documents, {args.rounds} rounds ...", flush=True)
        found.append(inprocess_size(n_queries, args))
    return {"sizes": found, "rounds": args.rounds}


def print_inprocess(section: dict[str, Any]) -> None:
    rows = [("call", "queries", "median ms", "min ms", "max ms", "build ms (once)", "vs pytrec_eval: |mean diff| / "
             "max |per-query diff|")]
    for size in section["sizes"]:
        for key, c in size["contenders"].items():
            if c["seconds"] is None:
                rows.append((c["label"], f"{size['queries']:,}", c["note"], "", "", "", ""))
                continue
            seconds = c["seconds"]
            check = size["agreement"].get(key)
            rows.append((c["label"], f"{size['queries']:,}", f"{seconds['median'] * 1e3:.2f}",
                         f"{seconds['min'] * 1e3:.2f}", f"{seconds['max'] * 1e3:.2f}",
                         "-" if c["build_s"] is None else f"{c['build_s'] * 1e3:.1f}",
                         "-" if check is None else f"{check['mean_diff']:.1e} / {check['max_query_diff']:.1e}"))
    print_table(rows, title=f"2. In process, warm: seconds per call, {section['rounds']} samples each, interleaved "
                            f"(a sample repeats the call for about {SAMPLE_S * 1e3:.0f} ms)")
    rows = [("target", "queries", "measured: median (min-max)", "goal", "verdict", f"means agree to {MEANS_TOLERANCE:g}")]
    for size in section["sizes"]:
        ours = size["contenders"][size["ours"]]["label"]
        spread = None if size["ratio"] is None else Spread(tuple(size["ratio"]["values"]))
        agree = "n/a" if size["agree"] is None else ("yes" if size["agree"] else "NO")
        rows.append((f"{ours} / pytrec_eval", f"{size['queries']:,}",
                     NOT_INSTALLED if spread is None else _ratio(spread), f"<= {TARGET_VS_PYTREC:g}",
                     verdict(size["met"]), agree))
        if size["ratio_one_thread"] is not None:
            rows.append(("  the same on one numba thread / pytrec_eval", f"{size['queries']:,}",
                         _ratio(Spread(tuple(size["ratio_one_thread"]["values"]))), "-", "(for information)", ""))
    print_table(rows, title="Targets (ratios taken round by round)")


# ---------------------------------------------------------------------------------------------
# Section 3: first call after a fresh install


def cold_section(args: argparse.Namespace, tools: dict[str, str | None], sets: list[FileSet]) -> dict[str, Any]:
    ours = tools["retrieval-eval"]
    if ours is None:
        return {"note": f"retrieval-eval {NOT_INSTALLED}", "commands": [], "compile": None}
    commands = {"readme": ("retrieval-eval " + " ".join(README_COMMAND), [ours, *README_COMMAND])}
    trec_files = next((s for s in sets if s.key == "trec_eval_test"), sets[0])
    q, r = str(trec_files.qrels), str(trec_files.run)
    commands["trec5"] = (f"retrieval-eval evaluate -m (5 TREC measures), {trec_files.key}",
                         [ours, "evaluate", q, r, *MEASURE_OPTIONS])
    commands["trec_default"] = (f"retrieval-eval evaluate --trec (default measures), {trec_files.key}",
                                [ours, "evaluate", q, r, "--trec"])
    # A run as big as a real submission, which may take other (compiled) code paths than 3 queries.
    deepest = next((s for s in sets if s.key == f"dl{max(DL_DEPTHS)}"), None)
    if deepest is not None:
        commands["trec5_dl"] = (f"retrieval-eval evaluate -m (5 TREC measures), {deepest.key}",
                                [ours, "evaluate", str(deepest.qrels), str(deepest.run),
                                 *MEASURE_OPTIONS])
    has_compile = subprocess.run([ours, "compile", "--help"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0
    cold: dict[str, list[float]] = {key: [] for key in commands}
    second: dict[str, list[float]] = {key: [] for key in commands}
    errors: dict[str, str] = {}
    compile_s: list[float] = []
    after_compile: dict[str, list[float]] = {key: [] for key in commands}
    for repeat in range(args.cold_repeats):
        print(f"Section 3: fresh numba caches, repeat {repeat + 1}/{args.cold_repeats} ...", flush=True)
        for key, (_, argv) in commands.items():
            with tempfile.TemporaryDirectory(prefix="bench-latency-numba-") as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                seconds, error = wall_seconds(argv, env)
                if error:
                    errors[key] = error
                    continue
                cold[key].append(seconds)
                second[key].append(wall_seconds(argv, env)[0])
        if has_compile:
            with tempfile.TemporaryDirectory(prefix="bench-latency-numba-") as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                seconds, error = wall_seconds([ours, "compile"], env)
                if error:
                    errors["compile"] = error
                else:
                    compile_s.append(seconds)
                    for key, (_, argv) in commands.items():
                        after_compile[key].append(wall_seconds(argv, env)[0])
    rows = []
    for key, (label, argv) in commands.items():
        spread = Spread(tuple(cold[key])) if cold[key] else None
        rows.append({"key": key, "label": label, "argv": argv, "error": errors.get(key),
                     "cold": None if spread is None else spread.to_dict(),
                     "second": Spread(tuple(second[key])).to_dict() if second[key] else None,
                     "after_compile": Spread(tuple(after_compile[key])).to_dict() if after_compile[key] else None,
                     "met": None if spread is None else spread.median <= TARGET_COLD_S})
    compiled = None
    if has_compile:
        compiled = {"error": errors.get("compile"), "compile": Spread(tuple(compile_s)).to_dict() if compile_s else None}
    return {"commands": rows, "compile": compiled, "repeats": args.cold_repeats}


def print_cold(section: dict[str, Any]) -> None:
    if "note" in section:
        print(f"\n3. First call after a fresh install: {section['note']}")
        return

    def cells(figures: dict[str, Any] | None) -> tuple[str, str, str]:
        return _seconds(None if figures is None else Spread(tuple(figures["values"])))

    rows = [("command", "empty cache: median s", "min s", "max s", "second call s", "after compile s", "goal",
             "verdict")]
    for row in section["commands"]:
        if row["error"]:
            rows.append((row["label"], row["error"], "", "", "", "", "", ""))
            continue
        rows.append((row["label"], *cells(row["cold"]), cells(row["second"])[0], cells(row.get("after_compile"))[0],
                     f"<= {TARGET_COLD_S:g} s", verdict(row["met"])))
    compiled = section["compile"]
    if compiled is None:
        rows.append(("retrieval-eval compile", "no such command", "", "", "", "", "", ""))
    elif compiled["error"]:
        rows.append(("retrieval-eval compile", compiled["error"], "", "", "", "", "", ""))
    else:
        rows.append(("retrieval-eval compile (empty cache)", *cells(compiled["compile"]), "", "", "-", ""))
    print_table(rows, title=f"3. First call after a fresh install (NUMBA_CACHE_DIR a new empty directory), "
                            f"{section['repeats']} repeats; second call = the same command again, with that cache; after compile = "
                            f"the command in a new cache filled by retrieval-eval compile")


# ---------------------------------------------------------------------------------------------


SECTIONS = ("cli", "inprocess", "cold")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 3 CLI runs, 3 in-process rounds at 43 and 1,000 queries, 1 cold repeat "
                             "(unless given)")
    parser.add_argument("--runs", type=int, help="timed runs of each CLI command (default 15)")
    parser.add_argument("--rounds", type=int, help="timed samples of each in-process call (default 15)")
    parser.add_argument("--cold-repeats", type=int, help="fresh-cache runs of each command (default 3)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared",
                        help="the shared directory with peers/ (default: ../shared from the repository root)")
    parser.add_argument("--trec-eval", type=Path,
                        help="the trec_eval binary (default: what peers/build_trec_eval.sh of --shared prints)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    args.sections = [s for s in (part.strip() for part in args.sections.split(",")) if s]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s) {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    defaults = {"runs": 3, "rounds": 3, "cold_repeats": 1} if args.quick else {"runs": 15, "rounds": 15, "cold_repeats": 3}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.inprocess_queries = INPROCESS_QUERIES[:2] if args.quick else INPROCESS_QUERIES
    if min(args.runs, args.rounds, args.cold_repeats) < 1:
        parser.error("--runs, --rounds and --cold-repeats must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    trec_eval, found_by = find_trec_eval(args.trec_eval, args.shared)
    tools = {"retrieval-eval": find_tool("retrieval-eval"), "ir_measures": find_tool("ir_measures"),
             "trec_eval": trec_eval}
    host = machine("retrieval_eval", "ir-measures", "pytrec-eval-terrier")
    report: dict[str, Any] = {"machine": host, "tools": tools, "trec_eval_found_by": found_by, "sections": {},
                              "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])])}
    print(f"Machine: {describe_machine(host)}")
    for name, path in tools.items():
        print(f"  {name}: {path or NOT_INSTALLED}" + (f" ({found_by})" if name == "trec_eval" else ""))
    failed = False
    # pip compiles a package's modules at install; an editable checkout (or PYTHONDONTWRITEBYTECODE)
    # would otherwise recompile every module in every timed process, which ir_measures never pays.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "retrieval_eval")],
                   check=False, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        sets, notes = write_file_sets(args.shared, Path(tmp), args.seed)
        for note in notes:
            print(f"  note: {note}")
        runners: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
            "cli": (lambda: cli_section(args, tools, sets), lambda s: print_cli(s, sets)),
            "inprocess": (lambda: inprocess_section(args), print_inprocess),
            "cold": (lambda: cold_section(args, tools, sets), print_cold),
        }
        for name in args.sections:
            measure, _ = runners[name]
            try:
                report["sections"][name] = measure()
            except Exception:  # a broken section must not cost the others' figures
                failed = True
                report["sections"][name] = {"error": traceback.format_exc()}
                print(f"Section {name} FAILED:\n{traceback.format_exc()}", flush=True)
    report["load_average_after"] = load_average()
    print(f"\nFigures at commit {host['commit']}; load average {host['load_average']:.2f} before, "
          f"{report['load_average_after']:.2f} after")
    for name in args.sections:
        section = report["sections"][name]
        if "error" not in section:
            runners[name][1](section)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
