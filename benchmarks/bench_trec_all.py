"""trec_eval's ``-m all_trec``: retrieval_eval's Python API and ``evaluate --trec`` CLI against pytrec_eval
and the trec_eval binary, side by side.

Per size (by default 1,000 and 100,000 queries x 100 retrieved documents, the workload of
bench_trec.py, written once as parquet and as TREC text files), each round runs every contender
once, in a rotating order, each in a fresh process:

- ``api``: retrieval_eval in process: ``Qrels.read`` + ``Run.read`` of the DataFrames and
  ``evaluate(qrels, run, ALL_TREC)``; the first call (import, numba cache load, build, compute)
  and a second, warm call, both timed;
- ``api_pytrec_set``: the same on exactly pytrec_eval's measures (the like-for-like ratio);
- ``pytrec_eval``: ``RelevanceEvaluator(qrels, supported measures).evaluate(run)`` and the means,
  one call (it has no first-call cost), its dicts built from the same DataFrames (timed as build);
- ``cli``: the whole process ``retrieval-eval evaluate QRELS RUN --trec -m all_trec``;
- ``trec_eval``: the whole process ``trec_eval -m all_trec QRELS RUN``.

The DataFrames are read in each child before the clock starts. Ratios are taken within a round
(so that a burst of load on the shared machine hits both sides) and their median is reported.
Agreement, after the timings: our CLI's stdout against trec_eval's (byte for byte, else the lines
that differ) and our per-query values against pytrec_eval's.

Until ``all_trec`` is a name our API and CLI take, both run the part of it they accept today (the
report says which measures were left out); ALL_TREC is the one list to change.

Usage (from the repository root)::

    python benchmarks/bench_trec_all.py [--queries 1000,100000] [--rounds 3] [--trec-eval PATH] [--json OUT]

Linux only (``/proc``, ``wait4``). See benchmarks/README.md.
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Only the standard library at module level: this file is also the child process.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.harness import describe_machine, interleave, machine, print_table, ratios  # noqa: E402

#: What ``trec_eval -m all_trec`` prints, in its order (trec_eval 10, measures.c: the ``all_trec``
#: nickname with every measure's default parameters). ``runid``, ``num_q`` and ``relstring`` are
#: not per-query numbers and are left out of the API's list; the CLI and trec_eval get the nickname.
ALL_TREC_NICKNAME = "all_trec"
ALL_TREC = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{level / 10:.2f}" for level in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    *(f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "infAP", "gm_bpref", *(f"Rprec_mult_{m / 10:.2f}" for m in range(2, 21, 2)), "utility", "11pt_avg", "binG", "G",
    "ndcg", "ndcg_rel", "Rndcg",
    *(f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    *(f"map_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    *(f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "success_1", "success_5", "success_10", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20",
)
#: The ``-m`` arguments that make up ``all_trec`` (measures.c's ``trec_names``), for a CLI that
#: does not take the nickname yet: the part it takes is given to both CLIs.
ALL_TREC_GROUPS = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
    "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
    "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
)
#: pytrec_eval's supported measures that are not per-query numbers.
PYTREC_LEFT_OUT = ("runid", "num_q", "relstring")
#: Where pytrec_eval (built on trec_eval 9) and trec_eval 10 differ by definition: 9 turns a recall
#: level x into a rank as (long)(x R + 0.9), 10 as lround(x R) (m_iprec_at_recall.c, m_11pt_avg.c).
TREC_EVAL_9_DIFFERS = ("iprec_at_recall_", "11pt_avg")
DEFAULT_SIZES = (1_000, 100_000)
TAG = "bench"
TOLERANCE = 1e-9
MIN_GEO_MEAN = 1e-5  # trec_eval's floor of a value in a geometric mean (trec_eval.h)


# ---------------------------------------------------------------------------------------------
# Workload: bench_trec.py's, plus the same rows as TREC text files for the two CLIs.


def write_text_files(directory: Path) -> dict[str, Any]:
    """qrels.txt and run.txt (``qid 0 doc label`` / ``qid Q0 doc rank score tag``) from the parquet files."""
    import pandas as pd

    start = time.perf_counter()
    qrels = pd.read_parquet(directory / "qrels.parquet")
    run = pd.read_parquet(directory / "run.parquet")
    qrels.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        directory / "qrels.txt", sep=" ", header=False, index=False)
    rank = run.groupby("query_id", sort=False).cumcount() + 1
    run.assign(q0="Q0", rank=rank, tag=TAG)[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
        directory / "run.txt", sep=" ", header=False, index=False)
    return {"text_s": time.perf_counter() - start,
            "text_mb": {name: (directory / name).stat().st_size / 1e6 for name in ("qrels.txt", "run.txt")}}


def generate(n_queries: int, seed: int, directory: Path) -> dict[str, Any]:
    """The workload, generated and written in a subprocess, so that this process stays small."""
    code = ("import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "from benchmarks.bench_trec import write_workload; from benchmarks.bench_trec_all import write_text_files; "
            "d = Path(sys.argv[4]); stats = write_workload(int(sys.argv[2]), int(sys.argv[3]), d); "
            "stats.update(write_text_files(d)); print(json.dumps(stats))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(n_queries), str(seed), str(directory)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Children (in-process contenders)


def _vm_hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise KeyError("VmHWM")


def our_metrics(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """(names our API takes, names it refuses): the nickname if it takes it, else each name tried.

    Names are only parsed (as ``evaluate`` parses them), nothing is computed: the first timed call
    is the process's first evaluation.
    """
    from retrieval_eval.errors import ConfigError
    from retrieval_eval.metrics.selection import resolve_metrics

    def takes(metrics: list[str]) -> bool:
        try:
            resolve_metrics(metrics, k=10)  # k: for a name without a cutoff; trec_eval's names imply theirs
        except ConfigError:  # an unknown name, or one that needs what the benchmark does not give
            return False
        return True

    if list(names) == list(ALL_TREC) and takes([ALL_TREC_NICKNAME]):
        return [ALL_TREC_NICKNAME], []
    accepted = [name for name in names if takes([name])]
    return accepted, [name for name in names if name not in accepted]


def child(kind: str, directory: Path, round_index: int) -> None:
    """Time one contender in this fresh process; write its timings (and, in round 0, its per-query values)."""
    import pandas as pd

    qrels_df, run_df = pd.read_parquet(directory / "qrels.parquet"), pd.read_parquet(directory / "run.parquet")
    out: dict[str, Any] = {"kind": kind}
    if kind == "pytrec_eval":
        t0 = time.perf_counter()
        import pytrec_eval

        from benchmarks.bench_trec import nested

        measures = sorted(set(pytrec_eval.supported_measures) - set(PYTREC_LEFT_OUT))
        t1 = time.perf_counter()
        qrels = nested(qrels_df["query_id"], qrels_df["doc_id"], qrels_df["relevance"])
        run = nested(run_df["query_id"], run_df["doc_id"], run_df["score"])
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures))
        t2 = time.perf_counter()
        per_query = evaluator.evaluate(run)
        keys = sorted(next(iter(per_query.values())))
        means = {key: pytrec_eval.compute_aggregated_measure(key, [v[key] for v in per_query.values()]) for key in keys}
        t3 = time.perf_counter()
        out.update(measures=measures, keys=len(keys), first={"import": t1 - t0, "build": t2 - t1, "compute": t3 - t2},
                   warm={"build": t2 - t1, "compute": t3 - t2})
        if round_index == 0:
            rows = [(query, key, value) for query, values in per_query.items() for key, value in values.items()]
            pd.DataFrame(rows, columns=["query_id", "measure", "value"]).to_parquet(directory / "pytrec_eval.values.parquet")
            out["means"] = means
    else:
        t0 = time.perf_counter()
        import retrieval_eval as lib

        t1 = time.perf_counter()
        if kind == "api":
            names = list(ALL_TREC)
        else:
            import pytrec_eval

            names = _pytrec_printed_names(pytrec_eval, qrels_df, run_df)
        metrics, refused = our_metrics(names)
        t2 = time.perf_counter()
        timings = []
        for _ in range(2):  # the first call, then a warm one
            start = time.perf_counter()
            built = lib.Qrels.read(qrels_df), lib.Run.read(run_df)
            middle = time.perf_counter()
            result = lib.evaluate(*built, metrics)
            timings.append({"build": middle - start, "compute": time.perf_counter() - middle})
            if len(timings) == 1:
                del result, built
        out.update(metrics=metrics, refused=refused, columns=len(result.per_query.columns) - 1,
                   first={"import": t1 - t0, "parse": t2 - t1, **timings[0]}, warm=timings[1])
        if round_index == 0 and kind == "api":
            result.per_query.to_parquet(directory / "api.values.parquet")
    out["vm_hwm_kib"] = _vm_hwm_kib()
    (directory / f"{kind}.{round_index}.json").write_text(json.dumps(out), encoding="utf-8")


def _pytrec_printed_names(pytrec_eval: Any, qrels_df: Any, run_df: Any) -> list[str]:
    """The names pytrec_eval prints for its supported measures (P -> P_5 ... P_1000), from a one-query run."""
    from benchmarks.bench_trec import nested

    head = qrels_df[qrels_df["query_id"] == qrels_df["query_id"].iloc[0]]
    query_run = run_df[run_df["query_id"] == head["query_id"].iloc[0]]
    evaluator = pytrec_eval.RelevanceEvaluator(nested(head["query_id"], head["doc_id"], head["relevance"]),
                                               set(pytrec_eval.supported_measures) - set(PYTREC_LEFT_OUT))
    values = evaluator.evaluate(nested(query_run["query_id"], query_run["doc_id"], query_run["score"]))
    return [name for name in ALL_TREC if name in next(iter(values.values()))]


# ---------------------------------------------------------------------------------------------
# Parent


def run_process(argv: Sequence[str], stdout: Path | None = None) -> tuple[float, int, int]:
    """(wall seconds, exit status, peak RSS KiB) of one process.

    The peak is that child's own ``ru_maxrss`` (``wait4``); Linux starts it at the RSS of this small
    parent (standard library only), which is the floor of every figure.
    """
    with open(stdout or os.devnull, "wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(list(argv), stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        error = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
        process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} ... exited {process.returncode}: {error.strip()[-500:]}")
    return wall, process.returncode, usage.ru_maxrss


def find_trec_eval(explicit: Path | None, shared: Path) -> str | None:
    """``--trec-eval``, else the binary the shared build script builds (once) and prints; None without one."""
    if explicit is not None:
        return str(explicit)
    script = shared / "peers" / "build_trec_eval.sh"
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True) if script.is_file() else None
    if done is None or done.returncode != 0 or not done.stdout.strip():
        print(f"trec_eval not available ({script}): its row is skipped", file=sys.stderr)
        return None
    return done.stdout.strip().splitlines()[-1]


def console_script(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else name


def cli_measures(cli: str, directory: Path) -> tuple[list[str], list[str]]:
    """The ``-m`` arguments both CLIs get: ``all_trec``, or the groups of it that our CLI takes today."""
    probe = directory / "probe"
    probe.mkdir(exist_ok=True)
    (probe / "qrels").write_text("q 0 d 1\nq 0 e 0\n", encoding="utf-8")
    (probe / "run").write_text("q Q0 d 1 2 t\nq Q0 f 2 1 t\n", encoding="utf-8")

    def takes(measure: str) -> bool:
        argv = [cli, "evaluate", str(probe / "qrels"), str(probe / "run"), "--trec", "-m", measure]
        return subprocess.run(argv, capture_output=True, check=False).returncode == 0

    if takes(ALL_TREC_NICKNAME):
        return ["-m", ALL_TREC_NICKNAME], []
    accepted = [group for group in ALL_TREC_GROUPS if takes(group)]
    return [arg for group in accepted for arg in ("-m", group)], [g for g in ALL_TREC_GROUPS if g not in accepted]


def measure_size(n_queries: int, args: argparse.Namespace, trec_eval: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-trec-all-") as tmp:
        directory = Path(tmp)
        print(f"\n== {n_queries:,} queries: writing the workload ...", flush=True)
        workload = generate(n_queries, args.seed, directory)
        cli = console_script("retrieval-eval")
        measures, cli_refused = cli_measures(cli, directory)
        qrels_txt, run_txt = str(directory / "qrels.txt"), str(directory / "run.txt")
        peaks: dict[str, list[int]] = {}
        rounds_done = {"n": 0}

        def in_process(kind: str):
            def call() -> float:
                _, _, peak = run_process([sys.executable, str(Path(__file__).resolve()), "--child", kind,
                                          "--dir", str(directory), "--round", str(rounds_done["n"])])
                peaks.setdefault(kind, []).append(peak)
                data = json.loads((directory / f"{kind}.{rounds_done['n']}.json").read_text())
                return data["warm"]["build"] + data["warm"]["compute"]
            return call

        def whole(kind: str, argv: list[str]):
            def call() -> float:
                wall, _, peak = run_process(argv, directory / f"{kind}.{rounds_done['n']}.out")
                peaks.setdefault(kind, []).append(peak)
                return wall
            return call

        contenders = {"api": in_process("api"), "api_pytrec_set": in_process("api_pytrec_set"),
                      "pytrec_eval": in_process("pytrec_eval"),
                      "cli": whole("cli", [cli, "evaluate", qrels_txt, run_txt, "--trec", *measures])}
        if trec_eval:
            contenders["trec_eval"] = whole("trec_eval", [trec_eval, *measures, qrels_txt, run_txt])

        # Our first runs at a size fill the numba cache (small inputs run as Python, large ones compile
        # their parallel builds): one untimed run of each before the rounds.
        warm_up = {}
        for kind in ("api", "cli"):
            start = time.perf_counter()
            contenders[kind]()
            warm_up[kind] = time.perf_counter() - start
        peaks.clear()

        def progress(index: int) -> None:
            rounds_done["n"] = index + 1
            print(f"   round {index + 1}/{args.rounds} done (load average {os.getloadavg()[0]:.2f})", flush=True)

        times = interleave(contenders, args.rounds, on_round=progress)
        children = {kind: [json.loads((directory / f"{kind}.{r}.json").read_text()) for r in range(args.rounds)]
                    for kind in ("api", "api_pytrec_set", "pytrec_eval")}
        agreement = agree(directory, bool(trec_eval))
    return {"queries": n_queries, "workload": workload, "cli_measures": measures, "cli_refused": cli_refused,
            "warm_up_s": warm_up, "times": times, "children": children, "peak_rss_kib": peaks, "agreement": agreement}


def agree(directory: Path, with_trec_eval: bool) -> dict[str, Any]:
    """Our CLI's stdout against trec_eval's (round 0), and our per-query values against pytrec_eval's."""
    found: dict[str, Any] = {}
    if with_trec_eval:
        ours = (directory / "cli.0.out").read_bytes()
        theirs = (directory / "trec_eval.0.out").read_bytes()
        ours_lines, theirs_lines = set(ours.splitlines()), set(theirs.splitlines())
        found["cli_vs_trec_eval"] = {"identical": ours == theirs, "lines_ours": len(ours.splitlines()),
                                     "lines_trec_eval": len(theirs.splitlines()),
                                     "only_ours": sorted(line.decode() for line in ours_lines - theirs_lines)[:20],
                                     "only_trec_eval": sorted(line.decode() for line in theirs_lines - ours_lines)[:20]}
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from benchmarks.bench_trec_all import compare_values; print(json.dumps(compare_values(Path(sys.argv[2]))))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(directory)], capture_output=True, text=True,
                          check=True)
    found["api_vs_pytrec_eval"] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def compare_values(directory: Path) -> dict[str, Any]:
    """Per trec_eval name both compute: max |per-query difference| and queries differing by more than TOLERANCE."""
    import numpy as np
    import pandas as pd

    from retrieval_eval.metrics.spellings.trec_eval import select

    ours = pd.read_parquet(directory / "api.values.parquet").set_index("query_id")
    theirs = pd.read_parquet(directory / "pytrec_eval.values.parquet")
    theirs = theirs.pivot(index="query_id", columns="measure", values="value")
    # trec_eval's printed name of each per-query column (the column is the registry metric's name).
    printed = {str(value.metric): value.name for value in select([ALL_TREC_NICKNAME]).values if value.metric is not None}
    names = {printed[column]: column for column in ours.columns if column in printed}
    common = sorted(set(names) & set(theirs.columns))
    per_measure = {}
    for name in common:
        mine, reference = ours[names[name]].astype(float), theirs.loc[ours.index, name].astype(float)
        if name.startswith("gm_"):  # pytrec_eval gives each query's log(max(value, 1e-5)), the term of the mean
            mine = np.log(np.maximum(mine, MIN_GEO_MEAN))
        diff = (mine - reference).abs()
        per_measure[name] = {"max_diff": float(diff.max()), "differing": int((diff > TOLERANCE).sum())}
    return {"measures_compared": len(common), "max_diff": max((v["max_diff"] for v in per_measure.values()), default=None),
            "differing": {k: v for k, v in per_measure.items() if v["differing"]},
            "only_pytrec_eval": sorted(set(theirs.columns) - set(names))}


