"""Shared by the browser tests: serves web/dist, starts headless Chromium through Selenium, and
drives Corvid's UCI worker line by line, as a GUI does."""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "web"))

import serve  # noqa: E402  (web/serve.py)
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

DIST = os.path.join(ROOT, "web", "dist")


def shot(name):
    """Where a screenshot named `name` goes, to be looked at: $CORVID_SHOTS, else the temporary
    folder."""
    import tempfile

    folder = os.environ.get("CORVID_SHOTS", tempfile.gettempdir())
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"corvid-{name}.png")


def chromium():
    """Headless Chromium, as root in a sandbox-less container, with nothing reaching out."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CORVID_CHROMIUM", "/usr/bin/chromium")
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1200,900"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CORVID_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


class Worker:
    """The UCI worker of a loaded page, and every line it has posted."""

    def __init__(self, driver, query="", make=None):
        """The page's `corvid-worker.js` (with `query`), or the worker the JavaScript expression
        `make` gives."""
        self.driver = driver
        self.seen = 0
        make = make or "new Worker('corvid-worker.js' + arguments[0])"
        driver.execute_script(
            f"""
            window.T = {{lines: [], worker: {make}}};
            T.worker.onmessage = (e) => T.lines.push(String(e.data));
            T.worker.onerror = (e) => T.lines.push('WORKER ERROR ' + e.message);
            """,
            query,
        )

    def send(self, line):
        self.driver.execute_script("T.worker.postMessage(arguments[0])", line)

    def lines(self):
        return self.driver.execute_script("return T.lines")

    def new_lines(self):
        """Lines posted since the last call."""
        lines = self.lines()
        fresh, self.seen = lines[self.seen:], len(lines)
        return fresh

    def wait_for(self, test, timeout, what):
        """Lines posted from now until one passes `test` (that one included); fails after
        `timeout` seconds."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            for line in self.new_lines():
                got.append(line)
                if test(line):
                    return got
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s; got {got[-8:]}")
            time.sleep(0.01)

    def quiet_for(self, seconds):
        """Lines posted within `seconds`."""
        time.sleep(seconds)
        return self.new_lines()


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
