"""The Spark session starts quietly, and real warnings still get through (issue 13, item 5)."""

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
