"""A page in a real browser, for tests: headless Chromium driven over the DevTools protocol.

The protocol runs over ``--remote-debugging-pipe``: Chromium reads JSON commands on its file
descriptor 3 and writes JSON replies and events on 4, each message ended by a NUL byte. Only the
standard library is needed (no WebSocket, no driver binary, no port to pick).

One :class:`Browser` is one Chromium process (starting it costs about a second: open one per
test module, or per page); each :meth:`Browser.open` loads a page in a fresh tab at a viewport
size and returns a :class:`Page`, which collects what the page reports as errors (``console.error``,
uncaught exceptions, failed loads, the browser's own error log) and evaluates JavaScript in it.
:data:`BROKEN_IMAGES` and :data:`OVERFLOW` are the checks every page of the project passes::

    with Browser(chromium, tmp_path / "profile") as browser:
        page = browser.open(path, width=1024)
        assert page.errors == [] and page.evaluate(BROKEN_IMAGES) == []
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

#: The images of the page that did not decode (``img.complete && img.naturalWidth > 0`` fails),
#: each by its ``alt`` text (or the start of its ``src``), once every image has been awaited.
BROKEN_IMAGES = """
(async () => {
  const images = Array.from(document.images);
  await Promise.all(images.map((image) => image.decode().catch(() => null)));
  return images.filter((image) => !(image.complete && image.naturalWidth > 0))
               .map((image) => image.alt || image.src.slice(0, 60));
})()
"""

#: What does not fit the viewport's width: ``scrollWidth`` and ``clientWidth`` of the document
#: (a page that fits has ``scrollWidth <= clientWidth``), and every element whose right edge passes
#: ``clientWidth``, unless it is inside a box that scrolls (or clips) horizontally, described by its
#: tag, id, class and right edge in CSS pixels.
OVERFLOW = """
(() => {
  const width = document.documentElement.clientWidth;
  const contained = (element) => {
    for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
      if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(box).overflowX)) return true;
    }
    return false;
  };
  const name = (element) => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
    + (typeof element.className === "string" && element.className ? "." + element.className.split(" ").join(".") : "");
  const outside = [];
  for (const element of document.body.querySelectorAll("*")) {
    const right = element.getBoundingClientRect().right + window.scrollX;
    if (right > width + 0.5 && !contained(element)) outside.push(name(element) + " right edge " + Math.round(right));
  }
  return {scrollWidth: document.documentElement.scrollWidth, clientWidth: width, outside: outside};
})()
"""

_READ_FD, _WRITE_FD = 3, 4  # Chromium's ends of the pipe, fixed by --remote-debugging-pipe


class BrowserError(AssertionError):
    """The browser did not answer as the protocol says (it crashed, timed out or refused a command)."""


class Browser:
    """One headless Chromium process; ``with Browser(path, profile) as browser:`` closes it.

    ``profile``: a fresh directory for the browser's profile (a test's ``tmp_path / "profile"``).
    ``timeout``: seconds any one command, or a page's load, may take.
    """

    def __init__(self, chromium: str, profile: Path, *, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._next_id = 0
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        # The child's ends first go to descriptors above 9, so that moving them to 3 and 4 in the
        # child cannot overwrite one with the other.
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        child_read = fcntl.fcntl(commands_read, fcntl.F_DUPFD_CLOEXEC, 10)
        child_write = fcntl.fcntl(replies_write, fcntl.F_DUPFD_CLOEXEC, 10)
        for descriptor in (commands_read, replies_write):
            os.close(descriptor)

        def pipes_to_3_and_4() -> None:  # in the child, before exec: dup2 leaves the copies open across exec
            os.dup2(child_read, _READ_FD)
            os.dup2(child_write, _WRITE_FD)

        # Chromium's stderr goes to a file: a pipe nobody reads would fill and stop it.
        profile.mkdir(parents=True, exist_ok=True)
        self._log = profile / "stderr.log"
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--mute-audio", f"--user-data-dir={profile}",
            "--remote-debugging-pipe", "about:blank",
        ]  # fmt: skip
        with self._log.open("wb") as log:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                close_fds=False,  # descriptors 3 and 4 must stay open; Python's own are close-on-exec anyway
                preexec_fn=pipes_to_3_and_4,
            )
        for descriptor in (child_read, child_write):
            os.close(descriptor)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Ask the browser to quit, then end it if it does not within a few seconds."""
        if self._process.poll() is None:
            try:
                self._send("Browser.close")
                self._process.wait(timeout=10)
            except (BrowserError, OSError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        for descriptor in (self._commands, self._replies):
            try:
                os.close(descriptor)
            except OSError:
                pass  # closed already

    def open(self, page: Path | str, *, width: int = 1024, height: int = 768) -> Page:
        """Load ``page`` (a path or a URL) in a new tab whose viewport is ``width`` x ``height`` CSS
        pixels, and wait for its ``load`` event (every image and script loaded)."""
        url = page.as_uri() if isinstance(page, Path) else page
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tab = Page(self, session, url)
        for domain in ("Page", "Runtime", "Log"):
            tab.call(f"{domain}.enable")
        tab.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        tab.call("Page.navigate", url=url)
        self.wait_for(lambda event: event.get("sessionId") == session and event["method"] == "Page.loadEventFired")
        return tab

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command (to the tab of ``session``, else to the browser) and return its result."""
        identifier = self._send(method, session, **params)
        reply = self.wait_for(lambda message: message.get("id") == identifier)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message', reply['error'])}")
        return reply["result"]

    def wait_for(self, wanted: Any) -> dict[str, Any]:
        """The first message (reply or event) for which ``wanted(message)`` holds, read within the timeout;
        the events read on the way are kept for :meth:`events`."""
        for index, event in enumerate(self._events):
            if wanted(event):
                return self._events.pop(index)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read(deadline)
            if wanted(message):
                return message
            if "method" in message:
                self._events.append(message)

    def events(self, session: str) -> list[dict[str, Any]]:
        """The events of the tab of ``session`` read so far, in the order they came."""
        return [event for event in self._events if event.get("sessionId") == session]

    def drain(self, seconds: float) -> None:
        """Read what the browser sends for ``seconds`` (late console messages), keeping the events."""
        deadline = time.monotonic() + seconds
        while select.select([self._replies], [], [], max(0.0, deadline - time.monotonic()))[0]:
            message = self._read(deadline + self.timeout)
            if "method" in message:
                self._events.append(message)

    def _send(self, method: str, session: str | None = None, **params: Any) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        return self._next_id

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise BrowserError(f"the browser sent nothing within {self.timeout:g} s")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                stderr = self._log.read_text(encoding="utf-8", errors="replace")
                raise BrowserError(f"the browser closed its pipe (exit {self._process.poll()}): {stderr[-2000:]}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)


class Page:
    """A loaded tab of a :class:`Browser`: its errors and JavaScript evaluated in it."""

    def __init__(self, browser: Browser, session: str, url: str) -> None:
        self.browser, self.session, self.url = browser, session, url

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A DevTools command to this tab (``Runtime.evaluate``, ``Input.dispatchMouseEvent``, ...)."""
        return self.browser.call(method, self.session, **params)

    def evaluate(self, expression: str) -> Any:
        """The value of the JavaScript ``expression`` (a promise is awaited), as JSON values; a
        thrown exception is a :class:`BrowserError` with its message."""
        reply = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise BrowserError(f"{details.get('exception', {}).get('description', details.get('text'))}")
        return reply["result"].get("value")

    @property
    def errors(self) -> list[str]:
        """What the page reported as an error so far: ``console.error`` and ``console.assert`` calls,
        uncaught exceptions, and the browser's error log of it (a resource that failed to load, a
        blocked script), each as one line. (Call ``browser.drain(seconds)`` first to wait for late ones.)"""
        found = []
        for event in self.browser.events(self.session):
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                texts = [str(argument.get("value", argument.get("description", ""))) for argument in params.get("args", [])]
                found.append(f"console.{params['type']}: {' '.join(texts)}")
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                text = details.get("exception", {}).get("description") or details.get("text", "")
                where = f"{details.get('url', '')}:{details.get('lineNumber', -1) + 1}"
                found.append(f"exception: {text.splitlines()[0] if text else ''} ({where})")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                found.append(f"{entry.get('source', 'log')}: {entry.get('text', '')} {entry.get('url', '')}".rstrip())
        return found
