"""``routelab s3tm <verb>``: S3-TM (Gedik et al.) on your own posts.

``preprocess`` (posts -> word sets), ``stats`` (Table 1), ``subscriptions`` (tweet- or
topic-based), ``route`` (learn mappings, measure them on held-out posts), ``match`` (the Spark
dataflow: router, trie matchers with LASP placement, dispatcher).
"""

from __future__ import annotations

import argparse

from routelab.commands import add_system


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.commands import preprocess, s3tm_match, s3tm_route, stats, subscriptions

    verbs = add_system(
        subparsers,
        "s3tm",
        help="S3-TM: preprocess posts, make subscriptions, route and match on your own data",
        description="S3-TM (streaming short-text matching): from your posts to word sets, "
        "subscriptions, learned word-to-matcher mappings and every (post, subscription) "
        "match on Spark. The three-command path: `s3tm preprocess`, `s3tm subscriptions`, "
        "`s3tm match`.",
    )
    for module in (preprocess, stats, subscriptions, s3tm_route, s3tm_match):
        module.register(verbs)
