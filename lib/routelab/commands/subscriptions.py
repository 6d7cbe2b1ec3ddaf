"""``routelab s3tm subscriptions``: tweet- or topic-based subscriptions from a posts Parquet."""

from __future__ import annotations

import argparse
import json

from routelab.commands import Outputs, add_master_option, add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "subscriptions",
        help="make tweet- or topic-based subscriptions (S3-TM Sect. 6.1) from posts",
        description="Read posts (Parquet with post_id and words array<string>) and write N "
        "subscriptions (sub_id, words, kind, topic) as Parquet. tweet: N random posts "
        "(seeded; posts without words excluded). topic: LDA topics (gensim, alpha = beta = "
        "0.1), each subscription picks a topic, a length 1..max-len with P(k) ~ k^-skew, and "
        "that many of the topic's top words. Writes OUT/subscriptions.parquet, "
        "OUT/topics.json (topic), OUT/summary.json and OUT/bad_records.json.",
    )
    parser.add_argument(
        "--posts", required=True, help="posts: `routelab s3tm preprocess`'s folder or a Parquet"
    )
    parser.add_argument(
        "--kind", required=True, choices=("tweet", "topic"), help="subscription model"
    )
    parser.add_argument("--n", type=int, required=True, help="number of subscriptions")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--topics", type=int, default=100, help="topic: number of LDA topics (default: 100)"
    )
    parser.add_argument(
        "--words-per-topic",
        type=int,
        default=5,
        help="topic: top words kept per topic (default: 5)",
    )
    parser.add_argument(
        "--zipf-skew",
        type=float,
        default=0.5,
        help="topic: skew of the length distribution (default: 0.5)",
    )
    parser.add_argument(
        "--max-len", type=int, default=5, help="topic: longest subscription (default: 5)"
    )
    parser.add_argument(
        "--topic-choice",
        choices=("uniform", "weight"),
        default="uniform",
        help="topic: pick topics uniformly (paper) or by corpus weight",
    )
    parser.add_argument("--passes", type=int, default=5, help="topic: LDA passes (default: 5)")
    parser.add_argument(
        "--max-posts",
        type=int,
        default=None,
        help="topic: fit LDA on a seeded sample of at most this many posts",
    )
    add_output_options(parser, tables=False)
    add_master_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from routelab.badrecords import BadRecordReport
    from routelab.corpus.subscriptions import SUBSCRIPTIONS_DIR, build_subscriptions
    from routelab.errors import BadInputError
    from routelab.spark import get_spark

    if args.n < 1:
        raise BadInputError(f"--n must be >= 1, got {args.n}")
    out = Outputs(args, "s3tm subscriptions")
    from routelab.s3tm.io import check_posts

    check_posts(args.posts)
    try:
        summary = build_subscriptions(
            args.posts,
            out.path(SUBSCRIPTIONS_DIR),
            kind=args.kind,
            n=args.n,
            seed=args.seed,
            n_topics=args.topics,
            words_per_topic=args.words_per_topic,
            zipf_skew=args.zipf_skew,
            max_len=args.max_len,
            topic_choice=args.topic_choice,
            passes=args.passes,
            max_posts=args.max_posts,
            overwrite=True,
            spark=get_spark(args.master, app_name="routelab-subscriptions"),
            progress=not args.no_progress,
            topics_path=out.path("topics.json") if args.kind == "topic" else None,
        )
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    print(json.dumps(summary, indent=1))
    bad = BadRecordReport(records=summary["posts"])
    if summary["posts_without_words"]:
        bad.counts["no_words"] = summary["posts_without_words"]
    out.bad_records(bad)
    out.summary({k: v for k, v in summary.items() if isinstance(v, int)}, details=summary)
    print(f"written to {out.dir}")
    return 0
