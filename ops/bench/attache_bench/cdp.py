"""Headless Chromium driven over the DevTools protocol through a pipe (--remote-debugging-pipe): messages are JSON,
each ended by a NUL byte, written to the browser's fd 3 and read from its fd 4. No WebSocket client needed."""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

from .failure import BenchFailure


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one page; `evaluate` runs JavaScript in it. Stop it with `close`."""

    def __init__(self, width=1440, height=900, log_path=None):
        path = chromium_path()
        if not path:
            raise BenchFailure("chromium is missing: run ops/install-deps bench")
        self.profile = tempfile.mkdtemp(prefix="attache-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def child_fds():
            # Moved out of the way first, so that dup2 always makes a new descriptor (without close-on-exec) even when
            # a pipe end already is 3 or 4.
            reading = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            writing = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        log = open(log_path, "wb") if log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--window-size={},{}".format(width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.writer = os.fdopen(to_browser_w, "wb", buffering=0)
        self.reader = os.fdopen(from_browser_r, "rb", buffering=0)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise BenchFailure("chromium did not answer in time")
            chunk = self.reader.read(65536)
            if not chunk:
                raise BenchFailure("chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=False, timeout=30, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        self.writer.write(json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise BenchFailure("{} failed: {}".format(method, answer["error"]))
                return answer.get("result", {})
            self.events.append(answer)

    def navigate(self, url):
        self.call("Page.navigate", session=True, url=url)

    def evaluate(self, expression, timeout=30):
        """The value of a JavaScript expression (a promise is waited for)."""
        result = self.call("Runtime.evaluate", session=True, timeout=timeout, expression=expression, awaitPromise=True,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise BenchFailure("page script failed: {}".format(result["exceptionDetails"]))
        return result["result"].get("value")

    def wait_for(self, expression, timeout=30, interval=0.02):
        """Polls `expression` in the page until it is truthy; returns its value."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = self.evaluate(expression)
            except BenchFailure:
                value = None  # the page is still loading: no document yet
            if value:
                return value
            time.sleep(interval)
        raise BenchFailure("the page never satisfied: {}".format(expression))

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def console_errors(self):
        return [e for e in self.events if e.get("method") in ("Runtime.exceptionThrown",)
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")]

    def close(self):
        try:
            self.writer.close()
        except OSError:
            pass
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.close()
        shutil.rmtree(self.profile, ignore_errors=True)
