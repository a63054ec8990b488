"""A headless Chromium driven over the DevTools protocol on a pipe (stdlib only).

Enough to open a local page, read the text it renders (shadow roots included), list the
network requests it made and save a screenshot: what the HTML report test needs.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")

# The text of every node, descending into open shadow roots, in document order.
VISIBLE_TEXT = """(() => {
  const out = [];
  const walk = (node) => {
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) out.push(child.textContent);
      else if (child.nodeType === Node.ELEMENT_NODE && !['SCRIPT', 'STYLE'].includes(child.tagName)) walk(child);
      else if (child.nodeType === Node.DOCUMENT_FRAGMENT_NODE) walk(child);
    }
  };
  walk(document.body);
  return out.join(' ').replace(/\\s+/g, ' ');
})()"""


# Every table inside the page's shadow roots: its header labels and its rows' cell texts; and the classes
# of every element (to find colours by their class names) and the number of progress bars.
TABLES = """(() => {
  const tables = [], classes = new Set();
  let bars = 0;
  const walk = (root) => {
    for (const element of root.querySelectorAll('*')) {
      for (const name of element.classList) classes.add(name);
      if (element.getAttribute('role') === 'progressbar') bars += 1;
      if (element.tagName === 'TABLE') {
        const clean = (cell) => cell.textContent.replace(/\\s+/g, ' ').trim();
        tables.push({headers: [...element.querySelectorAll('thead th')].map(clean),
                     rows: [...element.querySelectorAll('tbody tr')].map((row) => [...row.cells].map(clean))});
      }
      if (element.shadowRoot) walk(element.shadowRoot);
    }
  };
  walk(document);
  return {tables, classes: [...classes], progressbars: bars};
})()"""


def find() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="elenchus-chromium-")
        commands_read, self._commands = os.pipe()
        self._events, events_write = os.pipe()

        def pipes() -> None:  # the browser reads commands on fd 3 and writes on fd 4
            for fd, wanted in ((commands_read, 3), (events_write, 4)):
                if fd == wanted:  # dup2 onto itself keeps close-on-exec: clear it
                    os.set_inheritable(fd, True)
                else:
                    os.dup2(fd, wanted)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--window-size=1280,1600", "about:blank"],
            preexec_fn=pipes, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(events_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Network.enable", session=True)

    def call(self, method: str, session: bool = False, timeout: float = 30.0, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._events, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def open(self, url: str) -> None:
        self.call("Page.navigate", session=True, url=url)

    def text(self) -> str:
        result = self.call("Runtime.evaluate", session=True, expression=VISIBLE_TEXT, returnByValue=True)
        return result.get("result", {}).get("value") or ""

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def wait_for_text(self, *wanted: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if all(w in text for w in wanted) or time.monotonic() > deadline:
                return text
            time.sleep(0.2)

    def requested(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._commands, self._events):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
