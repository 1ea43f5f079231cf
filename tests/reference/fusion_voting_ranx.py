"""ranx 0.3.21 itself, run in a child process without numba's JIT, for the voting and trained fusion tests.

ranx's fusion functions are numba functions that compile on their first call: the voting and
trained methods and their training took 28.6 s to compile on a cold cache (2 busy cores), over
the CI budget of these tests. Run by the interpreter (``NUMBA_DISABLE_JIT=1``) the same code
starts in 2 s and fuses small runs in milliseconds. The interpreted ranx sorts a Run (and a fused
run) with numpy's argsort where the compiled one runs numba's quicksort, and the two order ties
differently (numpy's, vectorized, even in a handful of documents): the child sorts with
``sort="numba"``, numba's quicksort run as Python (numba.misc.quicksort, what ranx compiles),
when the library's kernels are compiled, and with numpy's under ``NUMBA_DISABLE_JIT``, as both
ranx and the library then do (:data:`SORT`). What else differs from the compiled ranx is in the
last bits: its ``np.sum`` adds pairwise (a MAP), numpy's ``log`` is not glibc's, ``phi ** i`` is
C's ``pow`` and not numba's squaring (RBC). The tests compare scores to 1e-12 relative.

The child reads one JSON request per line and answers one JSON line (floats round-trip exactly):

- ``{"op": "fuse", "runs": [...], "method": ..., "params": {...}, "norm": ..., "candidates": ...}``
  gives ``{query: [[doc, score], ...]}`` in the fused run's order. ``candidates="first"`` makes
  ranx list each query's candidates (BordaFuse, Condorcet, the borda normalization) in order of
  first appearance across the runs in their ranked order, the order the library chooses, instead
  of iterating a Python set (``"set"``: ranx as it is);
- ``{"op": "train", "method": ..., "qrels": {...}, "runs": [...], "n_segments": ...}`` gives what
  ``ranx.fusion.<method>_train(Qrels(qrels), [Run(run), ...])`` returns, as lists.

Runs are ``{query: {doc: score}}``; each run is given every query of all runs and qrels (empty
where it has none), as ranx requires.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


#: How the child sorts: as ranx sorts in this leg of the tests (module docstring).
SORT = "numpy" if _jit_disabled() else "numba"


class RanxPeer:
    """The child process and its requests (one at a time)."""

    def __init__(self) -> None:
        env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "RANX_PEER_SORT": SORT}
        self.process = subprocess.Popen(
            [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env,
        )

    def _ask(self, request: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the ranx child process ended: {self.process.stderr.read() if self.process.stderr else ''}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"ranx failed: {answer['error']}")
        return answer["result"]

    def fuse(
        self, runs: list[dict], method: str, params: dict | None = None, norm: str | None = None, candidates: str = "first"
    ) -> dict[str, list[tuple[str, float]]]:
        """ranx's fused run as ``{query: [(doc, score), ...]}`` in its order."""
        request = {"op": "fuse", "runs": runs, "method": method, "params": params or {}, "norm": norm, "candidates": candidates}
        result = self._ask(request)
        return {q: [(doc, score) for doc, score in docs] for q, docs in result.items()}

    def train(self, method: str, qrels: dict, runs: list[dict], n_segments: int | None = None) -> Any:
        """What ranx's ``<method>_train`` returns (arrays as lists)."""
        return self._ask({"op": "train", "method": method, "qrels": qrels, "runs": runs, "n_segments": n_segments})

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)


# The child --------------------------------------------------------------------------------------


def _serve() -> None:
    import warnings

    warnings.filterwarnings("ignore")
    import numpy as np
    import ranx
    import ranx.fusion as fusion
    from numba.typed import List as TypedList
    from numba.types import unicode_type

    # Where ranx looks get_candidates up (each module imports its own name; the functions shadow the modules).
    names = ["bordafuse", "weighted_bordafuse", "condorcet", "weighted_condorcet"]
    modules = [sys.modules[f"ranx.fusion.{name}"] for name in names] + [sys.modules["ranx.normalization.borda_norm"]]
    originals = [module.get_candidates for module in modules]
    if os.environ["RANX_PEER_SORT"] == "numba":
        from numba.misc.quicksort import make_py_quicksort
        from numba.np.numpy_support import lt_floats

        quicksort = make_py_quicksort(lt=lt_floats, is_argsort=True, is_np_array=True).run_quicksort
        common = sys.modules["ranx.data_structures.common"]
        common.typed_list_argosrt = lambda values: quicksort(np.array(list(values), dtype=np.float64))

    def complete(runs: list[dict], extra: dict) -> list[ranx.Run]:
        every = list(dict.fromkeys([q for run in runs for q in run] + list(extra)))
        return [ranx.Run({q: run.get(q, {}) for q in every}) for run in runs]

    def first_appearance(ranx_runs: list[ranx.Run]):
        order = {q: list(dict.fromkeys(d for run in ranx_runs for d in run[q].keys())) for q in ranx_runs[0].keys()}

        def get_candidates(runs):
            lists = TypedList()
            for q in runs[0].keys():
                lists.append(TypedList(order[q]) if order[q] else TypedList.empty_list(unicode_type))
            return lists

        return get_candidates

    def listed(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, (list, tuple)):
            return [listed(v) for v in value]
        return float(value) if isinstance(value, (float, np.floating)) else value

    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "fuse":
                runs = complete(request["runs"], {})
                patch = first_appearance(runs) if request["candidates"] == "first" else None
                for module, original in zip(modules, originals):
                    module.get_candidates = patch or original
                # Trained parameters as ranx's *_train returns them: arrays, one per run.
                params = {k: [np.asarray(v, dtype=np.float64) for v in value] if k in ("probs", "log_odds") else value
                          for k, value in request["params"].items()}
                fused = ranx.fuse(runs, norm=request["norm"], method=request["method"], params=params)
                result = {q: [[d, float(s)] for d, s in fused[q].items()] for q in fused.keys()}
            else:
                runs = complete(request["runs"], request["qrels"])
                qrels = ranx.Qrels(request["qrels"])
                train = getattr(fusion, f"{request['method']}_train")
                extra = () if request["n_segments"] is None else (request["n_segments"],)
                result = listed(train(qrels, runs, *extra))
            answer = {"result": result}
        except Exception as error:  # the parent raises it, with ranx's message
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
