"""The Spark side of the loaders: the parsers mapped over lines, whole files or Parquet
rows, line numbers across splits, the bad-record report, :class:`LoadResult`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from routelab.badrecords import MAX_EXAMPLES, BadRecordExample, BadRecordReport
from routelab.datasets.loaders.files import _Files, _uri_key, spark_read_errors
from routelab.datasets.loaders.records import (
    _KEY_PARSED,
    _POST_PARSED,
    _TRAILER,
    KEY_COLUMNS,
    POST_COLUMNS,
    _Input,
    _TableSpec,
)
from routelab.datasets.loaders.values import _FATAL, TIME_FORMATS
from routelab.errors import BadInputError

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession


@dataclass
class LoadResult:
    """What a loader returns: the good rows and the report of skipped ones."""

    df: DataFrame
    report: BadRecordReport = field(default_factory=BadRecordReport)
    _cached: Any = None

    def unpersist(self) -> None:
        """Release the parsed rows the loader keeps cached (``df`` stays usable)."""
        if self._cached is not None:
            self._cached.unpersist()
            self._cached = None


def _schema(kind: str) -> str:
    head = (
        "post_id long, ts_us long, text string, lat double, lon double"
        if kind == "posts"
        else "key long, key_name string, ts_us long"
    )
    return head + (
        ", line long, file string, source string, reason string, detail string, excerpt string"
    )


_INT_COLUMNS = frozenset({"post_id", "ts_us", "key", "line"})
_FLOAT_COLUMNS = frozenset({"lat", "lon"})


def _frame(rows: list[tuple], kind: str) -> pd.DataFrame:
    """Outcome rows -> a pandas frame with exact nullable int64 columns (no float detour)."""
    import pandas as pd

    names = (_POST_PARSED if kind == "posts" else _KEY_PARSED) + _TRAILER
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    data = {}
    for name, values in zip(names, columns, strict=True):
        if name in _INT_COLUMNS:
            data[name] = pd.array(values, dtype="Int64")
        elif name in _FLOAT_COLUMNS:
            data[name] = pd.array(values, dtype="Float64")
        else:
            data[name] = pd.array(values, dtype=object)
    return pd.DataFrame(data)


class _Examples:
    """Keeps excerpts only for the first few bad records per (reason, file) of a task.

    Rows of one file reach a task in line order, so the union over tasks holds the
    globally first examples; the other bad rows are only counted (small cache, tiny
    example query)."""

    def __init__(self, limit: int = MAX_EXAMPLES) -> None:
        self.limit = limit
        self.seen: dict[tuple[str, str], int] = {}

    def attach(self, outcome: tuple, line: int, inp: _Input) -> tuple:
        """``outcome`` = parsed fields + (reason, detail, excerpt) -> a full output row."""
        reason = outcome[-3]
        tail = outcome[-3:]
        if reason is not None:
            key = (reason, inp.display)
            count = self.seen.get(key, 0)
            self.seen[key] = count + 1
            if count >= self.limit and reason != _FATAL:
                tail = (reason, None, None)
        return outcome[:-3] + (line, inp.display, inp.source) + tail


def _parse_bytes(text: str) -> int:
    """Spark's byte sizes: ``4194304``, ``4194304b``, ``4m``, ``4mb`` ..."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", text.lower())
    if not m:
        return 4 << 20
    return int(m.group(1)) << (10 * " kmgt".index(m.group(2) or " "))


