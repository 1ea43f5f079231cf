"""Every subcommand that reads qrels or runs takes --qrels-column and --run-column, defined once
(cli/common.py): each reads tables of other column names as it reads the same tables under the
default names (issue 27, item 7)."""

from __future__ import annotations

import argparse

import pytest

from retrieval_eval.cli import build_parser, main

QRELS = {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d1"], "relevance": [1, 0, 2, 1]}
RUNS = {
    "a": {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d1"], "score": [2.0, 1.0, 1.0, 0.5]},
    "b": {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d2", "d4", "d1", "d3"], "score": [2.0, 1.0, 1.0, 0.5]},
}
OURS = {"query_id": "topic", "doc_id": "passage", "relevance": "grade", "score": "sim"}
FLAGS = [flag for canonical in ("query_id", "doc_id", "relevance") for flag in ("--qrels-column", f"{canonical}={OURS[canonical]}")]
FLAGS += [flag for canonical in ("query_id", "doc_id", "score") for flag in ("--run-column", f"{canonical}={OURS[canonical]}")]
#: The subcommands, with {qrels}, {a}, {b} and {out} for the files.
COMMANDS = {
    "evaluate": ["evaluate", "{qrels}", "{a}", "-m", "ndcg@10", "--format", "json"],
    "sweep": ["sweep", "{qrels}", "{a}", "{b}", "--format", "json"],
    "fusion sweep": ["sweep", "{qrels}", "{a}", "{b}", "--fuse", "rrf:k=10,60", "--format", "json"],
    "fuse": ["fuse", "{a}", "{b}", "--method", "rrf", "-o", "{out}"],
    "explain": ["explain", "{qrels}", "{a}", "{b}"],
    "pool": ["pool", "{a}", "{b}", "-k", "1", "--qrels", "{qrels}", "-o", "{out}"],
    "agree": ["agree", "{qrels}", "{qrels}", "{a}", "{b}", "--format", "json"],
    # --dry-run: the pool of holes and the requests, nothing sent (the address is never reached).
    "judge": ["judge", "{qrels}", "{a}", "{b}", "-k", "2", "--topics", "{topics}", "--docs", "{docs}", "-o", "{out}",
              "--model", "m", "--base-url", "http://127.0.0.1:9", "--dry-run"],
}


def _write(path, columns, names) -> str:
    header = [names.get(name, name) for name in columns]
    rows = zip(*columns.values())
    path.write_text("\t".join(header) + "\n" + "".join("\t".join(map(str, row)) + "\n" for row in rows))
    return str(path)


def _files(directory, names) -> dict[str, str]:
    directory.mkdir()
    files = {"qrels": _write(directory / "qrels.tsv", QRELS, names), "out": str(directory / "out.tsv")}
    files.update({name: _write(directory / f"{name}.tsv", run, names) for name, run in RUNS.items()})
    files["topics"] = _write(directory / "topics.tsv", {"query_id": ["q1", "q2"], "text": ["one", "two"]}, {})
    files["docs"] = _write(directory / "docs.tsv", {"doc_id": ["d1", "d2", "d3", "d4"], "text": ["w", "x", "y", "z"]}, {})
    return files


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_reads_other_column_names_with_the_flags(tmp_path, monkeypatch, capsys, command):
    outputs = []
    for directory, names, flags in (("plain", {}, []), ("ours", OURS, FLAGS)):
        files = _files(tmp_path / directory, names)
        monkeypatch.chdir(tmp_path / directory)  # the files are named alike in both: so are the runs in the outputs
        argv = [part.format(**{name: path.rsplit("/", 1)[1] for name, path in files.items()}) for part in COMMANDS[command]]
        assert main(argv + flags) == 0
        written = (tmp_path / directory / "out.tsv")
        outputs.append((capsys.readouterr().out, written.read_text() if written.exists() else None))
    assert outputs[1] == outputs[0]
    if command == "judge":
        assert outputs[0][0].startswith("1 pooled document to judge at depth 2"), outputs[0][0]


def test_merge_reads_other_column_names_with_the_flag(tmp_path):
    files = _files(tmp_path / "ours", OURS)
    merged = tmp_path / "merged.trec"
    assert main(["qrels", "merge", files["qrels"], files["qrels"], "-o", str(merged), *FLAGS[:6]]) == 0
    assert merged.read_text() == "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d3 2\n"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = sub
                found.update({f"{name} {inner}": parser for inner, parser in _subcommands(sub).items()})
    return found


def test_the_flags_are_one_definition_in_every_reader_of_qrels_or_runs():
    expected = {"evaluate", "sweep", "fuse", "explain", "pool", "agree", "judge", "qrels merge"}
    helps = {}
    for name, sub in _subcommands(build_parser()).items():
        for action in sub._actions:
            if action.dest in ("qrels_column", "run_column"):
                helps.setdefault(action.dest, set()).add(action.help)
                expected.discard(name)
    assert not expected, f"no column flags: {expected}"
    assert all(len(texts) == 1 for texts in helps.values()), helps
