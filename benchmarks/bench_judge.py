"""Judge benchmark: requests per second against a local chat-completions server, and the layer's own cost per item.

Three measurements, interleaved rounds, medians with their spread:

1. **Throughput by concurrency**: ``--items`` relevance judgments through the judge layer against
   the test suite's scripted server on 127.0.0.1 (real HTTP, keep-alive), each reply held for
   ``--latency`` seconds as a model server would; concurrency 1 to 64. The ideal is
   concurrency / latency requests per second; the table gives the share of it reached. Beside it
   the openai client (``AsyncOpenAI`` with a semaphore, when installed) sending the same requests.
2. **Overhead on top of the server**: the same requests with no latency, the layer against plain
   ``http.client`` posting the same bodies from the same number of threads: (layer - plain) / items
   is what the layer adds per item (rendering the prompt, the cache key, retries' bookkeeping,
   parsing the reply, the totals).
3. **The layer alone**: an instant callable backend (no HTTP), with no cache, writing a cache, and
   answering everything from the cache: seconds per item.

Usage: ``python benchmarks/bench_judge.py [--items 2000 --latency 0.02 --rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.harness import describe_machine, interleave, machine, print_table, ratios, timed  # noqa: E402
from retrieval_eval.judging.backends import CallableBackend, ChatBackend  # noqa: E402
from retrieval_eval.judging.endpoint import openai_endpoint  # noqa: E402
from retrieval_eval.judging.judge import Judge  # noqa: E402
from retrieval_eval.judging.limits import Limits  # noqa: E402
from retrieval_eval.judging.prompts import RELEVANCE, RELEVANCE_PARAMS  # noqa: E402
from retrieval_eval.judging.replies import LabelParser  # noqa: E402
from retrieval_eval.judging.transport import Transport  # noqa: E402
from tests.judging.server import Reply, ScriptedServer, chat_reply  # noqa: E402

CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)


def items(n: int, seed: int) -> list[dict[str, str]]:
    return [{"query": f"what is topic {i % 50} about", "document": f"passage {seed}-{i} " + "text " * 60}
            for i in range(n)]


def held(latency: float):
    def script(request):
        reply = chat_reply(json.dumps({"label": request.number % 4}), request)
        return Reply(body=reply.body, delay=latency)

    return script


def judge_for(server: ScriptedServer) -> Judge:
    backend = ChatBackend(openai_endpoint(base_url=server.url + "/v1", model="bench-model", api_key="unused"))
    return Judge(backend, template=RELEVANCE, params=RELEVANCE_PARAMS, parse=LabelParser())


def plain_http(server: ScriptedServer, bodies: list[dict], concurrency: int) -> None:
    """The same POSTs from ``concurrency`` threads with http.client alone (the floor under the layer)."""
    transport = Transport()
    url = server.url + "/v1/chat/completions"
    chunks = [bodies[i::concurrency] for i in range(concurrency)]

    def post_all(chunk: list[dict]) -> None:
        for body in chunk:
            transport.post(url, {"model": "bench-model", **body}, {})

    threads = [threading.Thread(target=post_all, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def openai_client(server: ScriptedServer, bodies: list[dict], concurrency: int) -> None:
    from openai import AsyncOpenAI

    async def run() -> None:
        client = AsyncOpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0)
        gate = asyncio.Semaphore(concurrency)

        async def one(body: dict) -> None:
            async with gate:
                reply = await client.chat.completions.create(model="bench-model", **body)
                json.loads(reply.choices[0].message.content)

        await asyncio.gather(*(one(body) for body in bodies))
        await client.close()

    asyncio.run(run())


def has_openai() -> bool:
    try:
        import openai  # noqa: F401
    except ImportError:
        return False
    return True


def throughput(args: argparse.Namespace) -> list[list[str]]:
    rows = [["concurrency", "ideal req/s", "retrieval_eval req/s", "share of ideal"]
            + (["openai client req/s", "ratio"] if has_openai() else [])]
    with ScriptedServer(held(args.latency)) as server:
        judge = judge_for(server)
        for concurrency in CONCURRENCY:
            n = min(args.items, max(50, int(concurrency / args.latency * 1.5)))
            batch = items(n, concurrency)
            bodies = [judge.body(item) for item in batch]
            contenders = {"ours": timed(lambda: judge.run(batch, limits=Limits(concurrency=concurrency)))}
            if has_openai():
                contenders["openai"] = timed(lambda: openai_client(server, bodies, concurrency))
            times = interleave(contenders, args.rounds)
            ours = n / min(times["ours"])
            ideal = concurrency / args.latency
            row = [str(concurrency), f"{ideal:,.0f}", f"{ours:,.0f}", f"{ours / ideal:.0%}"]
            if has_openai():
                ratio = ratios(times["openai"], times["ours"])
                row += [f"{n / min(times['openai']):,.0f}", f"{ratio.median:.2f}x ({ratio.min:.2f}-{ratio.max:.2f})"]
            rows.append(row)
    return rows


def overhead(args: argparse.Namespace) -> list[list[str]]:
    rows = [["concurrency", "plain http.client s", "judge layer s", "layer's own cost per item"]]
    with ScriptedServer(held(0.0)) as server:
        judge = judge_for(server)
        batch = items(args.items, 7)
        bodies = [judge.body(item) for item in batch]
        for concurrency in (1, 8):
            times = interleave({"plain": timed(lambda: plain_http(server, bodies, concurrency)),
                                "layer": timed(lambda: judge.run(batch, limits=Limits(concurrency=concurrency)))},
                               args.rounds)
            plain, layer = min(times["plain"]), min(times["layer"])
            per_item = (layer - plain) / args.items
            rows.append([str(concurrency), f"{plain:.3f}", f"{layer:.3f}", f"{per_item * 1e6:.0f} us"])
    return rows


def layer_alone(args: argparse.Namespace) -> list[list[str]]:
    rows = [["setting", "seconds", "per item"]]
    judge = Judge(CallableBackend(lambda messages: '{"label": 2}', name="instant"), template=RELEVANCE,
                  params=RELEVANCE_PARAMS, parse=LabelParser())
    batch = items(args.items, 3)
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache.jsonl"
        settings = {"no cache": {}, "writing a cache": {"cache": cache, "cache_mode": "refresh"},
                    "every item from the cache": {"cache": cache}}
        judge.run(batch, cache=cache)
        times = interleave({name: timed(lambda kw=kw: judge.run(batch, **kw)) for name, kw in settings.items()},
                           args.rounds)
    for name, seconds in times.items():
        best = min(seconds)
        rows.append([name, f"{best:.3f}", f"{best / args.items * 1e6:.0f} us"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds the server holds each reply")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(describe_machine(machine("openai")))
    started = time.perf_counter()
    print_table(throughput(args), title=f"Requests per second against a local server ({args.latency * 1000:g} ms a reply)")
    print_table(overhead(args), title=f"What the layer adds on top of the server ({args.items} items, no latency)")
    print_table(layer_alone(args), title=f"The layer alone, an instant backend ({args.items} items)")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
