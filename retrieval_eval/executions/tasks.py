"""Task datasets of the Foundry agent optimizer: each task's criteria judged 0 or 1, task and overall scores.

A dataset is JSON Lines, one task per line (blank lines skipped)::

    {"name": "refund-policy", "query": "...", "criteria": [{"name": "cites-policy", "instruction": "..."}, ...],
     "ground_truth": "...", "response": "..."}

``name`` (unique in the file), ``query`` and ``criteria`` (one or more, each a non-empty ``name``,
unique within the task, and ``instruction``) are required; ``ground_truth`` is optional (shown to
the judge as the reference answer when given); other keys are ignored. The agent's answer is the
task's ``response``, or, when a separate responses file is given (JSON Lines of ``{"name",
"response"}``), the response there of the task of that name: every task needs exactly one
response, from one place (a task with a response in both places, a response for no task, or a
name twice in the responses is an error). Every error is one line naming the file, the line and
the field.

Definitions. Each criterion of each task is judged independently by the judge, 0 (not met) or
1 (met), all criteria of the dataset in one batch. A task's score is the mean of its criteria
(3 of 4 met: 0.75); ``fully_met`` is whether all were. A criterion whose judgment failed (no
reply after the retries, a reply that cannot be read) leaves its task *unscored*: its score is
NaN, never a 0, and the task is listed in the summary. The overall score is the mean of the
scored tasks' scores (2 of 3 tasks with all criteria met, the third with none: 0.67), None when
no task was scored; ``fully_met_rate`` is the share of scored tasks fully met.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ConfigError, InputError
from ..io.jsonio import check_json_bytes, parse_json
from ..judging.backends import Completion
from ..judging.outcomes import Totals
from ..judging.settings import JudgeSettings
from .checks.judged import prompts, replies
from .checks.judged.batch import Ask, run_asks

CRITERIA_COLUMNS = ("task", "criterion", "score", "reason", "error")
TASK_COLUMNS = ("task", "criteria", "judged", "met", "score", "fully_met", "status", "error")


@dataclass(frozen=True)
class Criterion:
    name: str
    instruction: str


@dataclass(frozen=True)
class Task:
    """One task: ``name``, ``query``, ``criteria``, ``ground_truth`` (None: none), ``response`` (the agent's),
    ``line`` (its line in the dataset, 1-based)."""

    name: str
    query: str
    criteria: tuple[Criterion, ...]
    ground_truth: str | None
    response: str | None
    line: int


@dataclass(frozen=True)
class TaskResults:
    """``criteria``: one row per (task, criterion): ``score`` 0/1 (NaN: errored), ``reason``, ``error``.
    ``tasks``: one row per task: ``criteria`` (count), ``judged``, ``met``, ``score`` (mean of its criteria, NaN when
    unscored), ``fully_met``, ``status`` (``scored`` or ``unscored``), ``error`` (the first failed judgment).
    ``totals``: the judge's counts, tokens and cost."""

    criteria: pd.DataFrame
    tasks: pd.DataFrame
    totals: Totals

    @property
    def unscored(self) -> list[str]:
        """The tasks left unscored (a criterion's judgment failed), in dataset order."""
        return self.tasks.loc[self.tasks["status"] == "unscored", "task"].tolist()

    @property
    def summary(self) -> dict[str, Any]:
        """``tasks``, ``scored``, ``unscored`` (names), ``overall`` (mean task score of the scored tasks, None if
        none), ``fully_met_rate``, ``criteria``, ``criteria_met``, ``criteria_errors``."""
        scored = self.tasks[self.tasks["status"] == "scored"]
        overall = float(scored["score"].mean()) if len(scored) else None
        return {
            "tasks": len(self.tasks),
            "scored": len(scored),
            "unscored": self.unscored,
            "overall": overall,
            "fully_met_rate": float(scored["fully_met"].astype(bool).mean()) if len(scored) else None,
            "criteria": len(self.criteria),
            "criteria_met": int((self.criteria["score"] == 1).sum()),
            "criteria_errors": int(self.criteria["error"].notna().sum()),
        }

    def to_text(self) -> str:
        """The per-task table and the summary lines, for a terminal."""
        shown = self.tasks[["task", "met", "criteria", "score", "status"]].copy()
        shown["score"] = shown["score"].map(lambda value: "-" if pd.isna(value) else f"{value:.2f}")
        summary = self.summary
        lines = [shown.to_string(index=False), ""]
        overall = "-" if summary["overall"] is None else f"{summary['overall']:.2f}"
        lines.append(f"overall: {overall} over {summary['scored']} scored task(s) of {summary['tasks']}")
        if summary["unscored"]:
            lines.append(f"unscored (a criterion's judgment failed): {', '.join(summary['unscored'])}")
        return "\n".join(lines)


def read_tasks(path: str | os.PathLike[str], responses: str | os.PathLike[str] | None = None) -> list[Task]:
    """The tasks of a dataset (see the module docstring), with their responses from ``responses`` when given."""
    source = os.fspath(path)
    tasks, names = [], {}
    for line, record in _records(source):
        task = _task(record, source, line)
        if task.name in names:
            raise InputError(f"task {task.name!r} is also on line {names[task.name]}; names are unique",
                             source=source, row=line, field="name")
        names[task.name] = line
        tasks.append(task)
    if responses is None:
        return tasks
    answers = _responses(os.fspath(responses), names)
    for task in tasks:
        if task.response is not None and task.name in answers:
            raise InputError(f"task {task.name!r} has a response here and in {os.fspath(responses)}; give one",
                             source=source, row=task.line, field="response")
    return [task if task.response is not None else
            Task(task.name, task.query, task.criteria, task.ground_truth, answers.get(task.name), task.line)
            for task in tasks]


def _records(source: str):
    try:
        text = Path(source).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason} at byte {error.start})", source=source) from None
    check_json_bytes(text.encode("utf-8"), source, lines=True)
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        record = parse_json(raw, source, line=number)
        if not isinstance(record, dict):
            raise InputError(f"a line is a JSON object, got {type(record).__name__}", source=source, row=number)
        yield number, record


