"""Hostile Dask arguments: one parser of the address for the API and the CLI, an error at once, never a hang."""

from __future__ import annotations

import os

import pytest

from retrieval_eval import ConfigError, evaluate_dataset

from tests.scale.layouts import random_collection, write_layout
from tests.test_cli import run_cli

pytest.importorskip("distributed")

from retrieval_eval.scale.cluster import LOCAL_WORKERS_PER_CORE, LocalWorkers, dask_target  # noqa: E402

MOST = LOCAL_WORKERS_PER_CORE * (os.cpu_count() or 1)
INVALID = ["local:abc", "bogus", "local:-1", "local:0", f"local:{MOST + 1}", "local:", "local:2.5", "local:٣",
           "tcp://host", "tcp://host:0", "tcp://host:65536", "udp://host:8786", "host:port", "", "  ", "tcp://:8786"]  # fmt: skip


def _message(value: object) -> str:
    return (
        "dask must be a distributed.Client, a scheduler address such as 'tcp://host:8786', or 'local' / 'local:N' "
        f"with N from 1 to {MOST} worker processes ({os.cpu_count() or 1} cores here); got {value!r}"
    )


@pytest.mark.parametrize(
    ("value", "target"),
    [("local", LocalWorkers(os.cpu_count() or 1)), ("local:1", LocalWorkers(1)), (f" local:{MOST} ", LocalWorkers(MOST)),
     ("tcp://scheduler:8786", "tcp://scheduler:8786"), ("scheduler.example.org:8786", "scheduler.example.org:8786"),
     ("tls://10.0.0.1:1", "tls://10.0.0.1:1"), ("ws://[::1]:65535", "ws://[::1]:65535"), (LocalWorkers(3), LocalWorkers(3))],
)  # fmt: skip
def test_the_forms_of_a_dask_target(value, target):
    assert dask_target(value) == target


def test_a_client_is_used_as_it_is(dask_client):
    assert dask_target(dask_client) is dask_client


@pytest.mark.parametrize("value", [*INVALID, 3, None, b"local:2"], ids=repr)
def test_anything_else_is_one_error_naming_the_forms(value):
    with pytest.raises(ConfigError) as raised:
        dask_target(value)
    assert str(raised.value) == _message(value)


@pytest.mark.parametrize("value", INVALID, ids=repr)
def test_the_cli_refuses_a_bad_address_at_once_with_the_same_message(capsys, value):
    # The qrels do not exist: the address is refused before any file is read, or any connection tried.
    code, out, err = run_cli(capsys, "evaluate", "no-such-qrels.trec", "no-such-run", "--dask", value)
    assert (code, out, err) == (2, "", f"retrieval-eval: error: {_message(value)}\n")


@pytest.mark.parametrize("value", ["local:abc", "bogus", "local:-1"])
def test_the_api_refuses_the_reported_addresses(tmp_path, value):
    qrels, run = random_collection(seed=31)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=1, seed=32)
    with pytest.raises(ConfigError, match="^dask must be a distributed.Client"):
        evaluate_dataset(qrels, tmp_path / "run", dask=value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