def _line_bases(spark: SparkSession, inputs: Sequence[_Input]) -> dict[tuple[Any, int], int]:
    """First line number of every split of the (big) line files (see module doc)."""
    import pyspark.sql.functions as F

    # Spark splits a file only when it is larger than its split size, which is at least
    # min(openCostInBytes, maxPartitionBytes)
    unsplit = min(
        _parse_bytes(spark.conf.get("spark.sql.files.openCostInBytes", "4mb")),
        _parse_bytes(spark.conf.get("spark.sql.files.maxPartitionBytes", "128mb")),
    )
    big = [i for i in inputs if i.size > unsplit and not i.path.endswith(".gz")]
    bases: dict[tuple[tuple[str, str, str], int], int] = {
        (_uri_key(i.uri, True), 0): 1 for i in inputs
    }
    if not big:
        return bases
    counts = (
        spark.read.text([i.path for i in big])
        .select(
            F.col("_metadata.file_path").alias("f"), F.col("_metadata.file_block_start").alias("b")
        )
        .groupBy("f", "b")
        .count()
        .collect()
    )
    per_file: dict[str, list[tuple[int, int]]] = {}
    for row in counts:
        per_file.setdefault(row["f"], []).append((int(row["b"]), int(row["count"])))
    for uri, blocks in per_file.items():
        first = 1
        for start, count in sorted(blocks):
            bases[(_uri_key(uri, True), start)] = first
            first += count
    return bases


def _map_lines(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    parse: Callable[[bytes, _Input, int], list[tuple]],
) -> DataFrame:
    """Parse line files record by record with exact line numbers (one Python pass)."""
    import pyspark.sql.functions as F

    bases = _line_bases(spark, inputs)
    files = _Files(inputs)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        next_line: dict[tuple[str, int], list[int]] = {}  # per split: its next line number
        examples = _Examples()
        for batch in batches:
            rows: list[tuple] = []
            for uri, block, raw in zip(
                batch["f"].tolist(), batch["b"].tolist(), batch["v"].tolist(), strict=True
            ):
                counter = next_line.get((uri, block))
                if counter is None:
                    counter = next_line[(uri, block)] = [bases[(_uri_key(uri, True), block)]]
                line = counter[0]
                counter[0] += 1
                inp = files.encoded(uri)
                rows.extend(examples.attach(o, line, inp) for o in parse(raw, inp, line))
            yield _frame(rows, kind)

    raw = spark.read.text([i.path for i in inputs]).select(
        F.col("_metadata.file_path").alias("f"),
        F.col("_metadata.file_block_start").alias("b"),
        F.col("value").cast("binary").alias("v"),
    )
    return raw.mapInPandas(run, _schema(kind))


def _map_whole_files(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    parse: Callable[[bytes, _Input], Iterable[tuple[tuple, int]]],
) -> DataFrame:
    """Parse whole files (JSON arrays, CSV) in one task each."""
    files = _Files(inputs)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        examples = _Examples()
        for batch in batches:
            for path, content in zip(
                batch["path"].tolist(), batch["content"].tolist(), strict=True
            ):
                inp = files.plain(path)
                rows = [examples.attach(o, line, inp) for o, line in parse(content, inp)]
                yield _frame(rows, kind)

    raw = spark.read.format("binaryFile").load([i.path for i in inputs]).select("path", "content")
    return raw.mapInPandas(run, _schema(kind))


