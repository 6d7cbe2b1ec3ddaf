"""``routelab s3tm preprocess``: load users' posts (or the bundled tweets), write word sets."""

from __future__ import annotations

import argparse

from routelab.commands import Outputs, add_master_option, add_output_options

FORMATS = ("twitter-json", "csv", "parquet", "bundled")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "preprocess",
        help="clean, stem and de-duplicate posts into word sets (S3-TM Sect. 6.1) on Spark",
        description="Load posts (Twitter API v1.1/v2 JSON, CSV, Parquet, or the bundled "
        "tweets), drop links, screen names, punctuation and stop words, Porter-stem the rest, "
        "and write each post as its set of words to OUT/posts.parquet (a Spark Parquet "
        "directory, with OUT/report.json), OUT/summary.json and OUT/bad_records.json. Bad input "
        "records are skipped and counted by reason (with file and line examples); the report "
        "is printed at the end.",
    )
    parser.add_argument(
        "--input",
        metavar="PATH",
        help="file, directory or glob to load (not needed with --input-format bundled)",
    )
    parser.add_argument(
        "--input-format",
        choices=FORMATS,
        required=True,
        help="input format: twitter-json (API v1.1 objects or v2 JSON lines, "
        "or a JSON array file), csv (with header), parquet, or bundled (the "
        "prepared real tweets)",
    )
    cols = parser.add_argument_group("table columns (csv/parquet)")
    cols.add_argument("--text-col", default="text", help="text column (default: %(default)s)")
    cols.add_argument("--time-col", help="time column (ISO 8601, Twitter format or epoch)")
    cols.add_argument(
        "--time-format",
        help="iso, twitter, epoch_s, epoch_ms or a strptime pattern (default: automatic)",
    )
    cols.add_argument("--lat-col", help="latitude column (needs --lon-col)")
    cols.add_argument("--lon-col", help="longitude column (needs --lat-col)")
    cols.add_argument(
        "--id-col",
        help="post id column (integers kept, others hashed; default: 'id' when the input has "
        "one, else a stable hash of file:line)",
    )
    parser.add_argument("--no-stem", action="store_true", help="skip Porter stemming")
    parser.add_argument(
        "--stem-mode",
        choices=("original", "nltk", "martin"),
        default="original",
        help="Porter variant (default: %(default)s, Porter's 1980 algorithm as in the paper)",
    )
    parser.add_argument(
        "--min-words",
        type=int,
        default=1,
        help="drop posts with fewer words after cleaning (default: 1)",
    )
    add_output_options(
        parser,
        tables=False,
        required=False,
        when="unless --input-format bundled (default datasets/prepared/tweets_words)",
    )
    add_master_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from routelab.badrecords import BadRecordReport
    from routelab.errors import BadInputError

    if args.input_format != "bundled" and not args.input:
        raise BadInputError(f"--input is required with --format {args.input_format}")
    if args.input_format != "bundled" and not args.out:
        raise BadInputError("--out is required (an output directory)")
    if args.min_words < 1:
        raise BadInputError(f"--min-words must be >= 1, got {args.min_words}")
    out = Outputs(args, "s3tm preprocess") if args.out else None
    if args.input_format != "bundled":
        from routelab.datasets.headers import columns, local_files, require_columns

        if args.input_format in ("csv", "parquet"):
            fmt = None if args.input_format == "csv" else "parquet"
            wanted = {
                "--text-col": args.text_col,
                "--time-col": args.time_col,
                "--lat-col": args.lat_col,
                "--lon-col": args.lon_col,
                "--id-col": args.id_col,
            }
            files = local_files(args.input)
            if files and (fmt == "parquet" or files[0].suffix.lower() in (".csv", ".tsv")):
                require_columns(args.input, fmt, wanted)
                if args.id_col is None and "id" in columns(files[0], fmt or "csv"):
                    args.id_col = "id"  # the user's ids, so matches can be traced back
                    print("post ids from column 'id' (--id-col to choose another)")
        else:
            local_files(args.input)  # exists, before Spark starts

    from routelab.corpus.preprocess import preprocess, preprocess_bundled
    from routelab.datasets import loaders
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-preprocess", quiet=True)
    options = {
        "min_words": args.min_words,
        "stem": not args.no_stem,
        "stem_mode": args.stem_mode,
        "progress": not args.no_progress,
    }
    if out is not None:
        out.record("posts.parquet", "report.json")  # written by preprocess() itself
    if args.input_format == "bundled":
        result = preprocess_bundled(spark, args.out, **options)
    else:
        if args.input_format == "twitter-json":
            loaded = loaders.load_twitter_json(spark, args.input)
        else:
            loaded = loaders.load_table(
                spark,
                args.input,
                text_col=args.text_col,
                time_col=args.time_col,
                lat_col=args.lat_col,
                lon_col=args.lon_col,
                id_col=args.id_col,
                time_format=args.time_format,
                fmt=args.input_format,
            )
        explain_nothing_kept(args.input, args.input_format, args.text_col, loaded.report)
        result = preprocess(loaded, args.out, **options)
        loaded.unpersist()
    print(result.report)
    if out is not None:
        report = result.report
        # the loader's skipped records (file:line) and the posts dropped after loading
        bad = BadRecordReport().merge(report.loader) if report.loader else BadRecordReport()
        bad.records = max(bad.records, report.rows_in)
        bad.counts.update({k: v for k, v in report.dropped.items() if v})
        out.bad_records(bad)
        out.summary(
            {"posts_in": report.rows_in, "posts_out": report.rows_out, "dropped": report.dropped},
            {"preprocess_s": report.seconds},
        )
    print(f"word sets written to {result.path}")
    return 0


FORMAT_NAMES = {"json": "twitter-json", "csv": "csv", "tsv": "csv", "parquet": "parquet"}


def explain_nothing_kept(path: str, fmt: str, text_col: str, report: object) -> None:
    """An input that yields no usable record is an error naming the likely cause: empty,
    the wrong ``--format`` (told by the file's first bytes) or a non-text column."""
    from routelab.datasets.sniff import sniff
    from routelab.errors import BadInputError

    good, records = report.good, report.records  # type: ignore[attr-defined]
    if good > 0:
        return
    print(report)
    if records == 0:
        raise BadInputError(f"{path}: no records at all (the input is empty)")
    seen = sniff(path)
    given = "json" if fmt == "twitter-json" else fmt
    if (
        seen
        and seen not in ("text", "empty")
        and seen != given
        and not (given == "csv" and seen == "tsv")
    ):
        raise BadInputError(
            f"{path}: none of {records:,} records could be used: this looks like {seen}, not "
            f"{fmt}; try --input-format {FORMAT_NAMES.get(seen, seen)}"
        )
    counts = report.counts  # type: ignore[attr-defined]
    reason, n = counts.most_common(1)[0]
    if reason == "missing_text" and fmt in ("csv", "parquet"):
        raise BadInputError(
            f"{path}: none of {records:,} records has usable text in column {text_col!r} "
            "(is it a text column? numbers, empty values and non-strings are not text)"
        )
    raise BadInputError(
        f"{path}: none of {records:,} records could be used; most ({n:,}) were {reason} "
        "(see the report above)"
    )
