"""Fixed costs of the kernels: compile time per kernel, cached load time, and where python beats compiled.

Two measurements, each child a fresh interpreter:

1. **Compile table** (default). A child with an empty ``NUMBA_CACHE_DIR`` runs
   :func:`retrieval_eval.kernels.compile_all` and reports the seconds (wall clock, and CPU
   time of the process, which a busy machine disturbs less) of every compiled build (the
   kernels a build calls are compiled inside it, so their time is in their first caller's
   row); a second child on the same, now warm, cache does the same and reports load times.
   ``import numba`` is timed in each child before the kernels.
2. **Crossover** (``--crossover``). For TREC runs of 25 x 15 to 10,000 x 100
   rows (queries x documents, ``make_workload`` written with ``write_trec``) and two metric sets
   (trec_eval's official measures; the default document-retrieval metrics), times one
   ``retrieval_eval.evaluate(qrels_path, run_path, metrics)`` in a fresh process, after
   ``import retrieval_eval`` (not timed), with ``RETRIEVAL_EVAL_KERNELS=python``, with
   ``=compiled`` on a warm cache (so it includes ``import numba`` and loading the cached
   kernels), and with ``=auto`` (the default, which should be near the smaller of the two). Also
   reports the largest work of one kernel call in each evaluation (rows, or what the kernel's
   ``work`` says): the unit of ``PYTHON_UP_TO`` in ``retrieval_eval/kernels/_config.py``.
   Repeats alternate the modes; medians are printed.

With ``--save-estimates`` the compile table's CPU seconds are written to
``retrieval_eval/kernels/compile_estimates.py``, which the notice of a first compile quotes.

Usage (from the repository root)::

    python benchmarks/bench_compile.py [--json OUT] [--save-estimates]
    python benchmarks/bench_compile.py --crossover [--repeats 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Only the standard library at module level: this file is also the child, whose imports are timed.
ROOT = Path(__file__).resolve().parents[1]
SIZES = ((25, 15), (43, 100), (43, 1000), (1000, 100), (3000, 100), (10000, 100))
METRIC_SETS = ("trec", "default")


def _child_compile() -> None:
    start = time.perf_counter()
    import numba  # noqa: F401

    numba_seconds = time.perf_counter() - start
    from retrieval_eval.kernels import compile_all

    cpu: dict[str, float] = {}
    last = time.process_time()

    def progress(done: int, total: int, name: str) -> None:
        nonlocal last
        cpu[name], last = time.process_time() - last, time.process_time()

    builds = compile_all(progress)
    print(json.dumps({"import_numba": numba_seconds, "builds": builds, "cpu": cpu}))


def _child_evaluate(qrels: str, run: str, metric_set: str) -> None:
    import retrieval_eval
    from retrieval_eval.kernels import _config

    # trec_eval's default set, by its nickname; None is Azure's document-retrieval set.
    metrics = ["official"] if metric_set == "trec" else None
    largest = 0
    decide = _config._runs_python

    def recording(kernel: object, work: int) -> bool:
        nonlocal largest
        largest = max(largest, work)
        return decide(kernel, work)

    _config._runs_python = recording
    start = time.perf_counter()
    retrieval_eval.evaluate(qrels, run, metrics)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "work": largest, "numba": "numba" in sys.modules}))


def _run_child(args: list[str], env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _environment(cache: str, mode: str) -> dict[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "RETRIEVAL_EVAL_KERNELS": mode}
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def compile_table() -> dict:
    """Cold compile and warm load seconds per build, in two fresh processes sharing an empty cache."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = _environment(cache, "compiled")
        cold = _run_child(["--child-compile"], env)
        warm = _run_child(["--child-compile"], env)
    names = list(cold["builds"])
    width = max(map(len, names))
    print(f"{'build':<{width}}  {'compile s':>9}  {'CPU s':>6}  {'load s':>7}")
    for name in names:
        print(f"{name:<{width}}  {cold['builds'][name]:9.2f}  {cold['cpu'][name]:6.2f}  {warm['builds'][name]:7.3f}")
    totals = {
        "compile": sum(cold["builds"].values()), "cpu": sum(cold["cpu"].values()), "load": sum(warm["builds"].values())
    }
    print(f"{'total':<{width}}  {totals['compile']:9.2f}  {totals['cpu']:6.2f}  {totals['load']:7.3f}")
    print(f"import numba: {cold['import_numba']:.3f} s (cold child), {warm['import_numba']:.3f} s (warm child)")
    return {"cold": cold, "warm": warm, "totals": totals}


def save_estimates(cpu: dict[str, float]) -> None:
    """Write the CPU seconds of each build's compile where the compile notice reads them."""
    import platform

    import numba

    entries = "".join(f'    "{name}": {seconds:.2f},\n' for name, seconds in cpu.items())
    text = (
        '"""CPU seconds of each compiled build\'s first compile (the kernels it calls included), for the compile notice.\n\n'
        "Written by ``python benchmarks/bench_compile.py --save-estimates``: a cold numba cache, "
        f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}),\nnumba {numba.__version__}. "
        "``retrieval-eval compile`` builds them all.\n\"\"\"\n\n"
        f"CPU_SECONDS = {{\n{entries}}}\n"
    )
    (ROOT / "retrieval_eval" / "kernels" / "compile_estimates.py").write_text(text)


def crossover(repeats: int) -> list[dict]:
    """Median seconds of one evaluate() per size and metric set, python builds against compiled ones."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.workload import make_workload, write_trec

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as directory:
        cache = str(Path(directory) / "numba-cache")
        _run_child(["--child-compile"], _environment(cache, "compiled"))  # a warm cache for the compiled runs
        print(f"{'queries x docs':>15}  {'metrics':>8}  {'python s':>8}  {'compiled s':>10}  {'auto s':>6}  {'python work':>11}")
        for n_queries, depth in SIZES:
            qrels, run = Path(directory) / "qrels.trec", Path(directory) / "run.trec"
            write_trec(make_workload(n_queries, seed=0, retrieved=(depth, depth)), qrels, run)
            for metric_set in METRIC_SETS:
                times: dict[str, list[float]] = {"python": [], "compiled": [], "auto": []}
                work = 0
                for _ in range(repeats):
                    for mode in times:
                        child = ["--child-evaluate", str(qrels), str(run), metric_set]
                        result = _run_child(child, _environment(cache, mode))
                        times[mode].append(result["seconds"])
                        work = result["work"] if mode == "python" else work
                row = {"queries": n_queries, "docs": depth, "metrics": metric_set, "work": work,
                       **{mode: statistics.median(values) for mode, values in times.items()}}
                rows.append(row)
                size = f"{n_queries} x {depth}"
                print(f"{size:>15}  {metric_set:>8}  {row['python']:8.3f}  {row['compiled']:10.3f}  {row['auto']:6.3f}  {work:11,}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crossover", action="store_true", help="time python against compiled builds through evaluate()")
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per mode and size (crossover)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--save-estimates", action="store_true", help="write the CPU seconds of the compile table "
                        "to retrieval_eval/kernels/compile_estimates.py")
    parser.add_argument("--child-compile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-evaluate", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_compile:
        return _child_compile()
    if args.child_evaluate:
        return _child_evaluate(*args.child_evaluate)
    figures = crossover(args.repeats) if args.crossover else compile_table()
    if args.save_estimates and not args.crossover:
        save_estimates(figures["cold"]["cpu"])
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