def _map_parquet(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    spec: _TableSpec,
    convert: Callable[..., tuple],
) -> DataFrame:
    """Convert Parquet rows with per-value checks; ``line`` is the 1-based row number."""
    import pyspark.sql.functions as F
    from pyspark.sql import types as T

    display = ", ".join(i.display for i in inputs[:3]) + (" ..." if len(inputs) > 3 else "")
    with spark_read_errors(display):
        table = spark.read.parquet(*[i.path for i in inputs])
        fields = {f.name: f.dataType for f in table.schema.fields}
    missing = [c for c in spec.columns() if c not in fields]
    if missing:
        raise BadInputError(f"{display}: no column(s) {missing} (columns: {list(fields)[:20]})")
    cols = [F.col("_metadata.file_path").alias("__f"), F.col("_metadata.row_index").alias("__r")]
    time_is_micros = False
    for c in spec.columns():
        dtype = fields[c]
        expr = F.col(c)
        if c == spec.time_col and isinstance(
            dtype, T.TimestampType | T.TimestampNTZType | T.DateType
        ):
            expr, time_is_micros = F.unix_micros(expr.cast("timestamp")), True
        elif c == spec.text_col and isinstance(dtype, T.StringType):
            expr = expr.cast("binary")
        elif c in (spec.id_col, spec.key_col) and isinstance(dtype, T.IntegralType | T.DecimalType):
            expr = expr.cast("string")  # pandas would turn int64 with nulls into float64
        elif isinstance(dtype, T.DecimalType):
            expr = expr.cast("double")
        cols.append(expr.alias(c))
    files = _Files(inputs)
    names = spec.columns()

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        examples = _Examples()
        for batch in batches:
            rows = []
            columns = [
                batch[c].astype(object).where(batch[c].notna(), None).tolist() for c in names
            ]
            for j, (uri, index) in enumerate(
                zip(batch["__f"].tolist(), batch["__r"].tolist(), strict=True)
            ):
                inp = files.encoded(uri)
                line = int(index) + 1
                values = {c: col[j] for c, col in zip(names, columns, strict=True)}
                rows.append(
                    examples.attach(convert(values, spec, inp, line, time_is_micros), line, inp)
                )
            yield _frame(rows, kind)

    return table.select(*cols).mapInPandas(run, _schema(kind))


def _finish(spark: SparkSession, parsed: DataFrame, kind: str, what: str) -> LoadResult:
    """Persist the parsed rows, count reasons and gather examples (one job), return good rows."""
    import pyspark.sql.functions as F
    from pyspark import StorageLevel

    parsed = parsed.persist(StorageLevel.MEMORY_AND_DISK)
    example = F.when(F.col("excerpt").isNotNull(), F.struct("file", "line", "excerpt", "detail"))
    with spark_read_errors(what):
        rows = (
            parsed.groupBy("reason")
            .agg(F.count(F.lit(1)).alias("n"), F.collect_list(example).alias("examples"))
            .collect()
        )
    fatal = [e["detail"] for r in rows if r["reason"] == _FATAL for e in r["examples"]]
    if fatal:
        parsed.unpersist()
        raise BadInputError("; ".join(sorted(fatal)[:3]))
    report = BadRecordReport(records=sum(int(r["n"]) for r in rows))
    for r in rows:
        if r["reason"] is not None:
            report.counts[r["reason"]] += int(r["n"])
            for e in r["examples"]:
                report.add_example(
                    r["reason"],
                    BadRecordExample(
                        e["file"], int(e["line"]), e["excerpt"] or "", e["detail"] or ""
                    ),
                )
    columns = POST_COLUMNS if kind == "posts" else KEY_COLUMNS
    df = parsed.filter(F.col("reason").isNull()).select(
        *[F.timestamp_micros("ts_us").alias("ts") if c == "ts" else c for c in columns]
    )
    return LoadResult(df=df, report=report, _cached=parsed)


def _detect_format(
    inputs: Sequence[_Input], fmt: str | None, allowed: Sequence[str], path: Any
) -> str:
    if fmt is not None:
        if fmt not in allowed:
            raise BadInputError(f"{path}: unknown format {fmt!r}; choose from {list(allowed)}")
        return fmt
    kinds = set()
    for inp in inputs:
        name = inp.name.lower().removesuffix(".gz")
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        kinds.add(
            {
                "csv": "csv",
                "tsv": "tsv",
                "parquet": "parquet",
                "pq": "parquet",
                "txt": "text",
                "": "text",
            }.get(ext, ext)
        )
    if len(kinds) == 1 and (kind := kinds.pop()) in allowed:
        return kind
    raise BadInputError(
        f"{path}: cannot tell the format from the file names; pass fmt= one of {list(allowed)}"
    )


def _check_time_format(time_format: str | None) -> None:
    if time_format is not None and time_format not in TIME_FORMATS and "%" not in time_format:
        raise BadInputError(
            f"time_format {time_format!r} is neither one of {TIME_FORMATS} nor a strptime pattern"
        )