# ---------------------------------------------------------------------------------------------
# Report


def report(sizes: list[dict[str, Any]], host: dict[str, Any]) -> None:
    print(f"\nMachine: {describe_machine(host)}")
    for size in sizes:
        n, times, children = size["queries"], size["times"], size["children"]
        api, api_set, pytrec = children["api"][0], children["api_pytrec_set"][0], children["pytrec_eval"][0]
        work = size["workload"]
        print(f"\n{n:,} queries x 100: {work['run_rows']:,} run rows, {work['qrels_rows']:,} qrels rows; "
              f"text files {work['text_mb']['run.txt']:.0f} + {work['text_mb']['qrels.txt']:.0f} MB")
        print(f"  our API metrics: {'all_trec' if api['metrics'] == ['all_trec'] else len(api['metrics'])} "
              f"({api['columns']} per-query columns); refused today: {', '.join(api['refused']) or 'none'}")
        print(f"  pytrec_eval measures: {len(pytrec['measures'])} ({pytrec['keys']} values per query); "
              f"our API on the same: {len(api_set['metrics'])} names")
        print(f"  CLI measures (both CLIs): {' '.join(size['cli_measures'])}; "
              f"refused by ours today: {', '.join(size['cli_refused']) or 'none'}")
        rows = [("contender", "median s", "min s", "max s", "first call s", "peak RSS MB")]
        for kind, values in times.items():
            first = "-"
            if kind in children:
                firsts = [sum(c["first"].values()) for c in children[kind]]
                first = f"{statistics.median(firsts):.2f}"
            rows.append((kind, f"{statistics.median(values):.3f}", f"{min(values):.3f}", f"{max(values):.3f}", first,
                         f"{max(size['peak_rss_kib'][kind]) / 1024:,.0f}"))
        print_table(rows, title="  warm seconds (in process: build + compute of the second call; CLIs: whole process)")
        pairs = [("pytrec_eval", "api", "pytrec_eval / ours API (all_trec vs its measures)"),
                 ("pytrec_eval", "api_pytrec_set", "pytrec_eval / ours API, the same measures"),
                 ("trec_eval", "cli", "trec_eval / ours CLI, whole process")]
        ratio_rows = [("ratio (above 1: ours faster)", "median", "min", "max")]
        for numerator, denominator, label in pairs:
            if numerator in times and denominator in times:
                spread = ratios(times[numerator], times[denominator])
                ratio_rows.append((label, f"{spread.median:.2f}", f"{spread.min:.2f}", f"{spread.max:.2f}"))
        print_table(ratio_rows)
        agreement = size["agreement"]
        cli = agreement.get("cli_vs_trec_eval")
        if cli:
            print(f"  CLI vs trec_eval stdout: {'identical' if cli['identical'] else 'DIFFERENT'} "
                  f"({cli['lines_ours']} vs {cli['lines_trec_eval']} lines)")
            for line in cli["only_trec_eval"][:8]:
                print(f"    trec_eval only: {line}")
            for line in cli["only_ours"][:8]:
                print(f"    ours only:      {line}")
        values = agreement["api_vs_pytrec_eval"]
        print(f"  API vs pytrec_eval per query: {values['measures_compared']} measures compared, max |diff| "
              f"{values['max_diff']}, measures with queries differing by > {TOLERANCE:g}: {values['differing'] or 'none'}; "
              f"pytrec_eval only: {', '.join(values['only_pytrec_eval']) or 'none'}")
        if any(name.startswith(TREC_EVAL_9_DIFFERS) for name in values["differing"]):
            print("  (iprec_at_recall and 11pt_avg: pytrec_eval is trec_eval 9, whose recall levels become ranks as "
                  "(long)(x R + 0.9); trec_eval 10's are lround(x R))")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default=",".join(str(n) for n in DEFAULT_SIZES),
                        help="comma-separated sizes in queries (default 1000,100000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per size (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--trec-eval", type=Path, help="the trec_eval binary (default: what the shared build script prints)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared directory with peers/")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    parser.add_argument("--child", choices=("api", "api_pytrec_set", "pytrec_eval"), help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.sizes = [int(n) for n in args.queries.split(",") if n.strip()]
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        child(args.child, args.dir, args.round)
        return
    trec_eval = find_trec_eval(args.trec_eval, args.shared)
    host = machine("retrieval_eval", "pytrec-eval-terrier")
    sizes = [measure_size(n, args, trec_eval) for n in args.sizes]
    report(sizes, host)
    if args.json:
        args.json.write_text(json.dumps({"machine": host, "trec_eval": trec_eval, "sizes": sizes}, indent=2) + "\n",
                             encoding="utf-8")


if __name__ == "__main__":
    main()
