"""Outputs published together: all renamed into place at the end of the block, or none (every target as it was,
no scratch left), whatever fails (a write, an exception after the writes, the rename of any one of them)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import OutputError
from retrieval_eval.io.atomic import atomic_write
from retrieval_eval.io.publication import published_together
from retrieval_eval.scale.output import PerQueryDataset


def state(directory: Path) -> dict[str, tuple[int, bytes]]:
    """Every file below ``directory`` (scratch too) with its inode and bytes."""
    return {str(p.relative_to(directory)): (p.stat().st_ino, p.read_bytes()) for p in sorted(directory.rglob("*")) if p.is_file()}


def write(path: Path, text: str) -> None:
    atomic_write(path, lambda temp: Path(temp).write_text(text))


def test_outputs_wait_for_the_end_of_the_block(tmp_path):
    with published_together():
        write(tmp_path / "a.txt", "a")
        write(tmp_path / "b.txt", "b")
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == []
    assert (tmp_path / "a.txt").read_text() == "a" and (tmp_path / "b.txt").read_text() == "b"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


def test_an_exception_in_the_block_publishes_nothing(tmp_path):
    (tmp_path / "a.txt").write_text("before")
    before = state(tmp_path)
    with pytest.raises(KeyboardInterrupt), published_together():
        write(tmp_path / "a.txt", "a")
        write(tmp_path / "b.txt", "b")
        raise KeyboardInterrupt
    assert state(tmp_path) == before


def test_a_block_inside_another_publishes_with_it(tmp_path):
    with published_together():
        with published_together():
            write(tmp_path / "a.txt", "a")
        assert not (tmp_path / "a.txt").exists()
    assert (tmp_path / "a.txt").read_text() == "a"


def test_the_same_output_written_twice_is_the_last_one(tmp_path):
    with published_together():
        write(tmp_path / "a.txt", "first")
        write(tmp_path / "a.txt", "second")
    assert os.listdir(tmp_path) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "second"


def test_a_dataset_directory_is_published_with_the_files(tmp_path):
    target = tmp_path / "per_query"
    target.mkdir()
    (target / "part-00000.parquet").write_bytes(b"before")
    before = state(tmp_path)
    with pytest.raises(OutputError, match="summary.json: cannot write: directory .* is not a directory"):
        with published_together(), PerQueryDataset(target) as dataset:
            dataset.add(pd.DataFrame({"query_id": ["q"], "map": [0.5]}))
            dataset.publish()
            (tmp_path / "plain").write_text("a file")
            before["plain"] = state(tmp_path)["plain"]
            write(tmp_path / "plain" / "summary.json", "{}")
    assert state(tmp_path) == before


@pytest.mark.parametrize("hard_links", [True, False])
@settings(deadline=None)
@given(existing=st.lists(st.booleans(), min_size=2, max_size=4), failing=st.data())
def test_a_failed_rename_puts_every_target_back(hard_links, existing, failing):
    """Outputs ``o0..``, some written before; the rename onto one of them fails: all are as they were (the same
    file, its inode too; where there are no hard links, a copy of its bytes)."""
    index = failing.draw(st.integers(0, len(existing) - 1))
    real_replace, real_link = os.replace, os.link

    def replace(source, target):
        if os.path.basename(os.fspath(target)) == f"o{index}":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_replace(source, target)

    def link(*args, **kwargs):
        if not hard_links:
            raise OSError(errno.EPERM, os.strerror(errno.EPERM))
        return real_link(*args, **kwargs)

    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        for i, there in enumerate(existing):
            if there:
                (directory / f"o{i}").write_text(f"before {i}")
        before = state(directory)
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(os, "replace", replace)
            patched.setattr(os, "link", link)
            with pytest.raises(OutputError, match=rf"o{index}: cannot write: No space left on device; none of the {len(existing)} outputs"):
                with published_together():
                    for i in range(len(existing)):
                        write(directory / f"o{i}", f"new {i}")
        after = state(directory)
    if not hard_links:
        before, after = ({name: data for name, (_, data) in files.items()} for files in (before, after))
    assert after == before


def test_an_interrupt_while_renaming_puts_every_target_back(tmp_path, monkeypatch):
    for name in ("o0", "o1"):
        (tmp_path / name).write_text(f"before {name}")
    before = state(tmp_path)
    real = os.replace

    def replace(source, target):
        if os.path.basename(os.fspath(target)) == "o1":
            raise KeyboardInterrupt
        return real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt), published_together():
        write(tmp_path / "o0", "new o0")
        write(tmp_path / "o1", "new o1")
    monkeypatch.undo()
    assert state(tmp_path) == before
