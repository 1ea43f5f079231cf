"""Randomised Tukey HSD benchmark: ``sweep.tukey.randomised_tukey_hsd`` against the same test written in plain numpy.

Workload (fixed seed): ``--configs`` configurations x ``--queries`` queries of per-query scores
in [0, 1] (a query difficulty shared by every configuration, a small effect per configuration,
noise), and ``--permutations`` permutations. Each contender runs in its own fresh process, so
that its peak memory (``ru_maxrss``, Linux) is its own:

- retrieval_eval: ``randomised_tukey_hsd`` (its kernel compiled, on numba's threads, and again
  with ``NUMBA_NUM_THREADS=1``); a first call of 100 permutations (importing numba, loading the
  cached kernel or compiling it) is made first and reported apart;
- numpy: the textbook vectorization, per batch of permutations (the same 4M cells a batch):
  ``argsort`` of uniform random keys for every (permutation, query), the scores gathered in that
  order, summed over the queries, max - min.

The two draw different permutations, so their p-values agree only within Monte Carlo error
(the largest difference is printed). Then the kernel's cold compile (an empty
``NUMBA_CACHE_DIR``), serial and parallel builds.

Usage: ``python benchmarks/bench_tukey.py [--configs 100 --queries 1000 --permutations 10000 --json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.harness import describe_machine, machine, print_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BATCH_CELLS = 4_000_000  # permutations x queries x configurations a batch, as retrieval_eval's batches


def workload(configs: int, queries: int, seed: int) -> np.ndarray:
    """Per-query scores, configurations x queries, in [0, 1]."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(queries)
    effect = np.linspace(0.0, 0.05, configs)
    return np.clip(difficulty + effect[:, None] + rng.normal(0, 0.1, size=(configs, queries)), 0.0, 1.0)


def numpy_tukey(matrix: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """The randomised Tukey HSD p-values of every pair, in plain numpy (argsort of random keys)."""
    rng = np.random.default_rng(seed)
    m, n = matrix.shape
    by_query = matrix.T
    sums = matrix.sum(axis=1)
    first, second = np.triu_indices(m, 1)
    observed = np.abs(sums[first] - sums[second])
    threshold = observed - 1e-12 * np.maximum(observed, 1.0)
    size = max(1, BATCH_CELLS // matrix.size)
    ranges = np.empty(permutations)
    for start in range(0, permutations, size):
        count = min(size, permutations - start)
        order = rng.random((count, n, m)).argsort(axis=2)
        permuted = np.take_along_axis(np.broadcast_to(by_query, (count, n, m)), order, axis=2).sum(axis=1)
        ranges[start : start + count] = permuted.max(axis=1) - permuted.min(axis=1)
    ranges.sort()
    return (1 + permutations - np.searchsorted(ranges, threshold, side="left")) / (1 + permutations)


def _child(kind: str, configs: int, queries: int, permutations: int, seed: int, out: str) -> None:
    import resource

    matrix = workload(configs, queries, seed)
    first_call = None
    if kind == "numpy":
        run = numpy_tukey
    else:
        from retrieval_eval.sweep.tukey import randomised_tukey_hsd

        def run(matrix: np.ndarray, permutations: int, seed: int) -> np.ndarray:
            return randomised_tukey_hsd(matrix, permutations=permutations, seed=seed)

        # The first call loads the builds the timed one runs (numba, the cached machine code): 100
        # permutations of the same matrix, so that the batches are as large (as parallel) as then.
        start = time.perf_counter()
        run(matrix, min(permutations, 100), seed)
        first_call = time.perf_counter() - start
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    pvalues = run(matrix, permutations, seed)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    np.save(out, pvalues)
    print(json.dumps({"seconds": seconds, "first_call": first_call, "before_kib": before, "peak_kib": peak}))


def _child_compile() -> None:
    from retrieval_eval.kernels.core.permutation import _example, permuted_ranges

    seconds = {}
    for name in ("serial", "parallel"):
        build = getattr(permuted_ranges, name)
        start = time.perf_counter()
        build(*_example())
        seconds[name] = time.perf_counter() - start
    print(json.dumps(seconds))


def _run_child(args: list[str], **env: str) -> dict:
    environment = {**os.environ, **env}
    environment.pop("NUMBA_DISABLE_JIT", None)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environment.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, __file__, *args], env=environment, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=100)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--child", choices=["ours", "numpy"], help=argparse.SUPPRESS)
    parser.add_argument("--child-compile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_compile:
        return _child_compile()
    if args.child:
        return _child(args.child, args.configs, args.queries, args.permutations, args.seed, args.out)

    host = machine()
    print(describe_machine(host))
    print(f"{args.configs} configurations x {args.queries} queries, {args.permutations} permutations, "
          f"{args.configs * (args.configs - 1) // 2} pairs")  # fmt: skip
    shape = ["--configs", str(args.configs), "--queries", str(args.queries), "--permutations", str(args.permutations),
             "--seed", str(args.seed)]  # fmt: skip
    contenders = {"retrieval_eval": ("ours", {}), "retrieval_eval, 1 thread": ("ours", {"NUMBA_NUM_THREADS": "1"}),
                  "plain numpy (argsort)": ("numpy", {})}  # fmt: skip
    results, pvalues = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-tukey-") as scratch:
        for label, (kind, env) in contenders.items():
            out = str(Path(scratch) / f"{len(results)}.npy")
            results[label] = _run_child(["--child", kind, *shape, "--out", out], RETRIEVAL_EVAL_KERNELS="auto", **env)
            pvalues[label] = out
        ours, numpy_p = np.load(pvalues["retrieval_eval"]), np.load(pvalues["plain numpy (argsort)"])
        same_threads = bool(np.array_equal(ours, np.load(pvalues["retrieval_eval, 1 thread"])))
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            cold = _run_child(["--child-compile"], NUMBA_CACHE_DIR=cache, RETRIEVAL_EVAL_KERNELS="compiled")
    numpy_seconds = results["plain numpy (argsort)"]["seconds"]
    rows = [["contender", "seconds", "numpy / this", "peak RSS MiB", "added MiB", "first call s"]]
    for label, result in results.items():
        first = "" if result["first_call"] is None else f"{result['first_call']:.2f}"
        rows.append([label, f"{result['seconds']:.2f}", f"{numpy_seconds / result['seconds']:.1f}x",
                     f"{result['peak_kib'] / 1024:.0f}", f"{(result['peak_kib'] - result['before_kib']) / 1024:.0f}", first])  # fmt: skip
    print_table(rows)
    print(f"p-values: same bits on 1 thread and on numba's threads: {same_threads}; "
          f"largest difference from plain numpy's (other draws): {float(np.abs(ours - numpy_p).max()):.4f}")  # fmt: skip
    print(f"cold compile (empty NUMBA_CACHE_DIR): serial {cold['serial']:.2f} s, parallel {cold['parallel']:.2f} s")
    if args.json:
        report = {"machine": host, "args": vars(args), "results": results, "same_bits_across_threads": same_threads,
                  "largest_pvalue_difference": float(np.abs(ours - numpy_p).max()), "cold_compile": cold}  # fmt: skip
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
