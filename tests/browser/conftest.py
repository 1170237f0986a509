"""The browser tier: JupyterLab on a free local port, driven by Playwright in headless
Chromium (Debian's ``chromium`` package: Playwright's own browser download cannot work
offline). Everything skips with the reason when the browser, Playwright or JupyterLab is
missing; ``make test`` installs the Python side and ``.ci/run`` installs chromium.

Set ``TI_SCREENSHOT_DIR`` to keep the screenshots the tests take (the README's picture
comes from ``make screenshot``)."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
SERVER_START_S = 90


def chromium_path() -> str | None:
    found = os.environ.get("TI_CHROMIUM")
    for candidate in (found, *CHROMIUM_PATHS):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"JupyterLab did not answer in {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium: apt-get install chromium (as root); .ci/run does it")
    pytest.importorskip("playwright.sync_api", reason="pip install playwright (make test does)")
    return path


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory, chromium_executable):
    """(base URL, token, notebook folder) of a JupyterLab serving a temporary folder."""
    pytest.importorskip("jupyterlab", reason="pip install jupyterlab (make test does)")
    root = tmp_path_factory.mktemp("lab")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    # a private runtime/config so a developer's own JupyterLab settings play no part
    for name in ("JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[name] = str(tmp_path_factory.mktemp(name.lower()))
    settings = tmp_path_factory.mktemp("lab_settings")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text('{"fetchNews": "false"}')  # no "Jupyter news?" toast over the page
    # every cell in the DOM: JupyterLab 4 renders long notebooks lazily ("windowing"), so a
    # cell scrolled out of view would show a stale prompt to the checks
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    env["TI_OFFLINE_CACHE_FILE_PATH"] = str(tmp_path_factory.mktemp("ti_cache"))
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # root is usual in containers and CI
    log = root.parent / f"{root.name}-server.log"
    with log.open("w") as out:
        server = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/api/status?token={token}", server, log)
        yield base, token, root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="session")
def browser(chromium_executable):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=chromium_executable,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def screenshot_dir(tmp_path) -> Path:
    where = os.environ.get("TI_SCREENSHOT_DIR")
    return Path(where) if where else tmp_path
