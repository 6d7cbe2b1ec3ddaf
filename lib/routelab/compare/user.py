"""A user's own posts and interests in the form the five routers read (``routelab compare
run``).

Posts: CSV or Parquet with ``id``, ``text``, ``lat``, ``lon``, ``ts`` (seconds, Unix time,
UTC) and optionally ``author``. Interests: ``id``, ``keywords`` (words joined by AND, or
simply side by side), ``min_lat``, ``min_lon``, ``max_lat``, ``max_lon`` and optionally
``hour_lo`` and ``hour_hi`` (0-23, both included; default the whole day).

Both files go through PS2Stream's reader (:func:`routelab.spatial.io.read_user_stream`):
the same cleaning and stemming of texts and keywords, the same bad records by reason with
file:line. On top of it, an interest whose keywords hold OR is a bad record
(``or_keywords``: S3-TM's and Fabret's interests are one conjunction of words), an hour
outside 0-23 or ``hour_lo > hour_hi`` is ``bad_hours``, and a post needs a ``ts`` (it
orders the stream, cuts the windows and gives Fabret's ``hour`` and ``weekday``); a posts
file without the column is an error, as are interests with ``insert``/``delete`` times
(the comparison's interests are standing ones).

Each system reads the interests as notebook 13 gives them (:mod:`routelab.compare.interests`)
with one difference, ours: **every interest is its own topic**. Notebook 13 draws its
interests from an LDA topic model of the posts; a user's interests come with no model, so
the "topic" of interest ``i`` is ``i`` itself, and a post's topic (Fabret's ``topic``
attribute) is the interest of which it holds the largest share of words, then the most
words, then the first (-1 if it holds none: :func:`interest_topics`). Notebook 13's rule
(the most shared top words) would give a two-word interest every post of a one-word
interest it overlaps. Fabret's subscription of interest ``i`` is then ``topic = i AND
region = r AND hour_lo <= hour <= hour_hi``, ``r`` the region of the rectangle's centre in
the posts' bounding box cut 10 x 10 (notebook 13 cuts the country's box alike). Key
grouping's keys are each post's author (``@author``, when the column is given) and its
``#hashtags`` (lower-cased, from the raw text).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from routelab.badrecords import BadRecordReport
from routelab.compare.interests import Interests
from routelab.compare.stream import REGIONS, hashtags
from routelab.errors import BadInputError

POST_COLUMNS = ("id", "text", "lat", "lon", "ts")


@dataclass
class OwnTopics:
    """The topic model of a user's interests: topic ``i`` is interest ``i``'s words
    (the ``words`` attribute :func:`~routelab.compare.interests.post_topics` reads)."""

    words: list[list[str]]


@dataclass
class UserData:
    """A user's stream and interests (module docstring); ``post_ids`` / ``interest_ids``:
    the user's ids of the stream's ``post_id`` / the interests' ``sub_id`` (0, 1, ...)."""

    stream: pd.DataFrame
    interests: Interests
    post_ids: np.ndarray
    interest_ids: np.ndarray
    authors: bool


def _terms(vocab_terms: list[str], ptr: np.ndarray, terms: np.ndarray, i: int) -> list[str]:
    return [vocab_terms[t] for t in terms[ptr[i] : ptr[i + 1]]]


def interest_topics(
    post_words: Iterable[Sequence[str]], interests: Sequence[Sequence[str]]
) -> np.ndarray:
    """Each post's topic among a user's interests (module docstring): the interest of which
    it holds the largest share of words, then the most words, then the first; -1 if it
    holds no word of any."""
    index: dict[str, list[int]] = {}
    for i, words in enumerate(interests):
        for w in set(words):
            index.setdefault(w, []).append(i)
    sizes = np.array([max(len(set(w)), 1) for w in interests], dtype=np.float64)
    out = []
    for words in post_words:
        shared = np.zeros(len(interests), dtype=np.int64)
        for w in set(words):
            for i in index.get(w, ()):
                shared[i] += 1
        if shared.max(initial=0) == 0:
            out.append(-1)
            continue
        # lexsort: the last key is the primary one; -i keeps the first on ties
        order = np.lexsort((-np.arange(len(interests)), shared, shared / sizes))
        out.append(int(order[-1]))
    return np.array(out, dtype=np.int64)


