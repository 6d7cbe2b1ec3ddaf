"""Notebook 13's library (routelab.compare): the common stream and its views by hand, the
interests' three forms, every router's invariants, the equality of S3-TM's and
PS2Stream's answers (regions ignored) with the brute force, the drift rows, and every
verdict the cross-system claims can give."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from routelab.compare.interests import (
    Interests,
    make_interests,
    post_events,
    post_topics,
    predicate_subscriptions,
    spatial_queries,
)
from routelab.compare.lab import claims as cc
from routelab.compare.lab.drift import drift_rows
from routelab.compare.routers import (
    ROUTERS,
    SYSTEMS,
    SYSTEMS_BY_NAME,
    Routing,
    route,
    s3tm_pairs,
    spatial_pairs,
    system_of,
)
from routelab.compare.stream import ATTRS, REGIONS, common_stream, key_stream
from routelab.spatial.places import BOXES, box_region


@pytest.fixture(scope="module")
def small(spark):  # noqa: ANN001, ANN201
    stream = common_stream(spark, 3_000, windows=4)
    return stream, make_interests(stream, 150, n_topics=10, passes=1)


def test_stream_columns_and_windows(small) -> None:  # noqa: ANN001
    stream, _ = small
    assert len(stream) == 3_000 and stream["ts"].is_monotonic_increasing
    assert np.bincount(stream["window"]).tolist() == [750] * 4
    lo_x, lo_y, hi_x, hi_y = BOXES["US"]
    assert stream["lon"].between(lo_x, hi_x).all() and stream["lat"].between(lo_y, hi_y).all()
    assert stream["region"].between(0, REGIONS**2 - 1).all()
    assert (stream["n_words"] == stream["words"].map(len)).all()
    assert (stream["n_hashtags"] == stream["hashtags"].map(len)).all()
    assert set(stream["source"]) <= {0, 1} and set(stream["has_link"]) <= {0, 1}


def test_keys_and_regions_by_hand() -> None:
    frame = pd.DataFrame({
        "account": ["a", "b", "a"], "hashtags": [["x"], [], ["x", "y"]],
        "ts": pd.to_datetime(["2020-01-01 00:00", "2020-01-01 00:01", "2020-01-01 00:03"]),
    })  # fmt: skip
    keys, row, secs = key_stream(frame)
    # messages: @a #x | @b | @a #x #y
    assert row.tolist() == [0, 0, 1, 2, 2, 2]
    assert keys.tolist() == [0, 1, 2, 0, 1, 3]
    assert secs.tolist() == [0, 0, 60, 180, 180, 180]
    lo_x, lo_y, hi_x, hi_y = BOXES["US"]
    assert box_region(np.array([lo_x, hi_x, lo_x]), np.array([lo_y, hi_y, hi_y])).tolist() == [
        0, REGIONS**2 - 1, (REGIONS - 1) * REGIONS,
    ]  # fmt: skip


def test_post_topics_and_the_three_forms_by_hand() -> None:
    model = SimpleNamespace(words=(("flu", "vaccin"), ("tax", "vote"), ("flu", "tax")))
    stream = pd.DataFrame({"words": [["flu", "vaccin"], ["tax"], ["dog"], ["flu", "tax", "vote"]]})
    # post 1: topics 1 and 2 tie -> 1; post 2: none -> -1; post 3: topic 1 (2 words)
    assert post_topics(stream, model).tolist() == [0, 1, -1, 1]
    frame = pd.DataFrame({"sub_id": [7], "words": [["flu"]], "topic": [0], "metro": ["X"],
                          "lon": [-100.0], "lat": [40.0], "rect": [(-101.0, 39.0, -99.0, 41.0)],
                          "region": [45], "hour_lo": [6], "hour_hi": [13]})  # fmt: skip
    it = Interests(frame, model)
    subs = predicate_subscriptions(it)
    a = {n: i for i, n in enumerate(ATTRS)}
    assert sorted(subs.as_lists()[0]) == sorted(
        [(a["topic"], "=", 0), (a["region"], "=", 45), (a["hour"], ">=", 6), (a["hour"], "<=", 13)]
    )
    assert spatial_queries(it)["rect"][0] == (-101.0, 39.0, -99.0, 41.0)
    assert spatial_queries(it, region=False)["rect"][0] == tuple(BOXES["US"])
    assert spatial_queries(it)["dnf"][0] == [["flu"]]


@pytest.mark.parametrize(("system", "router"), [(s, r) for s, rs in ROUTERS.items() for r in rs])
def test_every_router_measures_alike(small, system: str, router: str) -> None:  # noqa: ANN001
    stream, interests = small
    r = route(system, router, 4, stream, interests, train_windows=1)
    row = r.row()
    assert r.window_loads.shape == (4, 4)
    # every copy is one message somewhere (a key's message goes to one of its workers)
    assert r.window_loads.sum() == (r.tuples if system == "key grouping" else r.copies.sum())
    assert row["imbalance"] >= 1.0 - 1e-12
    assert row["throughput_x"] == pytest.approx(row["tuples"] / r.loads.max())
    assert 0 <= row["replication"] <= 4
    assert len(row["window_imbalance"]) == len(row["window_replication"]) == 4
    if router == "pkg_global":
        assert np.max(r.copies) <= 2  # two choices per key
    if router == "kg":
        assert np.max(r.copies) == 1


def test_same_answers_with_regions_ignored_and_equal_to_the_brute_force(small) -> None:  # noqa: ANN001
    """S3-TM through its mapping, placement and tries; PS2Stream through its partition,
    gridt and GI2; the brute force over word sets: one set of pairs."""
    from routelab.s3tm.matching_load import oracle_pairs, subscription_corpus
    from routelab.s3tm.wordsets import Corpus

    stream, interests = small
    a = s3tm_pairs("SALB", 4, stream, interests, train_windows=1)
    b = spatial_pairs("hybrid", 4, stream, interests, train_windows=1, region=False)
    corpus = Corpus.from_frame(stream[["post_id", "words"]])
    subs = subscription_corpus(interests.frame[["sub_id", "words"]], vocab=corpus.vocab)
    truth = oracle_pairs(corpus, subs)
    assert len(a) > 100
    assert a == b == set(zip(truth["sub_id"].tolist(), truth["post_id"].tolist(), strict=True))
    with_regions = spatial_pairs("kd-tree", 4, stream, interests, train_windows=1, region=True)
    assert with_regions < a  # a region only removes matches


def test_fabret_events_match_the_predicates(small) -> None:  # noqa: ANN001
    from routelab.filtering.matchers import build_matcher
    from routelab.filtering.oracle import oracle_match

    stream, interests = small
    events = post_events(stream, post_topics(stream, interests.model))
    subs = predicate_subscriptions(interests)
    ptr, _ = build_matcher("counting", subs).match(events)
    optr, _ = oracle_match(subs, events)
    assert ptr[-1] == optr[-1] > 0
    r = route("Fabret", "propagation", 4, stream, interests, train_windows=1)
    assert r.extra["pairs"] == int(optr[-1])  # the partitions together find every match


def test_drift_rows(small) -> None:  # noqa: ANN001
    stream, interests = small
    rows = drift_rows("S3-TM", "SALB", 4, stream, interests, train_windows=1)
    assert [r["window"] for r in rows] == [1, 2, 3]
    assert all(r["static"] >= 1 and r["adapted"] >= 1 for r in rows)
    online = drift_rows("key grouping", "pkg_global", 4, stream, interests, train_windows=1)
    assert all(r["online"] and r["static"] == r["adapted"] for r in online)


def _frame(
    hash_growth: float, salb_growth: float, pkg_ratio: float, copies: float, ps: float = 0.3
) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    base = 1.5 + 0.05 * rng.random(8)

    def row(system: str, router: str, n: int, imb: np.ndarray, rep: np.ndarray) -> dict:
        return {"system": system, "router": router, "n_workers": n,
                "window_imbalance": imb.tolist(), "window_replication": rep.tolist(),
                # max - avg messages: 100 per window for key grouping, scaled for PKG
                "window_excess": (100 * imb / 3).tolist(),
                "workers_per_key": 2 if router == "pkg_global" else 1}  # fmt: skip

    ones = np.ones(8)
    return pd.DataFrame([
        row("S3-TM", "hash", 8, base, 1.5 * ones), row("S3-TM", "hash", 32, base * hash_growth, ones),
        row("S3-TM", "SALB", 8, base, 1.5 * ones), row("S3-TM", "SALB", 32, base * salb_growth, ones),
        row("key grouping", "kg", 8, 3 * base, ones),
        row("key grouping", "pkg_global", 8, 3 * base * pkg_ratio, 2 * ones),
        row("PS2Stream", "frequency", 8, base, copies * base), row("PS2Stream", "kd-tree", 8, base, base),
        row("PS2Stream", "hybrid", 8, base, ps * 1.5 * base),
    ])  # fmt: skip


def test_claims_give_every_verdict() -> None:
    drift = pd.DataFrame({"system": ["S3-TM"] * 8, "router": ["SALB"] * 8,
                          "static": [2.0, 2.1, 2.2, 2.0, 2.3, 2.1, 2.2, 2.0],
                          "adapted": [1.2, 1.3, 1.2, 1.1, 1.3, 1.2, 1.25, 1.15],
                          "relearn_s": [0.01] * 8})  # fmt: skip
    good = cc.rows(_frame(2.0, 1.05, 0.05, 1.5), drift, 8, 32, True, "test")
    verdicts = [r["verdict"].verdict for r in good]
    assert verdicts == ["holds"] * len(good)
    # every row is about our setting: beyond the papers, or a check
    assert {r["kind"] for r in good} == {"beyond", "check"}
    kinds = {r["claim"].split(" ")[0] + r["claim"].split(" ")[1]: r["kind"] for r in good}
    assert kinds["textpartitioning"] == "check" and kinds["PS2Stream'sdispatcher"] == "check"
    assert "S3-TM Sect. 6.4" in next(r["paper"] for r in good if "re-learning" in r["claim"])
    # PKG's max - avg at half of KG's is a cut, not an order of magnitude
    half = cc.rows(_frame(2.0, 1.05, 0.5, 1.5), drift, 8, 32, True, "test")
    assert next(r for r in half if "partial key" in r["claim"])["verdict"].verdict == "fails"
    bad = cc.rows(
        _frame(1.0, 3.0, 1.5, 0.5, ps=3.0),
        drift.assign(adapted=drift["static"] * 1.5),
        8,
        32,
        False,
        "t",
    )
    assert [r["verdict"].verdict for r in bad] == ["fails"] * len(bad)
    unknown = cc.rows(_frame(2.0, 1.05, 0.5, 1.5), drift.iloc[:0], 8, 32, None, "t")
    assert unknown[-1]["verdict"].verdict == "not comparable"
    few = cc.rows(
        _frame(2.0, 1.05, 0.5, 1.5).assign(window_imbalance=[[1.5, 1.6]] * 9),
        drift,
        8,
        32,
        True,
        "t",
    )
    assert few[0]["verdict"].verdict == "not comparable"  # two windows decide nothing
    # a drift that flips sign across the windows: the bootstrap cannot decide
    mixed = drift.assign(
        adapted=drift["static"] * np.array([0.5, 1.6, 0.6, 1.5, 0.5, 1.7, 0.6, 1.4])
    )
    row = next(r for r in cc.rows(_frame(2.0, 1.05, 0.05, 1.5), mixed, 8, 32, True, "t")
               if "re-learning" in r["claim"])  # fmt: skip
    assert row["verdict"].verdict == "inconclusive" and "block-bootstrap" in row["verdict"].rule


def test_bad_arguments() -> None:
    stream = pd.DataFrame({"window": [0]})
    with pytest.raises(ValueError, match="unknown router"):
        route("S3-TM", "magic", 4, stream, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="windows"):
        common_stream(None, 10, windows=1)
    from routelab.compare.lab.experiments import data_params

    with pytest.raises(ValueError, match="train_windows"):
        data_params(None, 10, 4, 4, 10, 0)


def test_worked_example_agrees_with_the_systems(small) -> None:  # noqa: ANN001
    """The example's flags, computed by the definitions, are what the systems answer."""
    from routelab.compare.lab.example import worked_example
    from routelab.filtering.matchers import build_matcher

    stream, interests = small
    ex = worked_example(stream, interests)
    table = ex["interests"]
    post = int(ex["post"].loc["post_id", "the post"])
    assert table["S3-TM matches"].iloc[0]  # the first interest is chosen to match
    s3 = s3tm_pairs("SALB", 4, stream, interests, train_windows=1)
    ps = spatial_pairs("kd-tree", 4, stream, interests, train_windows=1, region=True)
    row = int(np.flatnonzero(stream["post_id"].to_numpy() == post)[0])
    events = post_events(stream.iloc[[row]], post_topics(stream.iloc[[row]], interests.model))
    ptr, ids = build_matcher("counting", predicate_subscriptions(interests)).match(events)
    for sub, flags in table.iterrows():
        assert flags["S3-TM matches"] == ((sub, post) in s3)
        assert flags["PS2Stream matches"] == ((sub, post) in ps)
        assert flags["Fabret matches"] == (sub in set(ids.tolist()))


