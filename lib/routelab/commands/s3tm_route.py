"""``routelab s3tm route``: learn word-to-matcher mappings on your posts, measure them."""

from __future__ import annotations

import argparse

from routelab.commands import (
    Outputs,
    add_algorithm_option,
    add_master_option,
    add_output_options,
    add_workers_option,
    algorithms,
    workers,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.s3tm.io import SUBSCRIPTIONS_HELP
    from routelab.s3tm.mappings import MAPPINGS

    parser = subparsers.add_parser(
        "route",
        help="learn each mapping on a learning split of your posts; spread, imbalance, "
        "throughput on the held-out posts (S3-TM Sect. 3, Eqs. 1-7)",
        description="Split the posts in stream order (time, else post_id) into a learning "
        "part and a held-out part, learn each mapping (--algorithm) for each number of "
        "matchers (--workers) on the learning part, route the held-out posts and write "
        "OUT/results.<format>: spread (matchers per post, Eq. 2), imbalance (max/avg load, "
        "Eq. 4), throughput (Eq. 6, posts per unit time at capacity 1) and the throughput "
        "relative to hash when hash is among the methods, with OUT/summary.json and "
        "OUT/bad_records.json (posts without words). As notebook 03_routing measures; "
        "learn_s is each mapping's learning time, its kernel compiled beforehand.",
    )
    parser.add_argument(
        "--posts", required=True, metavar="DIR", help="`routelab s3tm preprocess`'s folder"
    )
    parser.add_argument(
        "--subscriptions",
        metavar="DIR|FILE",
        help="only subscribed words route (Eq. 1); default: every word routes. "
        + SUBSCRIPTIONS_HELP,
    )
    add_algorithm_option(parser, MAPPINGS, ("hash", "SALB"))
    add_workers_option(parser, (4, 16, 64))
    parser.add_argument(
        "--learn-fraction",
        type=float,
        default=0.5,
        help="share of the stream the mappings learn on (default: %(default)s)",
    )
    parser.add_argument(
        "--split-hot",
        action="store_true",
        help="split hot words into versions before learning (Sect. 5.1)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of hashing and METIS")
    add_output_options(parser)
    add_master_option(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.progress import tqdm
    from routelab.s3tm.io import (
        describe_normalisation,
        learning_split,
        load_posts,
        load_subscriptions,
        posts_normalisation,
    )
    from routelab.s3tm.mappings import learn_mapping
    from routelab.s3tm.metrics import route_metrics

    methods = algorithms(args)
    counts = workers(args)
    if not 0 < args.learn_fraction < 1:
        raise BadInputError(f"--learn-fraction must be in (0, 1), got {args.learn_fraction}")
    out = Outputs(args, "s3tm route")
    from routelab.s3tm.io import check_posts, check_subscriptions

    check_posts(args.posts)
    if args.subscriptions:
        check_subscriptions(args.subscriptions)
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-s3tm-route", quiet=True)
    posts = load_posts(spark, args.posts)
    bad = posts.report
    subs = None
    if args.subscriptions:
        loaded = load_subscriptions(
            spark, args.subscriptions, posts.corpus.vocab, posts_normalisation(args.posts)
        )
        subs = loaded.corpus
        if loaded.report.bad:
            print(f"subscriptions:\n{loaded.report}")
        describe_normalisation(loaded.words)
        bad.merge(loaded.report)
    learning, held_out = learning_split(posts.corpus, args.learn_fraction)
    rows = []
    with tqdm(total=len(methods) * len(counts), desc="route", unit="mapping") as bar:
        for method in methods:
            # compile and warm the method's kernel on a few posts: learn_s is learning alone
            prefix = learning.subset(np.arange(min(50, learning.n_posts)))
            learn_mapping(prefix, counts[0], method, subs, args.seed, split_hot=args.split_hot)
            for n in counts:
                mapping = learn_mapping(
                    learning, n, method, subs, args.seed, split_hot=args.split_hot
                )
                m = route_metrics(mapping, held_out, subs)
                rows.append(
                    {
                        "method": method,
                        "workers": n,
                        **{k: v for k, v in m.as_dict().items() if k != "n_matchers"},
                        "learn_s": mapping.info["learn_seconds"],
                    }
                )
                bar.update()
    table = pd.DataFrame(rows)
    if "hash" in methods:
        base = table[table.method == "hash"].set_index("workers")["throughput"]
        table["throughput_vs_hash"] = table["throughput"] / table["workers"].map(base)
    shown = ["method", "workers", "spread", "imbalance", "throughput"]
    shown += ["throughput_vs_hash"] if "hash" in methods else []
    print(table[shown].to_string(index=False, float_format=lambda v: f"{v:,.4g}"))
    out.table("results", table)
    out.bad_records(bad)
    out.summary(
        {
            "posts": posts.corpus.n_posts,
            "learning_posts": learning.n_posts,
            "held_out_posts": held_out.n_posts,
            "subscriptions": 0 if subs is None else subs.n_posts,
        },
        {"learn_s": float(table["learn_s"].sum())},
        ordered_by_time=posts.ordered_by_time,
    )
    print(f"written to {out.dir}")
    return 0
