"""``routelab generate``: write synthetic posts or key streams as Parquet (on Spark)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from routelab.commands import add_master_option, check_output_dir

KEY_KINDS = ("zipf", "ln1", "ln2", "time-evolving-zipf")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="write seeded synthetic data (topic-model tweets, Zipf/log-normal key streams)",
        description="Generate synthetic data on Spark and write it as a Parquet directory. "
        "Output depends only on the parameters and --seed (not on the number of Spark "
        "partitions). See routelab.datasets.synthetic for the models.",
    )
    what = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    _register_tweets(what)
    _register_keys(what)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output Parquet directory")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="Spark tasks to spread the blocks over (default: Spark's default parallelism)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace --out if it is a Parquet directory"
    )
    add_master_option(parser)


# (flag, TopicTweetParams field, type, help); unset flags keep the dataclass defaults
TWEET_OPTIONS = (
    ("--vocab-size", "vocab_size", int, "vocabulary size (words w1..wV, Zipf ranks)"),
    ("--topics", "n_topics", int, "number of planted topics"),
    ("--mean-words", "mean_words", float, "mean word draws per post, 1 + Poisson(mean - 1)"),
    ("--max-words", "max_words", int, "cap on word draws per post"),
    ("--zipf-s", "zipf_s", float, "Zipf exponent of the vocabulary"),
    ("--topic-words", "topic_words", int, "words per topic"),
    ("--topic-zipf", "topic_zipf", float, "Zipf exponent of word weights inside a topic"),
    ("--topic-skew", "topic_skew", float, "Zipf exponent of the week-0 topic popularity"),
    ("--background", "background", float, "probability a word draw ignores the topic"),
    ("--drift", "drift", float, "sd of the weekly random-walk step of log topic popularity"),
    ("--start", "start", str, "time of the first post (UTC)"),
)


def _register_tweets(what: argparse._SubParsersAction) -> None:
    p = what.add_parser(
        "tweets",
        help="word-set posts from a drifting topic model (stand-in for S3-TM's corpora)",
        description="Posts with post_id, ts (UTC), words (sorted distinct array<string>) and "
        "the planted topic. Unset options keep the defaults of "
        "routelab.datasets.synthetic.TopicTweetParams, which approximate S3-TM Table 1's "
        "April 2013 corpus; --mean-words 10.4 --vocab-size 200000 approximate Sparse.",
    )
    p.add_argument("--n", type=int, required=True, help="number of posts")
    for flag, name, kind, text in TWEET_OPTIONS:
        metavar = {int: "N", float: "X", str: "TIME"}[kind]
        p.add_argument(flag, dest=name, type=kind, default=None, metavar=metavar, help=text)
    span = p.add_mutually_exclusive_group()
    span.add_argument("--weeks", type=float, default=None, help="weeks the posts span (default 4)")
    span.add_argument(
        "--rate", dest="rate_per_s", type=float, default=None, help="posts per second instead"
    )
    _common(p)
    p.set_defaults(func=_run_tweets)


def _register_keys(what: argparse._SubParsersAction) -> None:
    p = what.add_parser(
        "keys",
        help="key streams: Zipf, PKG's LN1/LN2, FISH's time-evolving Zipf",
        description="A key stream with columns seq (position) and key (int64). ln1/ln2 "
        "follow PKG Table I (rounded log-normal key values; --model frequencies gives "
        "log-normal key weights instead). time-evolving-zipf re-maps ranks to keys every "
        "--shift-every tuples (cyclic shift by --offset, or a fresh permutation).",
    )
    p.add_argument("kind", choices=KEY_KINDS, help="which stream")
    p.add_argument("--n", type=int, required=True, help="number of keys (messages)")
    p.add_argument(
        "--n-keys",
        type=int,
        default=None,
        help="key universe (zipf, time-evolving-zipf; ln* with --model frequencies)",
    )
    p.add_argument("--z", type=float, default=1.0, help="Zipf exponent (default 1.0)")
    p.add_argument(
        "--shift-every",
        type=int,
        default=None,
        help="time-evolving-zipf: tuples per period (default: 0.8 * n, as FISH's ZF)",
    )
    p.add_argument(
        "--offset",
        type=int,
        default=None,
        help="time-evolving-zipf: cyclic rank shift per period (default: re-draw)",
    )
    p.add_argument(
        "--model",
        choices=("values", "frequencies"),
        default="values",
        help="ln1/ln2 reading (default: values, reproduces PKG Table I)",
    )
    _common(p)
    p.set_defaults(func=_run_keys)


def _write(df: Any, args: argparse.Namespace, started: float, label: str) -> int:
    from routelab.datasets.synthetic import write_parquet

    path = write_parquet(df, args.out, overwrite=args.overwrite)
    print(f"wrote {args.n:,} {label} to {path} in {time.perf_counter() - started:.1f} s")
    return 0


def _run_tweets(args: argparse.Namespace) -> int:
    from routelab.datasets.synthetic import topic_tweets
    from routelab.errors import BadInputError
    from routelab.spark import get_spark

    check_output_dir(args.out, args.overwrite)
    started = time.perf_counter()
    names = [name for _, name, _, _ in TWEET_OPTIONS] + ["weeks", "rate_per_s"]
    params = {k: getattr(args, k) for k in names if getattr(args, k) is not None}
    try:
        spark = get_spark(args.master, app_name="routelab-generate")
        df = topic_tweets(spark, args.n, seed=args.seed, partitions=args.partitions, **params)
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    return _write(df, args, started, "posts")


def _run_keys(args: argparse.Namespace) -> int:
    from routelab.datasets import synthetic
    from routelab.errors import BadInputError
    from routelab.spark import get_spark

    check_output_dir(args.out, args.overwrite)
    started = time.perf_counter()
    try:
        if args.kind == "zipf":
            spec = synthetic.ZipfSpec(_need(args.n_keys, "--n-keys"), args.z)
        elif args.kind == "time-evolving-zipf":
            shift = args.shift_every or max(1, int(0.8 * args.n))
            spec = synthetic.TimeEvolvingZipfSpec(
                _need(args.n_keys, "--n-keys"), args.z, shift, args.offset
            )
        else:
            spec = synthetic.lognormal_spec(args.kind.upper(), args.model, args.n_keys)
        spark = get_spark(args.master, app_name="routelab-generate")
        df = synthetic.key_stream(spark, spec, args.n, args.seed, partitions=args.partitions)
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    return _write(df, args, started, f"{args.kind} keys")


def _need(value: int | None, flag: str) -> int:
    if value is None:
        raise ValueError(f"{flag} is required for this stream")
    return value