# ------------------------------------------------------------------------- the adapters


def test_the_adapters_keep_notebook_13s_routers_in_its_order() -> None:
    """The routers come from the papers' registries now; notebook 13's grid (and the order
    of its legends and markers) is the one it always compared."""
    from routelab.compare.lab.drift import DRIFT_ROUTERS

    assert ROUTERS == {
        "S3-TM": ("hash", "SALB"),
        "key grouping": ("kg", "pkg_global", "dchoices", "wchoices", "fish"),
        "PS2Stream": ("grid", "kd-tree", "frequency", "metric", "hybrid"),
        "Fabret": ("counting", "propagation", "static"),
    }
    assert list(ROUTERS) == list(SYSTEMS) == list(SYSTEMS_BY_NAME)
    assert DRIFT_ROUTERS == (("S3-TM", "SALB"), ("key grouping", "pkg_global"),
                             ("PS2Stream", "hybrid"), ("Fabret", "propagation"))  # fmt: skip
    assert [s for s, a in SYSTEMS_BY_NAME.items() if a.learns_online] == ["key grouping"]


@pytest.mark.parametrize("system", list(SYSTEMS_BY_NAME))
def test_an_unknown_router_names_the_system_and_its_choices(system: str) -> None:
    adapter = SYSTEMS_BY_NAME[system]
    choices = ", ".join(adapter.routers)
    stream = pd.DataFrame({"window": [0]})
    message = re.escape(f"unknown router 'magic' of {system}; choose from {choices}")
    with pytest.raises(ValueError, match=message):
        adapter.route("magic", 2, stream, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        route(system, "magic", 2, stream, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_workers must be >= 1"):
        adapter.route(adapter.routers[0], 0, stream, None)  # type: ignore[arg-type]


def test_an_unknown_system_or_registry_entry_is_a_clear_error() -> None:
    from routelab.compare.routers import _compared
    from routelab.s3tm.mappings import MAPPINGS

    systems = ", ".join(SYSTEMS_BY_NAME)
    with pytest.raises(ValueError, match=re.escape(f"'Storm'; choose from {systems}")):
        route("Storm", "kg", 2, pd.DataFrame({"window": [0]}), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown router 'magic'; choose from hash, SALB"):
        system_of("magic")
    assert system_of("fish") == "key grouping"
    with pytest.raises(ValueError, match="not mapping methods of their registry: \\['kg'\\]"):
        _compared(MAPPINGS, "hash", "kg")


@pytest.fixture(scope="module")
def tiny(small):  # noqa: ANN001, ANN201
    """Every eighth post of the small stream: 375 posts, still four windows."""
    stream, interests = small
    return stream.iloc[::8].reset_index(drop=True), interests


@pytest.mark.parametrize(
    ("system", "router"), [(s, r) for s, a in SYSTEMS_BY_NAME.items() for r in a.routers]
)
def test_every_router_of_every_adapter_routes_a_tiny_stream(tiny, system: str, router: str) -> None:  # noqa: ANN001
    stream, interests = tiny
    assert np.bincount(stream["window"]).tolist() == [94, 94, 94, 93]
    r = SYSTEMS_BY_NAME[system].route(router, 2, stream, interests, train_windows=1)
    assert isinstance(r, Routing)
    assert (r.system, r.router, r.n_workers) == (system, router, 2)
    assert r.window_loads.shape == (4, 2) and r.state.shape == (2,)
    assert (r.row()["system"], r.row()["router"]) == (system, router)


def test_each_adapter_answers_as_its_paper_does_and_only_key_grouping_routes_keys(tiny) -> None:  # noqa: ANN001
    """``answer`` is the system's own pairs function (PS2Stream on the interests' regions,
    256 cells a side, as ``routelab compare run`` reports it); key grouping matches
    nothing (None) and is the one system whose tuples are keys."""
    from routelab.compare.routers import fabret_pairs, s3tm_pairs, spatial_pairs

    stream, interests = tiny
    kw = {"train_windows": 1, "seed": 0}
    want = {
        "S3-TM": s3tm_pairs("hash", 2, stream, interests, **kw),
        "key grouping": None,
        "PS2Stream": spatial_pairs("kd-tree", 2, stream, interests, **kw, region=True, g=256),
        "Fabret": fabret_pairs("counting", 2, stream, interests, **kw),
    }
    first = {"S3-TM": "hash", "key grouping": "kg", "PS2Stream": "kd-tree", "Fabret": "counting"}
    for name, system in SYSTEMS_BY_NAME.items():
        assert system.answer(first[name], 2, stream, interests, **kw) == want[name], name
        assert system.routes_keys == (name == "key grouping")
    assert len(want["S3-TM"]) and len(want["Fabret"])  # the tiny stream has matches
    with pytest.raises(ValueError, match="unknown router 'magic' of Fabret"):
        SYSTEMS_BY_NAME["Fabret"].answer("magic", 2, stream, interests)


def test_the_stream_cache_is_renamed_into_place(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """The cached stream is written beside its name and renamed (a reader meets the whole
    file or none); a second call reads it without building."""
    import routelab.compare.stream as cs
    import routelab.paths

    built: list[int] = []
    frame = pd.DataFrame({"post_id": [1, 2], "window": [0, 1]})
    monkeypatch.setattr(routelab.paths, "prepared_dir", lambda: tmp_path)
    monkeypatch.setattr(cs, "_build", lambda *a: built.append(1) or frame)
    monkeypatch.setattr(cs, "_fingerprint", lambda **kw: "test")
    written: list[str] = []
    real_write = pd.DataFrame.to_parquet

    def recording(self, path, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        written.append(Path(path).name)
        return real_write(self, path, *a, **kw)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", recording)
    first = cs.common_stream(None, 2, windows=2)
    files = [p.name for p in (tmp_path / "compare").iterdir()]
    assert files == ["stream-test.parquet"] and written[0].endswith(".partial")
    again = cs.common_stream(None, 2, windows=2)
    assert built == [1]
    pd.testing.assert_frame_equal(again, first)
