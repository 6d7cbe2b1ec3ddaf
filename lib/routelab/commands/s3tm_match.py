"""``routelab s3tm match``: every (post, subscription) match of your data, on Spark."""

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
    from routelab.s3tm.placement import PLACERS

    parser = subparsers.add_parser(
        "match",
        help="match your posts against your subscriptions through S3-TM's Spark dataflow "
        "(S3-TM Sects. 2-4)",
        description="Learn the word-to-matcher mapping (--algorithm, one method) on the "
        "learning part of the posts (the first --learn-fraction in stream order), place every "
        "subscription on the matchers (--placement: LASP, Algorithm 2, or random anycast), "
        "then run every post through the dataflow: the router multicasts it to the matchers "
        "of its subscribed words (Eq. 1), each matcher (a Spark partition; --workers of them) "
        "looks it up in its trie, the dispatcher removes duplicate matches. A post matches a "
        "subscription when it contains all the subscription's words. Writes "
        "OUT/matches.<format> (post_id, subscription_id), OUT/workers.<format> (per matcher: "
        "posts received, trie lookups, matches, subscriptions, in-task seconds), "
        "OUT/summary.json and OUT/bad_records.json.",
    )
    parser.add_argument(
        "--posts", required=True, metavar="DIR", help="`routelab s3tm preprocess`'s folder"
    )
    parser.add_argument(
        "--subscriptions",
        required=True,
        metavar="DIR|FILE",
        help=SUBSCRIPTIONS_HELP,
    )
    add_algorithm_option(parser, MAPPINGS, "SALB", many=False)
    add_workers_option(parser, 4, many=False)
    parser.add_argument(
        "--placement",
        choices=PLACERS,
        default="LASP",
        help="subscription placement (default: %(default)s)",
    )
    parser.add_argument(
        "--learn-fraction",
        type=float,
        default=0.5,
        help="share of the stream the mapping learns on; every post is matched "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--split-hot",
        action="store_true",
        help="split hot words into versions (Sect. 5.1; their subscriptions multicast)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of hashing, METIS, anycast")
    add_output_options(parser)
    add_master_option(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import time

    from routelab.errors import BadInputError

    (method,) = algorithms(args)
    (n,) = workers(args)
    if not 0 < args.learn_fraction < 1:
        raise BadInputError(f"--learn-fraction must be in (0, 1), got {args.learn_fraction}")
    out = Outputs(args, "s3tm match")
    from routelab.s3tm.io import check_posts, check_subscriptions

    check_posts(args.posts)
    if args.subscriptions:
        check_subscriptions(args.subscriptions)
    from routelab.s3tm.dataflow import matcher_state, posts_frame, run_dataflow
    from routelab.s3tm.io import (
        describe_normalisation,
        learning_split,
        load_posts,
        load_subscriptions,
        pairs_frame,
        posts_normalisation,
    )
    from routelab.s3tm.mappings import learn_mapping
    from routelab.s3tm.placement import place_subscriptions
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-s3tm-match", quiet=True)
    t0 = time.perf_counter()
    posts = load_posts(spark, args.posts)
    loaded = load_subscriptions(
        spark, args.subscriptions, posts.corpus.vocab, posts_normalisation(args.posts)
    )
    subs = loaded.corpus
    bad = posts.report.merge(loaded.report)
    if bad.bad:
        print(bad)
    describe_normalisation(loaded.words)
    read_s = time.perf_counter() - t0
    learning, _ = learning_split(posts.corpus, args.learn_fraction)
    t0 = time.perf_counter()
    mapping = learn_mapping(learning, n, method, subs, args.seed, split_hot=args.split_hot)
    placement = place_subscriptions(subs, mapping, args.placement, seed=args.seed)
    learn_s = time.perf_counter() - t0
    state = matcher_state(mapping, placement, subs)
    result = run_dataflow(posts_frame(spark, posts.corpus, n), state, spark=spark)
    matches = pairs_frame(result.matches)
    out.table("matches", matches)
    stats = result.matcher_stats.rename(columns={"matcher": "worker"})
    out.table("workers", stats)
    out.bad_records(bad)
    out.summary(
        {
            "posts": posts.corpus.n_posts,
            "learning_posts": learning.n_posts,
            "subscriptions": subs.n_posts,
            "matches": len(matches),
            "duplicates_removed": result.duplicates_removed,
        },
        {"read_s": read_s, "learn_and_place_s": learn_s, "dataflow_s": result.wall_seconds},
        ordered_by_time=posts.ordered_by_time,
        mapping=method,
        placement=args.placement,
        subscription_words=loaded.words or None,
    )
    if matches.empty:
        print(
            "warning: no post matched any subscription (a post matches when it holds every "
            "word of the subscription, after both are cleaned and stemmed alike)"
        )
    busiest = stats.loc[stats["ops"].idxmax()]
    print(
        f"{len(matches):,} matches of {posts.corpus.n_posts:,} posts against {subs.n_posts:,} "
        f"subscriptions ({method} mapping, {args.placement} placement, {n} matchers; the "
        f"busiest matcher did {int(busiest['ops']):,} trie lookups) -> {out.dir}"
    )
    return 0
