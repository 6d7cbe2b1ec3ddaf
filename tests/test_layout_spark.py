"""Spark where it belongs: only the modules of an explicit allow-list import Spark.

A module *imports Spark* when, anywhere in it (module level, inside a function, under
``if TYPE_CHECKING:``), it imports ``pyspark`` or a ``pyspark.*`` module, or the session
factory :mod:`routelab.spark` (the way the rest of routelab gets a session), by an
``import`` statement or by ``importlib.import_module`` / ``__import__`` with a string. A
module that imports by a name computed at run time (``import_module(name)``, as
``routelab.benchmarks`` and ``routelab.cli`` do) is judged by every string constant it
holds: one naming ``pyspark`` or ``routelab.spark`` counts as an import.

Annotation-only imports count too: a module typed against ``SparkSession`` or
``DataFrame`` calls Spark's API on what it is handed (``s3tm.streaming`` imports pyspark
only for annotations and is wholly a Spark job).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"
ROOT = LIB / "routelab"
SESSION_FACTORY = "routelab.spark"

# module -> why it may import Spark. A new entry needs a reason of the same kind; Spark
# code that is none of these belongs in the system's ``dataflow.py``.
ALLOWED: dict[str, str] = {
    # --- the session factory and the sweep runner
    "routelab.spark": "the one session factory (README 'Spark'): builds the SparkSession",
    "routelab.sweep": "the sweep runner: grid points as Spark tasks, broadcast values",
    # --- the dataflow modules: each system's Spark version
    "routelab.s3tm.dataflow": "S3-TM's Router -> Matchers -> Dispatcher and word network on Spark",
    "routelab.s3tm.streaming": "the same S3-TM dataflow as a Structured Streaming job "
    "(readStream + foreachBatch over s3tm.dataflow): wholly Spark, the dataflow's streaming "
    "twin, kept in its own file as the README maps it",
    "routelab.grouping.dataflow": "PKG's sources as Spark partitions",
    "routelab.filtering.dataflow": "Fabret matcher instances as Spark partitions",
    "routelab.spatial.dataflow": "PS2Stream's dispatchers and workers as Spark tasks, and the "
    "adjusted replay's workers (SparkWorkers)",
    # --- readers that must read with Spark (inputs of any size, read before collecting)
    "routelab.s3tm.io": "load_posts reads a user's word-set posts (routelab s3tm route|match) "
    "with corpus.preprocess.read_posts and selects the columns on Spark before collecting",
    "routelab.s3tm.wordsets": "Corpus.from_spark / subscribed_words read a Spark DataFrame of "
    "posts or subscriptions: word ids are assigned on Spark (explode + broadcast join) so "
    "only (post, word id) pairs are collected; as_corpus dispatches to it, and moving it to "
    "s3tm.dataflow would make wordsets and dataflow import each other",
    "routelab.corpus.corpora": "bundled_posts returns the cached bundled corpus as Spark "
    "DataFrames (preprocessed on Spark on first use)",
    "routelab.corpus.preprocess": "the corpus side's Spark pipeline: posts -> word sets "
    "(Sect. 6.1 cleaning as a pandas_udf), and read_posts, the reader of word-set files",
    "routelab.corpus.stats": "Table 1 and Fig. 4 counted on the Spark DataFrame of word sets "
    "(pairs over the whole corpus, not collected)",
    "routelab.corpus.subscriptions": "tweet/topic subscriptions drawn from the Spark posts "
    "(routelab s3tm subscriptions reads them with Spark)",
    "routelab.datasets.bundled": "read_prepared_spark: the prepared datasets as Spark DataFrames",
    "routelab.datasets.synthetic": "the synthetic generators produce their blocks as Spark "
    "partitions (spark.range(n_blocks)), independent of the partition count",
    "routelab.datasets.loaders.files": "users' files as Hadoop file statuses; Spark's read "
    "errors as BadInputError",
    "routelab.datasets.loaders.spark_map": "the loaders' Spark side: parsers mapped over "
    "lines, whole files or Parquet rows of a user's data",
    "routelab.datasets.loaders.public": "the public loaders read Twitter JSON, tables and key "
    "streams through spark_map (typed against SparkSession)",
    # --- CLI verbs that run a Spark job: each starts the session (--master) through the
    #     factory and hands it to the readers / dataflows above
    "routelab.commands.filtering": "`routelab filtering match` runs filtering.dataflow",
    "routelab.commands.generate": "`routelab generate` writes synthetic data through Spark",
    "routelab.commands.grouping": "`routelab grouping` reads its key stream with Spark",
    "routelab.commands.preprocess": "`routelab s3tm preprocess` runs corpus.preprocess",
    "routelab.commands.s3tm_match": "`routelab s3tm match` reads posts with s3tm.io",
    "routelab.commands.s3tm_route": "`routelab s3tm route` reads posts with s3tm.io",
    "routelab.commands.spatial": "`routelab spatial match` runs spatial.dataflow",
    "routelab.commands.stats": "`routelab s3tm stats` runs corpus.stats",
    "routelab.commands.subscriptions": "`routelab s3tm subscriptions` runs corpus.subscriptions",
    # --- notebook code that reads the bundled corpus (a Spark DataFrame) or measures Spark
    "routelab.corpus.lab.bench": "`routelab bench preprocess` measures the Spark pipeline",
    "routelab.corpus.lab.claims": "notebook 01's cleaning check counts leftover tokens over "
    "the Spark word sets (like corpus.stats)",
    "routelab.s3tm.lab.matching.scaling": "notebook 04 hands the session to bundled_posts and "
    "s3tm.dataflow (typed against SparkSession)",
    "routelab.s3tm.lab.routing.workloads": "notebook 03 reads the bundled corpus with "
    "bundled_posts(spark) (typed against SparkSession)",
    "routelab.s3tm.lab.drift.experiments": "notebook 05 filters the bundled corpus by time "
    "and source on Spark before collecting",
    "routelab.compare.stream": "starts a session for the bundled corpus when none is given; "
    "being reorganised by another change, not moved here",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(LIB).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_spark(name: str) -> bool:
    return name == "pyspark" or name.startswith("pyspark.") or name == SESSION_FACTORY


def spark_imports(source: str, module: str) -> set[str]:
    """The Spark modules (``pyspark...`` or the session factory) ``source``, the text of
    ``module``, imports anywhere, by statement or by name (module docstring)."""
    tree = ast.parse(source)
    package = module.rpartition(".")[0]
    found: set[str] = set()
    by_computed_name = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if _is_spark(a.name))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if _is_spark(base):
                found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if _is_spark(f"{base}.{a.name}"))
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called not in ("import_module", "__import__") or not node.args:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if _is_spark(arg.value):
                    found.add(arg.value)
            else:
                by_computed_name = True
    if by_computed_name:
        found.update(
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and _is_spark(n.value)
        )
    return found


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
SPARK = {name: spark_imports(path.read_text(), name) for name, path in MODULES.items()}


def test_only_allowed_modules_import_spark():
    offenders = sorted(
        f"{name} imports {sorted(found)}"
        for name, found in SPARK.items()
        if found and name not in ALLOWED
    )
    assert not offenders, (
        "Spark code belongs in a dataflow module, the session factory, the sweep runner or "
        "a reader on tests/test_layout_spark.py's allow-list (with its reason):\n"
        + "\n".join(offenders)
    )


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_every_allow_list_entry_exists_imports_spark_and_says_why(name):
    assert name in MODULES, f"{name} is allowed but no longer exists"
    assert SPARK[name], f"{name} no longer imports Spark: drop it from the allow-list"
    assert len(ALLOWED[name]) > 20


def test_the_dataflow_modules_are_allowed():
    assert {n for n in MODULES if n.endswith(".dataflow")} <= set(ALLOWED)


@pytest.mark.parametrize(
    "source",
    [
        "import pyspark",
        "from pyspark.sql import functions as F",
        "def f():\n    import pyspark.sql.functions as F",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pyspark.sql import DataFrame",
        "from routelab.spark import get_spark",
        "from routelab import spark",
        "def f():\n    from ..spark import get_spark",
        "import importlib\nimportlib.import_module('pyspark.sql')",
        "from importlib import import_module\nm = import_module('routelab.spark')",
        "__import__('pyspark')",
        "import importlib\nNAMES = ('pyspark.sql',)\nmods = [importlib.import_module(n) for n in NAMES]",
    ],
)
def test_the_check_sees_every_way_of_importing_spark(source):
    assert spark_imports(source, "routelab.pkg.mod")


@pytest.mark.parametrize(
    "source",
    [
        "import pandas",
        "from routelab.sparkline import x",
        "import importlib\nimportlib.import_module('routelab.spatial.engine')",
        "'''a docstring that mentions pyspark'''\nimport numpy",
        "import importlib\nNAMES = ('routelab.corpus.lab.bench',)\n"
        "mods = [importlib.import_module(n) for n in NAMES]",
    ],
)
def test_the_check_does_not_see_spark_where_there_is_none(source):
    assert not spark_imports(source, "routelab.pkg.mod")
