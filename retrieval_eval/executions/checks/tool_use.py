"""ToolUse: did the agent invoke the test case's expected tools or topics (all of them, or any)?

Copilot Studio's "Tool use" test method ("whether the test case used all or any of the expected
resources"), run offline over a record of what the agent invoked. Its options (no other keys):

- ``tools``: the expected tool or topic names, non-empty strings. None given (the key left
  out, or ``[]``) makes the test case invalid: the errored record, neither pass nor fail
  (:mod:`.expectations`).
- ``mode``: ``"all"`` (the default: every expected tool was invoked) or ``"any"`` (one was).
- ``case_sensitive`` (default False): without it, names are compared casefolded
  (``str.casefold``), as every check compares text.

What the agent invoked is the field ``invoked_tools`` (:data:`INVOKED_TOOLS`): in an evaluation
document under the item's (or turn's) ``diagnostics``, in an execution log at the top of the
record. It is a list; each element is a name (a non-empty string) or an object with a
non-empty string ``name`` (other keys, such as ``"type": "topic"``, are kept and not read), in
the order invoked, repeats allowed. Anything else is an InputError naming the element
(``invoked_tools[2].name``). A missing field (or null) means nothing was recorded: the
errored record, since nothing can be judged; an empty list means the agent invoked nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from ...errors import InputError
from ..model.validation import known
from .expectations import MATCH_MODES, ExpectationEvaluator, expectation_score, no_expectations

INVOKED_TOOLS = "invoked_tools"
_Text = Annotated[StrictStr, Field(min_length=1)]


def not_recorded(field: str = INVOKED_TOOLS) -> str:
    """The message of an item without ``field``: nothing says what the agent invoked."""
    return f"ToolUse: no record of the tools or topics invoked ('{field}')"


def tool_names(value: Any, field: str = INVOKED_TOOLS) -> list[str]:
    """The names of an ``invoked_tools`` value (see the module docstring), in order; InputError naming ``field[i]``.

    None (nothing recorded) is not a value here: callers decide what it means.
    """
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise InputError(f"must be a list of tool or topic names, got {type(value).__name__}", field=field)
    names = []
    for index, element in enumerate(value):
        name = element.get("name") if isinstance(element, Mapping) else element
        where = f"{field}[{index}]" + (".name" if isinstance(element, Mapping) else "")
        if not isinstance(name, str) or not name:
            expected = "a non-empty string" if isinstance(element, Mapping) else "a name or an object with a 'name'"
            got = "an empty string" if name == "" else type(name).__name__
            raise InputError(f"must be {expected}, got {got}", field=where)
        names.append(name)
    return names


def tool_score(mode: str, matched: Sequence[str], missing: Sequence[str], invoked: Sequence[str]) -> dict[str, Any]:
    """The ``toolUse`` score object: ``result``, ``reason``, ``mode``, ``matched_tools``, ``missing_tools``, ``invoked_tools``."""
    return {**expectation_score(mode, "tools", "invoked", "tools", matched, missing), "invoked_tools": list(invoked)}


class _ToolOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: tuple[_Text, ...] = ()
    mode: StrictStr = "all"
    case_sensitive: StrictBool = False

    @model_validator(mode="after")
    def _expects_something(self) -> Self:
        # After the fields: an unknown or mistyped option is reported first.
        if not self.tools:
            raise ValueError(no_expectations("tools"))
        return self

    @field_validator("mode")
    @classmethod
    def _known(cls, value: str) -> str:
        return known(value, MATCH_MODES, "mode", "modes")


class ToolUse(ExpectationEvaluator):
    """Did the agent invoke all (or any) of the expected tools or topics? Pass or fail.

    Expected tool ``t`` was *invoked* when some invoked name ``n`` has ``fold(n) == fold(t)``:
    equality of whole names, not containment ("Search" is not "SearchWeb"), fold being
    ``str.casefold`` unless ``case_sensitive``. The result is ``pass`` when every expected tool
    was invoked (``mode="all"``) or at least one was (``mode="any"``). Output: ``result``,
    ``reason``, ``mode``, ``matched_tools`` and ``missing_tools`` (the expected names as
    configured, in their order), and ``invoked_tools``: the distinct names invoked, as
    recorded, in code point order (``sorted``).

    >>> ToolUse(["SearchPolicies", "Escalate"])(["searchpolicies", {"name": "Greeting", "type": "topic"}])["missing_tools"]
    ['Escalate']
    """

    _options_model = _ToolOptions

    def __init__(
        self, tools: Sequence[str] = (), *, mode: str = "all", case_sensitive: bool = False, field: str = INVOKED_TOOLS
    ) -> None:
        self.options: _ToolOptions = self._parse({"tools": tools, "mode": mode, "case_sensitive": case_sensitive})
        self.field = field

    @classmethod
    def from_options(cls, options: Mapping[str, Any], *, field: str = INVOKED_TOOLS) -> ToolUse:
        """The evaluator from its options (``tools``, ``mode``, ``case_sensitive``).

        ``field`` is where the invocations are read, as errors name it (``diagnostics.invoked_tools``
        in a document); it is not an option.
        """
        parsed = cls._parse(options)
        return cls(parsed.tools, mode=parsed.mode, case_sensitive=parsed.case_sensitive, field=field)

    def __call__(self, invoked: Sequence[Any] | None) -> dict[str, Any]:
        """The ``toolUse`` score object for these invocations (an ``invoked_tools`` value; None: not recorded)."""
        if invoked is None:
            raise InputError(not_recorded(self.field))
        try:
            names = tool_names(invoked, self.field)
        except InputError as exc:
            raise InputError(f"ToolUse: field '{exc.field}': {exc.detail}") from None
        options = self.options
        fold = (lambda text: text) if options.case_sensitive else str.casefold
        invoked_folded = {fold(name) for name in names}
        found = [fold(tool) in invoked_folded for tool in options.tools]
        matched = [tool for tool, hit in zip(options.tools, found) if hit]
        missing = [tool for tool, hit in zip(options.tools, found) if not hit]
        return tool_score(options.mode, matched, missing, sorted(set(names)))
