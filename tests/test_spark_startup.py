"""The Spark session starts quietly, and real warnings still get through."""

from __future__ import annotations

import subprocess
import sys

import pytest

from routelab.spark import STARTUP_NOISE, _forward_stderr, log4j_config

SCRIPT = """
from routelab.spark import get_spark
spark = get_spark(master="local[1]", app_name="quiet")
assert spark.range(5).count() == 5
spark.sparkContext._jvm.org.apache.log4j.LogManager.getLogger("routelab.test").error("REAL-ERROR")
import time; time.sleep(0.5)
"""


@pytest.mark.spark
def test_session_start_prints_no_startup_noise_but_keeps_real_warnings(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    for marker in (*STARTUP_NOISE, "NativeCodeLoader"):
        assert marker not in proc.stderr, f"start-up noise {marker!r} in:\n{proc.stderr}"
    assert "REAL-ERROR" in proc.stderr


def test_stderr_filter_drops_only_the_noise(tmp_path, capfd):
    import io

    lines = b"WARNING: Using incubator modules: jdk.incubator.vector\nWARN Executor: lost\n"
    _forward_stderr(io.BytesIO(lines))
    err = capfd.readouterr().err
    assert err == "WARN Executor: lost\n"


def test_log4j_config_is_shipped_with_the_package():
    text = log4j_config().read_text()
    assert "rootLogger.level = warn" in text and "NativeCodeLoader" in text


def test_bad_master_urls_fail_fast_with_one_message():
    from routelab.errors import RoutelabError
    from routelab.spark import check_master

    for good in ("local", "local[2]", "local[*]", "local[4,2]", "yarn", "k8s://https://h:443"):
        check_master(good)
    with pytest.raises(RoutelabError, match="not one Spark knows"):
        check_master("sprak://127.0.0.1:7077")
    with pytest.raises(RoutelabError, match="expected spark://host:port"):
        check_master("spark://127.0.0.1")
    with pytest.raises(RoutelabError, match="no Spark master answers at 127.0.0.1:1"):
        check_master("spark://127.0.0.1:1")


def test_cli_reports_an_unreachable_master_without_a_traceback(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "routelab.cli",
            "generate",
            "tweets",
            "--n",
            "10",
            "--out",
            str(tmp_path / "x"),
            "--master",
            "spark://127.0.0.1:1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "no Spark master answers" in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
