"""Scratch beside a target: claimed while in use, removed by the next writer once its process is gone."""

from __future__ import annotations

import os

import pytest

from retrieval_eval.io.atomic import atomic_write
from retrieval_eval.io.scratch import claim_scratch, clear_stale_scratch

pytestmark = pytest.mark.skipif(os.name == "nt", reason="scratch is not locked on Windows")


def _left_behind(target, token: str, directory: bool):
    """Scratch as a killed process leaves it: the name, no lock."""
    path = target.with_name(f".{target.name}.{token}.tmp")
    if directory:
        path.mkdir()
        (path / "part-00000.parquet").write_bytes(b"half")
    else:
        path.write_bytes(b"half")
    return path


@pytest.mark.parametrize("directory", [False, True])
def test_stale_scratch_is_cleared_and_claimed_scratch_kept(tmp_path, directory):
    target = tmp_path / "out.parquet"
    stale = _left_behind(target, "0123456789ab", directory)
    live = claim_scratch(target, directory=directory)
    try:
        assert live.path.name.startswith(".out.parquet.") and live.path.name.endswith(".tmp")
        assert clear_stale_scratch(target) == [stale]
        assert not os.path.lexists(stale) and live.path.exists()
    finally:
        live.remove()
    assert sorted(os.listdir(tmp_path)) == []


def test_only_the_targets_own_scratch_is_cleared(tmp_path):
    target = tmp_path / "out.json"
    kept = [
        _left_behind(tmp_path / "other.json", "0123456789ab", False),  # another target's
        tmp_path / ".out.json.notatoken.tmp",  # not a scratch name
        tmp_path / "out.json.0123456789ab.tmp",  # not dotted
    ]
    for path in kept[1:]:
        path.write_text("user file")
    assert clear_stale_scratch(target) == []
    assert all(path.exists() for path in kept)


def test_a_write_clears_what_a_killed_write_left(tmp_path):
    target = tmp_path / "out.txt"
    stale = _left_behind(target, "a0a0a0a0a0a0", False)
    atomic_write(target, lambda temp: open(temp, "w").write("new"))
    assert target.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["out.txt"] and not stale.exists()


def test_an_interrupted_write_leaves_nothing(tmp_path):
    def interrupted(temp: str) -> None:
        open(temp, "w").write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "out.txt", interrupted)
    assert os.listdir(tmp_path) == []


def test_without_locks_writes_go_on_and_nothing_is_cleared(tmp_path, monkeypatch):
    # A file system without flock (some network and FUSE mounts) raises on every lock.
    import fcntl

    def no_locks(fd, operation):
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    target = tmp_path / "out.txt"
    stale = _left_behind(target, "b1b1b1b1b1b1", False)
    atomic_write(target, lambda temp: open(temp, "w").write("new"))
    assert target.read_text() == "new" and stale.exists()