def _text(record: Mapping[str, Any], field: str, source: str, line: int, where: str | None = None,
          optional: bool = False) -> str | None:
    value = record.get(field)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        got = "missing" if field not in record else "empty" if isinstance(value, str) else type(value).__name__
        raise InputError(f"must be a non-empty string, got {got}", source=source, row=line, field=where or field)
    return value


def _task(record: Mapping[str, Any], source: str, line: int) -> Task:
    name, query = _text(record, "name", source, line), _text(record, "query", source, line)
    criteria = record.get("criteria")
    if not isinstance(criteria, list) or not criteria:
        got = "missing" if "criteria" not in record else "empty" if criteria == [] else type(criteria).__name__
        raise InputError(f"must be a non-empty list of {{name, instruction}}, got {got}", source=source, row=line,
                         field="criteria")
    parsed, seen = [], set()
    for index, criterion in enumerate(criteria):
        where = f"criteria[{index}]"
        if not isinstance(criterion, dict):
            raise InputError(f"must be an object {{name, instruction}}, got {type(criterion).__name__}", source=source,
                             row=line, field=where)
        cname = _text(criterion, "name", source, line, f"{where}.name")
        if cname in seen:
            raise InputError(f"criterion {cname!r} twice in task {name!r}", source=source, row=line, field=f"{where}.name")
        seen.add(cname)
        parsed.append(Criterion(cname, _text(criterion, "instruction", source, line, f"{where}.instruction")))
    return Task(name, query, tuple(parsed), _text(record, "ground_truth", source, line, optional=True),
                _text(record, "response", source, line, optional=True), line)