def read_user_compare(
    posts_path: Path, interests_path: Path, bad: BadRecordReport, windows: int = 12
) -> UserData:
    """The posts and interests files (module docstring) as the common stream and its
    interests; bad records go to ``bad``."""
    from routelab.spatial.io import read_table, read_user_stream
    from routelab.spatial.places import box_region

    posts_raw, p_first = read_table(posts_path, POST_COLUMNS)
    ints_raw, i_first = read_table(interests_path, ())
    timed = [c for c in ("insert", "delete") if c in ints_raw.columns]
    if timed:
        raise BadInputError(
            f"{interests_path}: column(s) {', '.join(timed)}: the comparison's interests are "
            f"standing ones; drop the time columns (routelab spatial match reads them)"
        )
    st = read_user_stream(posts_path, interests_path, bad)
    vocab = st.vocab.terms
    o, q = st.objects, st.queries
    rows = st.info["object_rows"]
    # interests: one AND of words, hours in 0..23
    words, keep_q = [], np.ones(len(q), dtype=bool)
    q_rows = st.info["query_rows"]
    hours = np.tile([0, 23], (len(q), 1)).astype(np.float64)
    for col, j in (("hour_lo", 0), ("hour_hi", 1)):
        if col in ints_raw.columns:
            vals = pd.to_numeric(ints_raw[col].iloc[q_rows], errors="coerce").to_numpy(float)
            blank = ints_raw[col].iloc[q_rows].astype(str).str.strip().isin(("", "nan", "None"))
            hours[:, j] = np.where(blank, hours[:, j], vals)
    for k in range(len(q)):
        dnf = q.dnf(k)
        line = i_first + int(q_rows[k])
        text = str(ints_raw["keywords"].iloc[q_rows[k]])
        lo, hi = hours[k]
        if len(dnf) != 1:
            bad.add("or_keywords", interests_path.name, line, text,
                    "an interest is one AND of words (S3-TM and Fabret read no OR)")  # fmt: skip
            keep_q[k] = False
        elif not (np.isfinite([lo, hi]).all() and 0 <= lo <= hi <= 23 and lo == int(lo)
                  and hi == int(hi)):  # fmt: skip
            row = ",".join(map(str, ints_raw.iloc[q_rows[k]].tolist()))
            bad.add("bad_hours", interests_path.name, line, row,
                    "hour_lo and hour_hi are whole hours with 0 <= hour_lo <= hour_hi <= 23")  # fmt: skip
            keep_q[k] = False
        words.append(sorted({vocab[t] for t in dnf[0]}) if len(dnf) == 1 else [])
    if not keep_q.any():
        raise BadInputError(
            f"{interests_path}: no usable interest (bad records: "
            + ", ".join(f"{n:,} {reason}" for reason, n in sorted(bad.counts.items()))
            + ")"
        )
    # posts, in time order
    ts = pd.to_numeric(posts_raw["ts"].iloc[rows], errors="coerce").to_numpy(np.float64)
    order = np.argsort(ts, kind="stable")
    n = len(order)
    if n < windows:
        raise BadInputError(f"{posts_path}: {n} usable posts cannot fill --windows {windows}")
    text = posts_raw["text"].iloc[rows].astype(str).to_numpy()[order]
    authors = "author" in posts_raw.columns
    account = (
        posts_raw["author"].iloc[rows].astype(str).str.strip().to_numpy()[order]
        if authors
        else np.full(n, "", dtype=object)
    )
    lon, lat = o.lon[order], o.lat[order]
    qi = np.flatnonzero(keep_q)
    rect = q.rect[qi]
    cx, cy = (rect[:, 0] + rect[:, 2]) / 2, (rect[:, 1] + rect[:, 3]) / 2
    box = (
        float(min(lon.min(), cx.min())), float(min(lat.min(), cy.min())),
        float(max(lon.max(), cx.max())), float(max(lat.max(), cy.max())),
    )  # fmt: skip
    when = pd.to_datetime(ts[order], unit="s", utc=True)
    tags = hashtags(text)
    post_words = [_terms(vocab, o.term_ptr, o.terms, int(i)) for i in order]
    stream = pd.DataFrame(
        {
            "post_id": np.arange(n, dtype=np.int64),
            "ts": when,
            "words": post_words,
            "account": account,
            "hashtags": tags,
            "lon": lon,
            "lat": lat,
            "hour": when.hour.to_numpy(np.int64),
            "weekday": when.weekday.to_numpy(np.int64),
            "n_words": np.array([len(w) for w in post_words], dtype=np.int64),
            "source": np.zeros(n, dtype=np.int64),
            "region": box_region(lon, lat, box, REGIONS),
            "has_link": pd.Series(text).str.contains("http", regex=False).to_numpy(np.int64),
            "n_hashtags": np.array([len(h) for h in tags], dtype=np.int64),
            "window": (np.arange(n) * windows // n).astype(np.int64),
        }
    )
    frame = pd.DataFrame(
        {
            "sub_id": np.arange(len(qi), dtype=np.int64),
            "words": [words[k] for k in qi],
            "topic": np.arange(len(qi), dtype=np.int64),
            "metro": "",
            "lon": cx,
            "lat": cy,
            "rect": list(map(tuple, rect)),
            "region": box_region(cx, cy, box, REGIONS),
            "hour_lo": hours[qi, 0].astype(np.int64),
            "hour_hi": hours[qi, 1].astype(np.int64),
        }
    )
    interests = Interests(frame, OwnTopics(list(frame["words"])))
    stream["topic"] = interest_topics(stream["words"], interests.model.words)
    return UserData(
        stream,
        interests,
        np.asarray(st.info["object_ids"])[order],
        np.asarray(st.info["query_ids"])[qi],
        authors,
    )
