"""Access to the prepared real datasets (``<prepared_dir>/<name>.parquet``).

The files are made by ``routelab datasets fetch && routelab datasets prepare`` (or
``make setup``); their columns are the contract in
:data:`routelab.datasets.registry.SOURCES`. Readers raise one clear
:class:`~routelab.errors.DatasetError` when a file is missing instead of a deep
pyarrow/Spark traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from routelab.datasets.registry import get_source
from routelab.errors import DatasetError
from routelab.paths import prepared_dir

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession


def prepared_path(name: str) -> Path:
    """Path of the prepared Parquet file of dataset ``name``.

    Raises:
        DatasetError: ``name`` is unknown, or the file has not been prepared yet.
    """
    source = get_source(name)
    path = prepared_dir() / f"{source.name}.parquet"
    if not path.is_file():
        raise DatasetError(
            f"prepared dataset {name!r} ({source.packages}) not found at {path}; "
            f"run `make setup` or `routelab datasets fetch && routelab datasets prepare`"
        )
    return path


def read_prepared(name: str, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The prepared dataset as a pandas DataFrame (``ts`` is ``datetime64[us, UTC]``).

    Args:
        name: a dataset of :data:`~routelab.datasets.registry.SOURCES`.
        columns: read only these columns (default: all, in contract order).
    """
    import pyarrow.parquet as pq

    path = prepared_path(name)
    source = get_source(name)
    known = [c for c, _ in source.columns]
    wanted = list(columns) if columns is not None else known
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise DatasetError(f"dataset {name!r} has no column(s) {unknown}; columns: {known}")
    return pq.read_table(path, columns=wanted).to_pandas()


def read_prepared_spark(spark: SparkSession, name: str) -> SparkDataFrame:
    """The prepared dataset as a Spark DataFrame (``ts`` is a ``TimestampType``)."""
    return spark.read.parquet(str(prepared_path(name)))
