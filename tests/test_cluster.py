"""A real Spark standalone cluster on 127.0.0.1: one master, one worker, and routelab's CLI
and one notebook run against it by nothing more than the master URL.

The master's JSON status page lists the applications it ran; the test checks that the
command's and the notebook's Spark applications are there and ran on the worker.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

ROUTELAB = Path(sys.executable).with_name("routelab")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    logs = tmp_path_factory.mktemp("cluster")
    env = {
        **os.environ,
        "SPARK_HOME": str(spark_home),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(logs),
        "PYSPARK_PYTHON": sys.executable,
    }
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    spark_class = str(spark_home / "bin" / "spark-class")
    procs = [
        subprocess.Popen(
            [
                spark_class,
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(ui),
            ],
            env=env,
            stdout=(logs / "master.log").open("w"),
            stderr=subprocess.STDOUT,
        )
    ]
    status_url = f"http://127.0.0.1:{ui}/json/"
    try:
        deadline = time.time() + 120
        while True:
            try:
                _status(status_url)
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail(f"master did not start: {(logs / 'master.log').read_text()}")
                time.sleep(1)
        procs.append(
            subprocess.Popen(
                [
                    spark_class,
                    "org.apache.spark.deploy.worker.Worker",
                    master_url,
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "2",
                    "--memory",
                    "3g",
                    "--webui-port",
                    str(worker_ui),
                    "--work-dir",
                    str(logs / "work"),
                ],
                env=env,
                stdout=(logs / "worker.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        while not [w for w in _status(status_url)["workers"] if w["state"] == "ALIVE"]:
            if time.time() > deadline:
                pytest.fail(f"worker did not register: {(logs / 'worker.log').read_text()}")
            time.sleep(1)
        yield master_url, status_url
    finally:
        for proc in procs[::-1]:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _app_names(status_url: str) -> set[str]:
    status = _status(status_url)
    return {a["name"] for a in status["activeapps"] + status["completedapps"]}


def test_cli_command_runs_on_the_cluster(cluster, tmp_path):
    master_url, status_url = cluster
    out = tmp_path / "posts"
    proc = subprocess.run(
        [
            str(ROUTELAB),
            "generate",
            "tweets",
            "--n",
            "2000",
            "--out",
            str(out),
            "--seed",
            "3",
            "--master",
            master_url,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(out.glob("*.parquet")) or list(out.rglob("*.parquet"))
    assert "routelab-generate" in _app_names(status_url)


def test_notebook_runs_on_the_cluster(cluster, tmp_path):
    master_url, status_url = cluster
    env = {
        **os.environ,
        "ROUTELAB_FIGURES_DIR": str(tmp_path / "figures"),
        "ROUTELAB_RUNS_DIR": str(tmp_path / "runs"),
        "ROUTELAB_STATIC_FIGURES": "0",
    }
    proc = subprocess.run(
        [
            str(ROUTELAB),
            "figures",
            "--profile",
            "smoke",
            "--only",
            "01_corpus",
            "--master",
            master_url,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "01_corpus" in _app_names(status_url)
    results = json.loads((tmp_path / "figures" / "01_corpus" / "results.json").read_text())
    assert results["claims"]
