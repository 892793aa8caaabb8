"""Real-browser fixtures: a uvicorn server on a free loopback port and Debian's Chromium.

Playwright cannot download its own browser here, so Chromium comes from the machine:
``CHROMIUM_PATH``, else Debian's ``chromium-headless-shell``, else ``chromium`` on PATH
(``make test`` installs both on Debian).  The headless shell is the same Chromium build without the
desktop browser around it, the build Playwright itself runs headless; it costs about 40% less CPU
per page than ``chromium --headless`` here, which is most of the suite's time.  A missing browser
is a test failure, never a skip.

One live server and one Chromium per test process (session fixtures): under pytest-xdist each
worker starts its own when it runs its first browser test.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest
import uvicorn
from playwright.sync_api import sync_playwright

from app.main import create_app
from tests.browser.helpers import moved_and_fresh_tabs

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


def chromium_path(headless_shell: bool = False) -> str:
    """CHROMIUM_PATH, else a Chromium on PATH; ``headless_shell`` tries chromium-headless-shell first
    (the tests do; bench/browser.py measures the full browser a person uses)."""
    names: tuple[str, ...] = ("chromium", "chromium-browser", "google-chrome")
    if headless_shell:
        names = ("chromium-headless-shell", *names)
    candidates = [os.environ.get("CHROMIUM_PATH", "")]
    candidates += [shutil.which(name) or "" for name in names]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(
        "No Chromium found for the browser tests: install Debian's 'chromium-headless-shell' or 'chromium' "
        "(make test does this as root) "
        "or set CHROMIUM_PATH to a Chrome/Chromium binary."
    )


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # runs in a thread
        pass


@pytest.fixture(scope="session")
def base_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    server = _Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            pytest.fail("test server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def playwright():
    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="session")
def browser(playwright):
    instance = playwright.chromium.launch(executable_path=chromium_path(headless_shell=True), args=CHROMIUM_ARGS)
    yield instance
    instance.close()


CONTEXT_OPTIONS = {"viewport": {"width": 1280, "height": 900}, "accept_downloads": True}


@pytest.fixture
def context(browser):
    """A fresh context (empty cache, no cookies, no routes) for a test that needs one of its own."""
    ctx = browser.new_context(**CONTEXT_OPTIONS)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def warm_context(playwright, tmp_path_factory):
    """One context per test process for the ``page`` fixture.  Each test still gets a new page (its own
    URL, listeners, init scripts and routes); what it shares is the HTTP and code cache, so plotly.js
    (3.5 MB) is downloaded and compiled once per process instead of once per test.

    It is a persistent context (a profile directory of its own, in a second Chromium) because Chromium
    keeps no compiled-code cache for in-memory profiles, which ``browser.new_context()`` makes: there
    every page load evaluated plotly.js from its source again, about 1 s of a 1.3 s load here; with the
    profile's code cache a load takes about 0.4 s from the third on.  The app keeps no state in cookies
    or storage (the URL is the only state), and cookies are cleared after each test anyway.  Tests about
    a first visit or isolation use ``context``."""
    ctx = playwright.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("profile"),
        executable_path=chromium_path(headless_shell=True),
        args=CHROMIUM_ARGS,
        **CONTEXT_OPTIONS,
    )
    yield ctx
    ctx.close()


class ConsoleWatch:
    """Collects console errors, page errors, CSP violations and requests to other origins."""

    def __init__(self, page, base_url: str) -> None:
        self.problems: list[str] = []
        self.expected_statuses: set[int] = set()
        self.foreign: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on("request", lambda req: None if req.url.startswith((base_url, "data:", "blob:")) else self.foreign.append(req.url))

    def expect_status(self, status: int) -> None:
        """The test provokes responses with this status on purpose; the browser logs each one."""
        self.expected_statuses.add(status)

    def _console(self, msg) -> None:
        if msg.type not in ("error", "warning"):
            return
        text = msg.text
        if any(f"status of {status} " in text for status in self.expected_statuses):
            return
        if msg.type == "warning" and "Content Security Policy" not in text:
            return
        self.problems.append(f"console {msg.type}: {text}")


@pytest.fixture
def page(warm_context, base_url):
    pg = warm_context.new_page()
    watch = ConsoleWatch(pg, base_url)
    pg.watch = watch
    yield pg
    pg.close()
    warm_context.clear_cookies()
    warm_context.clear_permissions()
    assert watch.problems == [], watch.problems
    assert watch.foreign == [], f"requests left the origin: {watch.foreign}"


@pytest.fixture(scope="module")
def tabs(browser, base_url):
    """Two watched tabs of one context for a test module (helpers.moved_and_fresh_tabs): one whose
    controls a test moves, one for fresh loads of the address it reaches; neither may log a problem."""
    context, moved, fresh = moved_and_fresh_tabs(browser, base_url)
    yield moved, fresh
    for tab in (moved, fresh):
        assert tab.watch.problems == [], tab.watch.problems
    context.close()
