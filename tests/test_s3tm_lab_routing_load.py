"""Fig. 5 under Fig. 7's trie-lookup load (routelab.s3tm.lab.routing.load)
on hand-made posts: the mapping re-measured is Fig. 5's own (same per-matcher deliveries),
the comparison table and the figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.s3tm.lab.routing import experiments as ev
from routelab.s3tm.lab.routing import figures as figs
from routelab.s3tm.lab.routing import load as rl
from routelab.s3tm.lab.routing import workloads as wl


def _posts():
    """48 posts over two co-occurring word groups plus a few rarer words."""
    rows = []
    for i in range(48):
        group = ["flu", "shot", "vaccin"] if i % 2 else ["trump", "vote", "ralli"]
        words = [*group[: 2 + i % 2], f"w{i % 7}", f"z{i % 5}"]
        rows.append({"post_id": 500 + i, "ts": i, "words": words, "source": "s"})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def union():
    return wl.real_cv_from_frame(
        _posts(), "tweets", kinds=("tweet",), n_subscriptions=12, n_folds=3, seed=2,
        all_words=True, keep_subscriptions=True, progress=False,
    )  # fmt: skip


def test_load_scaling_data_carries_fig5s_posts_folds_and_subscriptions(union):
    sdata = rl.load_scaling_data(union)
    assert sdata.posts is union.corpora[wl.ALL_WORDS]
    assert np.array_equal(sdata.folds, union.folds) and sdata.n_folds == 3
    subs = union.info["subscriptions"]["tweet"]
    stream = sdata.streams["tweet"]
    assert stream.n_posts == 12 == len(subs)
    words = [sorted(np.asarray(stream.vocab)[stream.indices[a:b]])
             for a, b in zip(stream.indptr[:-1], stream.indptr[1:], strict=True)]  # fmt: skip
    assert words == [sorted(set(w)) for w in subs["words"]]
    plain = wl.real_cv_from_frame(_posts(), "p", kinds=("tweet",), n_subscriptions=3, n_folds=3)
    assert "subscriptions" not in plain.info
    with pytest.raises(ValueError, match="keep_subscriptions"):
        rl.load_scaling_data(plain)


def test_load_grid_remeasures_fig5s_mappings(union):
    sdata = rl.load_scaling_data(union)
    cost, curve = rl.fit_load_cost(sdata, [3, 6, 12], n_matchers=4, fold=0)
    assert cost.slope > 0 and set(curve["kind"]) == {"tweet"}
    load = rl.run_load(sdata, [2, 4], ["hash", "SALB"], ["tweet"], folds=[0, 1], cost=cost,
                       local=True, progress=False)  # fmt: skip
    assert len(load) == 2 * 2 * 2 and set(load["n_matchers"]) == {2, 4}
    cv = ev.run_cv([union], ["hash", "SALB"], [2, 4], ["tweet"], folds=[0, 1], local=True,
                   progress=False)  # fmt: skip
    keys = ["kind", "method", "n_matchers", "fold"]
    both = cv.merge(load, on=keys, suffixes=("_unit", "_ops"), validate="one_to_one")
    assert len(both) == 8
    # the same mapping routes the same posts: Eq. 3 deliveries agree cell by cell
    assert np.allclose(both["imbalance_unit"], both["unit_imbalance"])
    assert np.allclose(both["spread_routed"], both["spread_ops"])
    table = rl.load_comparison(cv, load, "tweets")
    assert set(table["cost"]) == set(rl.COSTS)
    rel = table[(table["metric"] == "relative_throughput") & (table["method"] == "SALB")]
    assert np.allclose(rel["mean"], 1.0) and set(rel["n"]) == {2}
    unit_imb = table[(table["cost"] == rl.COSTS[0]) & (table["metric"] == "imbalance")]
    hash_4 = unit_imb[(unit_imb["method"] == "hash") & (unit_imb["n_matchers"] == 4)]
    sel = cv[(cv["method"] == "hash") & (cv["n_matchers"] == 4)]
    assert hash_4["mean"].iloc[0] == pytest.approx(sel["imbalance"].mean())
    at16 = rl.at_nodes(table, 4)
    assert list(at16.columns) == list(rl.COSTS) and list(at16.index) == ["tweet"]
    with pytest.raises(ValueError, match="no hash rows"):
        rl.at_nodes(table, 16)
    with pytest.raises(ValueError, match="cover 0 of the 8"):
        rl.load_comparison(cv, load, "other")
    fig = figs.extra_fig5_two_loads(table)
    assert len(fig.data) == 2 * 2 * 2  # panels x methods x loads
    dashes = {t.name: t.line.dash for t in fig.data}
    assert dashes[f"hash, {rl.COSTS[0]}"] == "solid" and dashes[f"hash, {rl.COSTS[1]}"] == "dash"


def test_run_load_needs_one_workload_size(union):
    sdata = rl.load_scaling_data(union)
    other = sdata.streams["tweet"].subset(np.arange(5))
    mixed = type(sdata)(sdata.posts, sdata.folds, 3, {"tweet": sdata.streams["tweet"],
                        "topic": other})  # fmt: skip
    with pytest.raises(ValueError, match="counts differ"):
        rl.run_load(mixed, [2], kinds=("tweet", "topic"), local=True)
    with pytest.raises(ValueError, match="no tweet or topic"):
        figs.extra_fig5_two_loads(pd.DataFrame(columns=["kind", "metric", "cost"]))
