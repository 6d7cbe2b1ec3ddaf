"""One set of interests, given to every system in the form it reads.

The interests are notebook 02's topic-based subscriptions (S3-TM Sect. 6.1: an LDA topic
of the stream's posts, then 1-5 of its top words), each also given

* to **S3-TM** as its word set (a post matches if it contains every word);
* to **PS2Stream** as a spatio-textual query: the same words as one AND conjunct, in a
  square of ``side_km`` around a metro (a gazetteer place drawn by population); with
  ``region=False`` the square is the whole country's box, so PS2Stream must return
  exactly S3-TM's matches (tested);
* to **Fabret** as a conjunction of predicates over the posts' attributes: ``topic`` =
  the interest's topic, ``region`` = its metro's region, ``hour`` in a window of
  ``hour_span`` hours (a post's ``topic`` is the topic whose top words it shares most,
  ties to the lower topic, -1 if none). This is the same user's interest put as an
  attribute filter: the answers differ from the word matches by design.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from routelab.compare.stream import ATTRS, REGIONS


@dataclass
class Interests:
    """The interests (``frame``: sub_id, words, topic, metro, lon, lat, rect, region,
    hour_lo, hour_hi) and the topic model they were drawn from."""

    frame: pd.DataFrame
    model: Any  # routelab.corpus.subscriptions.TopicModel

    def __len__(self) -> int:
        return len(self.frame)


def make_interests(
    stream: pd.DataFrame,
    n: int,
    *,
    seed: int = 0,
    n_topics: int = 100,
    passes: int = 3,
    side_km: float = 400.0,
    hour_span: int = 8,
    country: str = "US",
) -> Interests:
    """``n`` interests over ``stream`` (module docstring); the topic model is fitted on the
    stream's posts once and cached."""
    from routelab.corpus.subscriptions import fit_topics, topic_subscriptions
    from routelab.spatial.grid import square_rect
    from routelab.spatial.places import BOXES, box_region, country_places

    if not 1 <= hour_span <= 24:
        raise ValueError(f"hour_span must lie in 1..24, got {hour_span}")
    model = fit_topics(stream[["post_id", "words"]], n_topics, passes=passes, seed=seed, cache=True)
    subs = topic_subscriptions(model, n, seed=seed)
    rng = np.random.default_rng([seed, 17])
    places = country_places(country)
    pop = places.population.to_numpy(dtype=np.float64)
    metro = rng.choice(len(places), size=n, p=pop / pop.sum())
    lon, lat = places.lon.to_numpy()[metro], places.lat.to_numpy()[metro]
    lo_x, lo_y, hi_x, hi_y = BOXES[country]
    rect = square_rect(lon, lat, np.full(n, side_km))
    rect = np.clip(rect, [lo_x, lo_y, lo_x, lo_y], [hi_x, hi_y, hi_x, hi_y])
    hour_lo = rng.integers(0, 24 - hour_span + 1, size=n)
    frame = pd.DataFrame(
        {
            "sub_id": subs["sub_id"].to_numpy(dtype=np.int64),
            "words": [list(w) for w in subs["words"]],
            "topic": subs["topic"].to_numpy(dtype=np.int64),
            "metro": places.name.to_numpy()[metro],
            "lon": lon,
            "lat": lat,
            "rect": list(map(tuple, rect)),
            "region": box_region(lon, lat, country, REGIONS),
            "hour_lo": hour_lo,
            "hour_hi": hour_lo + hour_span - 1,
        }
    )
    return Interests(frame, model)


def post_topics(stream: pd.DataFrame, model: Any) -> np.ndarray:
    """Each post's topic: the one whose top words it shares most (ties: the lower topic),
    -1 if it shares none."""
    word_topics: dict[str, list[int]] = {}
    for t, words in enumerate(model.words):
        for w in words:
            word_topics.setdefault(w, []).append(t)
    n_topics = len(model.words)
    out = np.full(len(stream), -1, dtype=np.int64)
    for i, words in enumerate(stream["words"]):
        counts = np.zeros(n_topics, dtype=np.int64)
        for w in words:
            for t in word_topics.get(w, ()):
                counts[t] += 1
        if counts.max(initial=0) > 0:
            out[i] = int(np.argmax(counts))
    return out


def s3tm_subscriptions(interests: Interests) -> pd.DataFrame:
    """S3-TM's view: ``sub_id``, ``words``."""
    return interests.frame[["sub_id", "words"]].copy()


def spatial_queries(interests: Interests, region: bool = True, country: str = "US") -> pd.DataFrame:
    """PS2Stream's view: ``id``, ``rect`` (the metro's square, or the whole box with
    ``region=False``), ``dnf`` (the words as one AND conjunct)."""
    from routelab.spatial.places import BOXES

    f = interests.frame
    rects = list(f["rect"]) if region else [tuple(BOXES[country])] * len(f)
    return pd.DataFrame(
        {"id": f["sub_id"].to_numpy(), "rect": rects, "dnf": [[list(w)] for w in f["words"]]}
    )


def predicate_subscriptions(interests: Interests) -> Any:
    """Fabret's view: ``topic = t AND region = r AND hour_lo <= hour <= hour_hi`` per
    interest, over the attributes :data:`~routelab.compare.stream.ATTRS`."""
    from routelab.filtering.model import Subscriptions

    a = {name: i for i, name in enumerate(ATTRS)}
    f = interests.frame
    lists = [
        [(a["topic"], "=", int(t)), (a["region"], "=", int(r)), (a["hour"], ">=", int(lo)),
         (a["hour"], "<=", int(hi))]
        for t, r, lo, hi in zip(f["topic"], f["region"], f["hour_lo"], f["hour_hi"], strict=True)
    ]  # fmt: skip
    return Subscriptions.from_lists(lists, ids=f["sub_id"].tolist(), n_attrs=len(ATTRS))


def post_events(stream: pd.DataFrame, topics: np.ndarray) -> Any:
    """Fabret's view of the posts: one event per post, every attribute of ATTRS."""
    from routelab.filtering.model import Events

    cols = [topics if name == "topic" else stream[name].to_numpy(dtype=np.int64) for name in ATTRS]
    return Events(
        np.stack(cols, axis=1).astype(np.int64), stream["post_id"].to_numpy(dtype=np.int64)
    )


def forms_table(interests: Interests, k: int = 4) -> pd.DataFrame:
    """The first ``k`` interests in each system's form, as text (notebook 13)."""
    f = interests.frame.head(k)
    q = spatial_queries(interests).head(k)
    subs = predicate_subscriptions(interests).as_lists()[:k]
    names = {i: name for i, name in enumerate(ATTRS)}
    return pd.DataFrame(
        {
            "S3-TM: words": f["words"].map(" ".join),
            "PS2Stream: query": [
                f"{' AND '.join(d[0])} in {m} ({r[0]:.1f}, {r[1]:.1f}, {r[2]:.1f}, {r[3]:.1f})"
                for d, m, r in zip(q["dnf"], f["metro"], q["rect"], strict=True)
            ],
            "Fabret: predicates": [
                " AND ".join(f"{names[a]} {op} {v}" for a, op, v in preds) for preds in subs
            ],
        },
        index=pd.Index(f["sub_id"].to_numpy(), name="sub_id"),
    )
