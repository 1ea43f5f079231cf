"""All outputs of a command are published together or none: an output that cannot be written (a parent that is a
file, a full disk while writing it or while renaming it into place) is one line naming its path and the reason,
exit 2, and every other output of the command is left as it was (an existing file unchanged, its inode too), with
no scratch file left beside any of them."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tests import test_cli_outputs
from tests.judging.server import ScriptedServer
from tests.test_cli import run_cli
from tests.test_cli_judge import judge_args, labelling
from tests.test_cli_outputs import COMMANDS, snapshot

# Every command with two outputs or more: its arguments, each output with a fresh path (a directory for a
# streamed run's per-query dataset), as in tests/test_cli_outputs.py, and qrels merge with --conflicts.
MULTIPLE = {
    **COMMANDS,
    "qrels merge": (["qrels", "merge", "qrels.trec", "rejudged.trec", "--duplicates", "new"],
                    {"-o": "merged.trec", "--conflicts": "conflicts.tsv"}, ["qrels.trec", "rejudged.trec"]),
}
DIRECTORY_OUTPUTS = {"per_query"}
work = test_cli_outputs.work  # the fixture: every command's inputs in a fresh working directory


@pytest.fixture
def ready(work):
    """The working directory, with a second qrels that relabels a judged pair (a conflict for qrels merge)."""
    line = Path("qrels.trec").read_text().splitlines()[0].split()
    Path("rejudged.trec").write_text(f"{line[0]} 0 {line[2]} {int(line[3]) + 1}\n")
    return work


def _existing(path: str) -> None:
    """An output written before: the command may not change it when another of its outputs fails."""
    if path in DIRECTORY_OUTPUTS:
        os.mkdir(path)
        Path(path, "part-00000.parquet").write_bytes(b"a dataset written before")
    else:
        Path(path).write_text("written before\n")


CASES = [pytest.param(command, failing, id=f"{command}-{failing}") for command, (_, outputs, _) in MULTIPLE.items()
         for failing in outputs]


def _argv(command: str, failing: str, failing_path: str) -> list[str]:
    argv, outputs, _ = MULTIPLE[command]
    for option, path in outputs.items():
        if option != failing:
            _existing(path)
    return [*argv, *(arg for option, path in outputs.items() for arg in (option, failing_path if option == failing else path))]


@pytest.mark.parametrize(("command", "failing"), CASES)
def test_an_output_under_a_file_writes_no_output(capsys, ready, command, failing):
    Path("plain").write_text("a file, not a directory\n")
    under = os.path.join("plain", MULTIPLE[command][1][failing])
    argv = _argv(command, failing, under)
    before = snapshot(ready)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert err == f"retrieval-eval: error: {under}: cannot write: directory 'plain' is not a directory\n"
    assert snapshot(ready) == before  # the other output unchanged (same inode, same bytes), no scratch beside it


def _failing_on(path: str, when: str):
    """os.fsync of the scratch of ``path``, or os.replace onto ``path`` (the rename into place), failing with ENOSPC."""
    name, real = os.path.basename(path), getattr(os, when)

    def fail(*args, **kwargs):
        if when == "fsync":
            hit = os.path.basename(os.readlink(f"/proc/self/fd/{args[0]}")).startswith(f".{name}.")
        else:
            hit = os.path.basename(os.fspath(args[1])) == name
        if hit:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    return fail


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds the file of a descriptor in /proc")
@pytest.mark.parametrize("when", ["fsync", "replace"])
@pytest.mark.parametrize(("command", "failing"), CASES)
def test_a_full_disk_on_one_output_writes_no_output(capsys, monkeypatch, ready, command, failing, when):
    _, outputs, _ = MULTIPLE[command]
    path = outputs[failing]
    if when == "fsync" and path in DIRECTORY_OUTPUTS:
        pytest.skip("the parts of a dataset are not synced one by one")
    argv = _argv(command, failing, path)
    before = snapshot(ready)
    monkeypatch.setattr(os, when, _failing_on(path, when))
    code, out, err = run_cli(capsys, *argv)
    monkeypatch.undo()
    assert code == 2
    others = "" if when == "fsync" else f"; none of the {len(outputs)} outputs was written"
    # The last line: what a command reports before its outputs are renamed into place comes before it.
    assert err.splitlines()[-1] == f"retrieval-eval: error: {path}: cannot write: No space left on device{others}"
    assert err.count("error:") == 1
    assert snapshot(ready) == before


def test_judge_errors_that_cannot_be_written_leave_the_labels_and_their_sidecars_as_they_were(tmp_path, capsys):
    out = tmp_path / "judged.trec"
    sidecars = [tmp_path / "judged.trec.judge.json", tmp_path / "judged.trec.sources.tsv"]
    for path in (out, *sidecars):
        path.write_text("written before\n")
    (tmp_path / "plain").write_text("a file\n")
    before = snapshot(tmp_path)
    with ScriptedServer(labelling) as server:
        code = run_cli(capsys, *judge_args(server, "-o", str(out), "--errors", str(tmp_path / "plain" / "errors.tsv")))[0]
        assert code == 2 and server.requests  # judged, then not written
    assert snapshot(tmp_path) == before


def test_a_streamed_run_refused_after_scoring_writes_no_output(capsys, ready):
    # Refused once scored (no judged query retrieved): its per-query dataset, renamed into place by the scoring,
    # is published with the command's other outputs, so not at all.
    Path("unjudged").mkdir()
    Path("unjudged", "part-0.parquet").write_bytes(Path("runs/part-0.parquet").read_bytes())
    Path("q.trec").write_text("nowhere 0 nothing 1\n")
    before = snapshot(ready)
    code, _, err = run_cli(capsys, "evaluate", "q.trec", "unjudged", "-o", "per_query", "--summary-output", "s.json")
    assert code == 2 and "so the scores measure nothing" in err
    assert snapshot(ready) == before
