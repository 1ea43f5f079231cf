"""Every example of the manual's judge page (docs/judge.md) runs, against a local server standing in for each endpoint.

The commands of the bash blocks that follow the ``judge-examples`` marker, to the end of the page,
are run as written, in a folder holding a copy of ``data/``: an ``export`` sets the environment of
the commands after it, and whatever host a command or a variable names (OpenAI's, an Azure
resource's, localhost's ports of vLLM and Ollama) is replaced by the scripted server's address,
which answers every judge request. The page's Python blocks run the same way.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest

from retrieval_eval.cli import main
from tests.judging.server import ScriptedServer, default_script

REPO = Path(__file__).resolve().parents[2]
MARKER = "<!-- judge-examples"
_URL = re.compile(r"https?://[^\s/\"]+")


def section() -> str:
    text = (REPO / "docs" / "judge.md").read_text(encoding="utf-8")
    return text[text.index(MARKER):]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(), re.DOTALL)


def commands() -> list[tuple[dict[str, str], list[str]]]:
    """(environment set by the exports before it, argv) of every command in the section's bash blocks."""
    found, environment = [], {}
    for block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" # ")[0].strip()
            if not line or line.startswith("#"):
                continue
            words = shlex.split(line)
            if words[0] == "export":
                environment.update(word.split("=", 1) for word in words[1:])
            elif words[0] == "retrieval-eval":
                found.append((dict(environment), words[1:]))
    return found


#: What the scripted judge says to every judged evaluator: one JSON object with the fields each of them reads.
UNIVERSAL = {"score": 4, "reason": "It answers the question.", "supported": True, "evidence": [1], "relevance": True,
             "groundedness": True, "completeness": True, "abstention": True}


def answer(request) -> str:
    """The JSON object each prompt of the section asks for."""
    text = request.user_text
    if '{"label": <0, 1, 2 or 3>}' in text:
        return json.dumps({"label": len(text) % 4})
    if "from 0 to 100" in text:
        return json.dumps({**UNIVERSAL, "score": 80})
    if "1 if the criterion is met" in text:
        return json.dumps({**UNIVERSAL, "score": 1})
    return json.dumps(UNIVERSAL)


@pytest.fixture()
def folder(tmp_path):
    shutil.copytree(REPO / "data", tmp_path / "data")
    return tmp_path


def test_the_section_has_examples_for_each_kind_of_endpoint():
    argvs = [" ".join(argv) for _, argv in commands()]
    assert any("--azure" in argv for argv in argvs)
    assert any("localhost:8000" in argv for argv in argvs) and any("localhost:11434" in argv for argv in argvs)
    assert any("--base-url" not in argv and "--azure" not in argv for argv in argvs if argv.startswith("judge"))
    assert any(argv.startswith("agree") for argv in argvs)
    assert any(argv.startswith("check") for argv in argvs) and any(argv.startswith("tasks") for argv in argvs)


def test_every_command_runs_against_the_local_server(folder, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    (folder / "prices.json").write_text(json.dumps({"gpt-4o-mini": {"prompt": 0.15, "completion": 0.6}}))
    for name in [key for key in os.environ if key.startswith(("OPENAI_", "AZURE_OPENAI_"))]:
        monkeypatch.delenv(name)
    with ScriptedServer(default_script(answer)) as server:
        for exported, argv in commands():
            with monkeypatch.context() as env:
                for key, value in exported.items():
                    env.setenv(key, _URL.sub(server.url, value))
                if "--base-url" not in argv and "--azure" not in argv:
                    env.setenv("OPENAI_BASE_URL", server.url + "/v1")  # where the openai client's default host is
                argv = [_URL.sub(server.url, word) for word in argv]
                before = len(server.requests)
                status = main(argv)
            captured = capsys.readouterr()
            # The budget stops the judging before its end, and the sample document has an item that fails.
            expected = 1 if "--budget" in argv or argv[0] == "check" else 0
            assert status == expected, (argv, captured.out, captured.err)
            if "--azure" in argv:
                sent = server.requests[before:]
                assert {request.path for request in sent} == {"/openai/deployments/my-gpt-4o-deployment/chat/completions"}
                assert all(request.query["api-version"] == ["2024-10-21"] for request in sent)
                assert all(request.headers.get("api-key") == "..." for request in sent)
            if argv[0] == "judge" and "--dry-run" not in argv:
                assert (folder / argv[argv.index("-o") + 1]).exists(), argv


def test_the_python_examples_run(folder, monkeypatch):
    monkeypatch.chdir(folder)
    with ScriptedServer(default_script(answer)) as server:
        for block in blocks("python"):
            code = _URL.sub(server.url, block)
            namespace: dict = {}
            exec(compile(code, "docs/judge.md", "exec"), namespace)  # noqa: S102 (the manual's own example)
        assert server.requests
