"""JupyterLab as a user starts it: the server lists the notebooks through its REST API, a
session opens a notebook on the ``routelab`` kernel, and its first cells execute there.
The notebook file is not modified by being opened.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

from routelab.jupyter_kernel import KERNEL_NAME
from routelab.paths import notebooks_dir, repo_root

pytestmark = [pytest.mark.lab, pytest.mark.slow]

NOTEBOOK = "01_corpus"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    port, token = _free_port(), secrets.token_hex(16)
    logs = tmp_path_factory.mktemp("lab")
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("jupyter")),
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={repo_root()}",
        ],
        stdout=(logs / "lab.log").open("w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "JUPYTER_RUNTIME_DIR": str(logs / "runtime")},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                _get(base, "/api/status", token)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(logs / 'lab.log').read_text()}")
                time.sleep(1)
        yield base, token, port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _request(base: str, path: str, token: str, body: dict | None = None, method="GET"):
    req = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as response:
        return json.loads(response.read() or b"null")


def _get(base: str, path: str, token: str):
    return _request(base, path, token)


def test_server_lists_the_notebooks_and_the_kernel(lab):
    base, token, _ = lab
    listing = _get(base, "/api/contents/notebooks", token)
    names = {item["name"] for item in listing["content"]}
    expected = {p.name for p in notebooks_dir().glob("[0-9][0-9]_*.ipynb")}
    assert expected and expected <= names
    specs = _get(base, "/api/kernelspecs", token)["kernelspecs"]
    assert KERNEL_NAME in specs


async def _execute(port: int, token: str, kernel_id: str, codes: list[str]) -> list[dict]:
    """Run each code string in the kernel over the websocket, as Lab does; return per
    cell its status, stdout and errors."""
    from tornado.websocket import websocket_connect

    url = f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?token={token}"
    ws = await websocket_connect(url)
    session = uuid.uuid4().hex
    results = []
    for code in codes:
        msg_id = uuid.uuid4().hex
        await ws.write_message(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "session": session,
                        "username": "test",
                        "version": "5.3",
                        "date": "",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                    "channel": "shell",
                }
            )
        )
        out = {"stdout": "", "errors": [], "status": None}
        while out["status"] is None:
            raw = await asyncio.wait_for(ws.read_message(), timeout=600)
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if kind == "stream" and msg["content"]["name"] == "stdout":
                out["stdout"] += msg["content"]["text"]
            elif kind == "error":
                out["errors"].append(f"{msg['content']['ename']}: {msg['content']['evalue']}")
            elif kind == "execute_reply":
                out["status"] = msg["content"]["status"]
        results.append(out)
    ws.close()
    return results


def test_a_notebook_opens_on_the_routelab_kernel_and_runs_its_first_cells(lab):
    base, token, port = lab
    path = notebooks_dir() / f"{NOTEBOOK}.ipynb"
    before = path.read_bytes()
    session = _request(
        base,
        "/api/sessions",
        token,
        {"path": f"notebooks/{path.name}", "type": "notebook", "kernel": {"name": KERNEL_NAME}},
        method="POST",
    )
    kernel = session["kernel"]
    assert kernel["name"] == KERNEL_NAME
    nb = nbformat.read(path, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    # the parameters cell, the profile chosen as a user would in Lab, apply_profile, imports
    cells = [code[0], 'profile = "smoke"', code[1], code[2]]
    try:
        results = asyncio.run(_execute(port, token, kernel["id"], cells))
    finally:
        _request(base, f"/api/sessions/{session['id']}", token, method="DELETE")
    for cell, out in zip(cells, results, strict=True):
        assert out["status"] == "ok" and not out["errors"], (cell, out)
    assert "profile 'smoke'; applied" in results[2]["stdout"]
    assert path.read_bytes() == before, "opening the notebook changed the file"
