"""The one Spark session factory of routelab.

Spark is routelab's execution layer, not an afterthought. All code obtains its
session from :func:`get_spark`, which

- points Spark's Python workers at the running interpreter (``PYSPARK_PYTHON``),
  otherwise pandas UDFs run in the wrong environment;
- binds to the loopback interface (``SPARK_LOCAL_IP=127.0.0.1``);
- keeps the web UI off unless ``ROUTELAB_SPARK_UI=1``;
- uses ``local[*]`` unless a master is given or ``ROUTELAB_SPARK_MASTER`` is set, so the
  same notebook runs on a cluster by setting one variable;
- starts the driver JVM quietly: routelab's ``conf/log4j2.properties`` (warnings and errors
  only, no start-up banner, no NativeCodeLoader notice) and a filter on the JVM's stderr
  that drops the JDK's "Using incubator modules" line; every other line passes through.

The session is created once per process and reused (``getOrCreate``).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_SHUFFLE_PARTITIONS = 8
# JVM start-up lines that are not warnings about the user's work (see the module docstring)
STARTUP_NOISE = (
    "WARNING: Using incubator modules",
    "Using Spark's default log4j profile",
    "Setting default log level to",
    "To adjust logging level use sc.setLogLevel",
)


MASTER_PATTERN = re.compile(
    r"^(local(\[(\*|\d+)(,\d+)?\])?|spark://[^/]+|yarn|k8s://.+|mesos://.+)$"
)


def check_master(master: str, timeout: float = 3.0) -> None:
    """Fail fast, with one clear message, on a master URL Spark would retry for a minute:
    an unknown form, or a standalone master (``spark://host:port``) nobody answers on."""
    from routelab.errors import RoutelabError

    if not MASTER_PATTERN.match(master):
        raise RoutelabError(
            f"master URL {master!r} is not one Spark knows: use local, local[N], local[*], "
            "spark://host:port, yarn or k8s://..."
        )
    if master.startswith("spark://"):
        for hostport in master.removeprefix("spark://").split(","):
            host, _, port = hostport.rpartition(":")
            if not host or not port.isdigit():
                raise RoutelabError(f"master URL {master!r}: expected spark://host:port")
            try:
                socket.create_connection((host, int(port)), timeout=timeout).close()
            except OSError as exc:
                raise RoutelabError(
                    f"no Spark master answers at {host}:{port} ({exc.strerror or exc}); "
                    "is it running? (see README, 'Running on a Spark cluster')"
                ) from None


def log4j_config() -> Path:
    """routelab's log4j2 configuration for the driver (package data)."""
    return Path(__file__).with_name("conf") / "log4j2.properties"


def _forward_stderr(stream: IO[bytes]) -> None:
    """Copy the JVM's stderr to ours, without the start-up noise."""
    for line in iter(stream.readline, b""):
        if not any(marker.encode() in line for marker in STARTUP_NOISE):
            try:
                os.write(2, line)
            except OSError:  # pragma: no cover - stderr closed at exit
                return


def _launch_quiet_gateway(conf: dict[str, str]) -> None:
    """Start the driver JVM ourselves (once per process) with its stderr filtered."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    spark_conf = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    gateway = launch_gateway(spark_conf, popen_kwargs={"stderr": subprocess.PIPE})
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.stderr is not None:
        threading.Thread(
            target=_forward_stderr, args=(proc.stderr,), name="spark-stderr", daemon=True
        ).start()
    SparkContext._gateway = gateway
    SparkContext._jvm = gateway.jvm


def _configure_environment() -> None:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


def get_spark(
    master: str | None = None,
    app_name: str = "routelab",
    *,
    shuffle_partitions: int | None = None,
    driver_memory: str | None = None,
    extra_conf: dict[str, str] | None = None,
    quiet: bool = False,
) -> SparkSession:
    """Return the process-wide Spark session, creating it on first use.

    Args:
        master: Spark master URL; default ``$ROUTELAB_SPARK_MASTER`` or ``local[*]``.
        app_name: application name shown in Spark's logs.
        shuffle_partitions: ``spark.sql.shuffle.partitions`` (default 8, right for a
            2-core machine; raise it on a cluster).
        driver_memory: ``spark.driver.memory`` (default ``$ROUTELAB_DRIVER_MEMORY`` or 4g);
            only effective when this call starts the JVM.
        extra_conf: further Spark settings.
        quiet: silence Spark's own ERROR logs (Java stack traces of failed reads) unless
            ``ROUTELAB_SPARK_LOG_LEVEL`` is set: for commands that report errors themselves.
    """
    _configure_environment()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        if quiet and "ROUTELAB_SPARK_LOG_LEVEL" not in os.environ:
            active.sparkContext.setLogLevel("FATAL")
        _stamp_task_env(active)
        return active
    master = master or os.environ.get("ROUTELAB_SPARK_MASTER") or "local[*]"
    check_master(master)
    ui = os.environ.get("ROUTELAB_SPARK_UI", "0") == "1"
    partitions = shuffle_partitions or int(
        os.environ.get("ROUTELAB_SHUFFLE_PARTITIONS", DEFAULT_SHUFFLE_PARTITIONS)
    )
    conf = {
        "spark.ui.enabled": str(ui).lower(),
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(partitions),
        "spark.default.parallelism": str(max(2, partitions)),
        "spark.driver.memory": driver_memory or os.environ.get("ROUTELAB_DRIVER_MEMORY", "4g"),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.python.worker.reuse": "true",
        "spark.sql.adaptive.enabled": "true",
    }
    extra = dict(extra_conf or {})
    java_options = f"-Dlog4j2.configurationFile=file:{log4j_config()}"
    user_options = extra.pop("spark.driver.extraJavaOptions", "")
    conf["spark.driver.extraJavaOptions"] = f"{java_options} {user_options}".strip()
    conf.update(extra)
    _launch_quiet_gateway({"spark.master": master, "spark.app.name": app_name, **conf})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    default_level = "FATAL" if quiet else "ERROR"
    spark.sparkContext.setLogLevel(os.environ.get("ROUTELAB_SPARK_LOG_LEVEL", default_level))
    _stamp_task_env(spark)
    return spark


def _stamp_task_env(spark: SparkSession) -> None:
    """Hand this process's clock of timed regions (``routelab.timing``) and its flipped
    reading (``routelab.readings``) to the tasks of jobs built from now on, so a timed region
    on an executor reads the same clock as the driver and a task the same reading."""
    from routelab.readings import FLIP_ENV, flipped
    from routelab.timing import CLOCK_ENV, clock_name

    spark.sparkContext.environment[CLOCK_ENV] = clock_name()
    # a reading flipped for this run (routelab.readings) reaches the tasks too
    spark.sparkContext.environment[FLIP_ENV] = flipped() or ""


def task_slots(spark: SparkSession) -> int:
    """How many tasks run at once: the N of ``local[N]`` (``local[*]``: this process's
    usable cores), else the executors' cores as Spark reports them."""
    master = spark.sparkContext.master
    m = re.match(r"^local(?:\[(\*|\d+)(?:,\d+)?\])?$", master)
    if m:
        if m.group(1) in (None, ""):
            return 1
        if m.group(1) == "*":
            return (
                len(os.sched_getaffinity(0))
                if hasattr(os, "sched_getaffinity")
                else os.cpu_count() or 1
            )
        return int(m.group(1))
    try:
        return max(1, int(spark.sparkContext._jsc.sc().totalCores()))
    except Exception:  # noqa: BLE001 (not every backend reports it)
        return max(1, spark.sparkContext.defaultParallelism)


def stop_spark() -> None:
    """Stop the process-wide session if one is running."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
