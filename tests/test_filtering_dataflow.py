"""The Spark dataflow: the union of the matcher instances' answers is the oracle's."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.filtering.dataflow import match_on_spark
from routelab.filtering.model import match_pairs
from routelab.filtering.oracle import oracle_match
from routelab.filtering.workload import Workload, generate_events, generate_subscriptions

pytestmark = pytest.mark.spark

SMALL = Workload("small", n_t=6, n_p=3, fix_eq=1, fix_gt=1, u_p=4, n_a=6, u_a=4)


@pytest.mark.parametrize("algorithm", ["counting", "propagation", "static"])
def test_union_of_partitions_equals_the_oracle(spark, algorithm):
    subs = generate_subscriptions(SMALL, 3000, seed=4)
    events = generate_events(SMALL, 250, seed=4)
    result = match_on_spark(subs, events, algorithm=algorithm, partitions=3, batch=100, spark=spark)
    ptr, idx = oracle_match(subs, events)
    truth = match_pairs(ptr, subs.ids[idx])
    got = set(zip(result.pairs["event_id"], result.pairs["sub_id"], strict=True))
    assert got == truth and len(truth) > 100
    parts = result.partitions
    assert parts["subscriptions"].sum() == len(subs) and len(parts) == 3
    assert parts["matches"].sum() == len(result.pairs)  # no instance reports a match twice
    # the partition of a subscription depends only on its id and the seed
    again = match_on_spark(subs, events, algorithm=algorithm, partitions=3, spark=spark)
    assert np.array_equal(again.partitions["subscriptions"], parts["subscriptions"])


def test_bad_arguments_fail_before_spark_runs(spark):
    subs = generate_subscriptions(SMALL, 10, seed=1)
    events = generate_events(SMALL, 5, seed=1)
    with pytest.raises(ValueError, match="unknown algorithm"):
        match_on_spark(subs, events, algorithm="fastest", spark=spark)
    with pytest.raises(ValueError, match="partitions"):
        match_on_spark(subs, events, partitions=0, spark=spark)