def _responses(source: str, names: Mapping[str, int]) -> dict[str, str]:
    answers, lines = {}, {}
    for line, record in _records(source):
        name = _text(record, "name", source, line)
        if name in lines:
            raise InputError(f"a second response of task {name!r} (the first on line {lines[name]})", source=source,
                             row=line, field="name")
        if name not in names:
            raise InputError(f"a response of task {name!r}, which the dataset does not have", source=source, row=line,
                             field="name")
        lines[name] = line
        answers[name] = _text(record, "response", source, line)
    return answers


def read_criterion(completion: Completion) -> tuple[int, str]:
    """``(score, reason)`` of a criterion's reply, the score 0 or 1."""
    reply = replies.strict_object(completion)
    return replies.integer(reply, "score", 0, 1), replies.text(reply, "reason")


def score_tasks(tasks: Sequence[Task] | str | os.PathLike[str], judge: JudgeSettings, *,
                responses: str | os.PathLike[str] | None = None) -> TaskResults:
    """Judge every criterion of every task in one batch; the per-criterion and per-task tables and the totals.

    ``tasks``: the tasks, or the path of a dataset (then ``responses`` may name a responses file).
    A task without a response is an InputError naming it, before anything is sent.
    """
    if not isinstance(judge, JudgeSettings):
        raise ConfigError(f"judge must be JudgeSettings, got {type(judge).__name__}")
    if isinstance(tasks, (str, os.PathLike)):
        tasks = read_tasks(tasks, responses)
    elif responses is not None:
        raise ConfigError("responses= goes with the path of a dataset; give Task objects their responses")
    missing = next((task for task in tasks if task.response is None or not task.response.strip()), None)
    if missing is not None:
        raise InputError(f"task {missing.name!r} has no response to judge (its 'response', or a responses file)",
                         row=missing.line, field="response")
    asks = [_ask(task, criterion) for task in tasks for criterion in task.criteria]
    answers, totals = run_asks(judge, asks) if asks else ([], Totals())
    rows = [(task.name, criterion.name) for task in tasks for criterion in task.criteria]
    criteria = pd.DataFrame({
        "task": [task for task, _ in rows],
        "criterion": [name for _, name in rows],
        "score": pd.array([answer.value[0] if answer.ok else None for answer in answers], dtype="Float64"),
        "reason": [answer.value[1] if answer.ok else None for answer in answers],
        "error": [answer.error for answer in answers],
    }, columns=list(CRITERIA_COLUMNS))
    return TaskResults(criteria, _per_task(criteria, [task.name for task in tasks]), totals)


def _ask(task: Task, criterion: Criterion) -> Ask:
    texts = {"query": task.query, "response": task.response, "criterion": criterion.name,
             "instruction": criterion.instruction}
    template = prompts.TASK_CRITERION
    if task.ground_truth is not None:
        template, texts = prompts.TASK_CRITERION_GROUND_TRUTH, {**texts, "ground_truth": task.ground_truth}
    return Ask(f"{task.name}:{criterion.name}", read_criterion, template, texts)


def _per_task(criteria: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    grouped = criteria.groupby("task", sort=False)
    scores = criteria["score"].astype("float64")
    counts = grouped.size()
    judged = scores.notna().groupby(criteria["task"], sort=False).sum()
    met = scores.eq(1).groupby(criteria["task"], sort=False).sum()
    first_error = criteria["error"].groupby(criteria["task"], sort=False).first()
    scored = judged == counts
    table = pd.DataFrame({
        "task": counts.index,
        "criteria": counts.to_numpy(),
        "judged": judged.to_numpy(),
        "met": met.to_numpy(),
        # The mean of every criterion, or NaN: a failed judgment is never counted as 0.
        "score": (met / counts).where(scored, math.nan).to_numpy(dtype="float64"),
        "fully_met": (scored & (met == counts)).to_numpy(),
        "status": scored.map({True: "scored", False: "unscored"}).to_numpy(),
        "error": first_error.to_numpy(),
    }, columns=list(TASK_COLUMNS))
    return table.set_index("task").reindex(order).reset_index()
