"""``routelab s3tm stats``: S3-TM Table 1 (and the Zipf exponent of Fig. 4) of word-set posts."""

from __future__ import annotations

import argparse

from routelab.commands import Outputs, add_master_option, add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="corpus statistics of preprocessed posts (S3-TM Table 1, Zipf fit of Fig. 4)",
        description="Print S3-TM Table 1 for word-set posts written by `routelab s3tm "
        "preprocess`: "
        "number of posts, unique words, total word frequency (sum of set sizes) and distinct "
        "co-occurring word pairs, plus a least-squares Zipf exponent of the rank-frequency "
        "curve (Fig. 4); write them to OUT/results.<format> (one row per corpus) with "
        "OUT/summary.json and OUT/bad_records.json.",
    )
    parser.add_argument(
        "--posts",
        metavar="DIR",
        required=True,
        action="append",
        help="output directory of `routelab s3tm preprocess` (or its "
        "posts.parquet); repeat to compare corpora side by side",
    )
    add_output_options(parser)
    add_master_option(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import pandas as pd

    from routelab.corpus.preprocess import read_posts
    from routelab.corpus.stats import fit_zipf, format_table1, table1, word_frequencies

    out = Outputs(args, "s3tm stats")
    from routelab.s3tm.io import check_posts
    from routelab.spark import get_spark

    for path in args.posts:
        check_posts(path)
    spark = get_spark(args.master, app_name="routelab-stats", quiet=True)
    tables, zipf = {}, {}
    for path in args.posts:
        posts = read_posts(spark, path)
        tables[path] = table1(posts)
        freqs = word_frequencies(posts)
        try:
            zipf[path] = fit_zipf(freqs)
        except ValueError as exc:
            zipf[path] = {"error": str(exc)}
    print(format_table1(tables))
    for path, fit in zipf.items():
        if "error" in fit:
            print(f"Zipf fit ({path}): {fit['error']}")
        else:
            print(
                f"Zipf fit ({path}): exponent {fit['exponent']:.3f}, R^2 {fit['r2']:.3f} "
                f"over ranks {fit['min_rank']}..{fit['max_rank']} (words in >= 5 posts)"
            )
    rows = [
        {
            "posts_dir": path,
            **tables[path],
            **{f"zipf_{k}": v for k, v in zipf[path].items()},
        }
        for path in args.posts
    ]
    out.table("results", pd.DataFrame(rows))
    from routelab.badrecords import BadRecordReport

    out.bad_records(BadRecordReport(records=sum(int(t["posts"]) for t in tables.values())))
    out.summary({"corpora": len(args.posts)}, table1=tables, zipf=zipf)
    print(f"written to {out.dir}")
    return 0
