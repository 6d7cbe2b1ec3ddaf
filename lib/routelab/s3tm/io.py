"""A user's own posts and subscriptions as S3-TM corpora (``routelab s3tm route|match``).

The posts are the folder ``routelab s3tm preprocess`` writes (or any Parquet with
``post_id`` and ``words`` array<string>, optionally ``ts``). The subscriptions are either

- the folder ``routelab s3tm subscriptions`` writes (its words are already the posts' stems),
  or
- the user's own file: a CSV with the header ``sub_id,words`` (words separated by spaces)
  or a Parquet with ``sub_id`` (integer) and ``words`` (a list of strings, or one string
  of words separated by spaces). These words are written as people write them, so a word
  that is not already one of the posts' words goes through the posts' own normalisation
  (:mod:`routelab.corpus.text`, S3-TM Sect. 6.1: cleaning, stop words, Porter stems, with
  the stemming settings the posts' ``report.json`` records): ``Coffee`` becomes ``coffe``
  and ``vaccines`` ``vaccin``, as in the posts (the folder's words are posts' words, kept). A
  subscription with a word that cleaning removes is refused, not shortened (a conjunction
  without one of its words would match more than asked): a stop word (``stop_word``: no post
  holds one, so it could never match) or a word without a letter or digit (``no_words``);
  so are ids that are not integers (``bad_id``) and repeated ids (``duplicate_id``), each a
  bad record with file:line.

:func:`learning_split` divides the posts as the paper's experiments do (Sect. 6.1: the
mapping is learned on past publications and measured on later ones): in time order when
the posts carry times, else in ``post_id`` order; the first ``fraction`` learn, the rest are
held out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.badrecords import BadRecordExample, BadRecordReport
from routelab.corpus.text import DEFAULT_STEM_MODE
from routelab.errors import BadInputError
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class UserPosts:
    """Posts in stream order (time, then id) and what could not be used."""

    corpus: Corpus
    ordered_by_time: bool
    report: BadRecordReport


def _parquet_input(path: str | Path, inner: str, option: str, made_by: str) -> Path | None:
    """The Parquet an S3-TM verb reads from ``path``: ``path/inner`` (the folder ``made_by``
    writes) or a Parquet file/folder itself; ``None`` for a remote path (left to Spark). A
    folder or file of another kind is a :class:`BadInputError` saying what was expected."""
    from routelab.datasets.headers import local_files

    p = Path(path)
    files = local_files(p)  # raises when nothing is there
    if files is None:
        return None
    if (p / inner).exists():
        return p / inner
    if all(f.suffix == ".parquet" for f in files):
        return p
    raise BadInputError(
        f"{path}: no {inner} here; {option} wants the folder `{made_by}` writes "
        "(or a Parquet of its columns)"
    )


def check_posts(path: str | Path, option: str = "--posts") -> None:
    """Before Spark starts: ``path`` is a local folder of word-set posts (or a remote path,
    left to Spark) whose Parquet has ``words``."""
    from routelab.datasets.headers import require_columns

    target = _parquet_input(path, "posts.parquet", option, "routelab s3tm preprocess")
    if target is not None:
        require_columns(target, "parquet", {f"{option} (word sets)": "words"})


#: what ``--subscriptions`` reads, for the verbs' help
SUBSCRIPTIONS_HELP = (
    "the folder `routelab s3tm subscriptions` writes, or your own subscriptions: a CSV with "
    "the header sub_id,words (sub_id an integer, words separated by spaces, e.g. "
    "`3,vaccine coffee`) or a Parquet with sub_id and words (a list of strings or one "
    "string). Your words are cleaned and stemmed like the posts (`Coffee` matches the "
    "posts' `coffe`); a subscription with a stop word such as `the` (no post holds one, so "
    "it could never match) is refused and listed in bad_records.json"
)


def _is_csv(path: Path) -> bool:
    return path.is_file() and path.name.lower().removesuffix(".gz").endswith((".csv", ".txt"))


def check_subscriptions(path: str | Path, option: str = "--subscriptions") -> None:
    """Before Spark starts: ``path`` holds subscriptions with ``sub_id`` and ``words``
    (the folder of ``routelab s3tm subscriptions``, a Parquet or a CSV)."""
    from routelab.datasets.headers import local_files, require_columns

    wanted = {f"{option} (ids)": "sub_id", f"{option} (words)": "words"}
    if local_files(path) is not None and _is_csv(Path(path)):
        require_columns(path, "csv", wanted)
        return
    made_by = "routelab s3tm subscriptions"
    target = _parquet_input(path, "subscriptions.parquet", option, made_by)
    if target is not None:
        require_columns(target, "parquet", wanted)


def load_posts(spark: SparkSession, path: str | Path) -> UserPosts:
    """Read word-set posts in stream order; posts without words are counted (``no_words``),
    not matched or learned from."""
    from pyspark.sql import functions as F

    from routelab.corpus.preprocess import read_posts

    df = read_posts(spark, path)
    if "post_id" not in df.columns:
        raise BadInputError(f"{path}: no 'post_id' column; is it `routelab s3tm preprocess`'s?")
    timed = "ts" in df.columns and df.filter(F.col("ts").isNotNull()).limit(1).count() > 0
    order = ["ts", "post_id"] if timed else ["post_id"]
    frame = df.select("post_id", "words", *(["ts"] if timed else [])).toPandas()
    frame = frame.sort_values(order, kind="stable", ignore_index=True)
    frame, report = _without_empty(frame[["post_id", "words"]], "post_id", path)
    if frame.empty:
        raise BadInputError(f"{path}: no post has any word (nothing to route or match)")
    frame["words"] = frame["words"].map(list)
    return UserPosts(Corpus.from_frame(frame), timed, report)


@dataclass(frozen=True)
class Normalisation:
    """How the posts' words were made, applied to a user's subscription words (S3-TM
    Sect. 6.1; :func:`routelab.corpus.text.clean_words`): stemming on/off, its variant, and
    where the settings come from."""

    stem: bool = True
    stem_mode: str = DEFAULT_STEM_MODE
    source: str = "defaults of `routelab s3tm preprocess` (no report.json beside the posts)"

    def words(self, text: str) -> list[str]:
        """The words of ``text`` as a post's words would be: distinct, sorted."""
        from routelab.corpus.text import clean_words

        return clean_words(text, stem=self.stem, stem_mode=self.stem_mode)


def posts_normalisation(posts: str | Path) -> Normalisation:
    """The stemming settings ``routelab s3tm preprocess`` recorded in the posts' folder
    (``report.json``); the preprocessing defaults when there is none."""
    import json

    p = Path(posts)
    for folder in (p, p.parent):
        report = folder / "report.json"
        if report.is_file():
            try:
                settings = json.loads(report.read_text()).get("settings", {})
            except (OSError, ValueError):
                continue
            stem = bool(settings.get("stem", True))
            return Normalisation(
                stem, settings.get("stem_mode") or DEFAULT_STEM_MODE, f"{report} (settings)"
            )
    return Normalisation()


@dataclass
class UserSubscriptions:
    """Subscriptions as a :class:`Corpus` (``post_ids`` = subscription ids), the records that
    could not be used, and what normalising their words did (``words``: the settings, words
    changed by cleaning/stemming and the stop words that made a subscription refused, the
    subscriptions holding a word no post has)."""

    corpus: Corpus
    report: BadRecordReport
    words: dict[str, Any] = field(default_factory=dict)


def _subscription_rows(
    path: Path, report: BadRecordReport
) -> list[tuple[int, str, list[str], str]]:
    """(line, sub_id as text, the given words, excerpt) of every record: CSV lines (a row of
    the wrong width is counted, ``malformed_row``) or Parquet records (numbered from 1)."""
    import csv

    from routelab.corpus.subscriptions import SUBSCRIPTIONS_DIR

    rows = []
    if _is_csv(path):
        with path.open(newline="", encoding="utf-8", errors="replace") as fh:
            reader = csv.reader(fh)
            header = [c.strip() for c in next(reader, [])]
            if not {"sub_id", "words"} <= set(header):
                raise BadInputError(f"{path}:1: header {','.join(header)!r}, expected sub_id,words")
            at_id, at_words = header.index("sub_id"), header.index("words")
            for row in reader:
                report.records += 1
                if not row or all(not c.strip() for c in row):
                    report.add("blank_line", str(path), reader.line_num, "")
                elif len(row) != len(header):
                    report.add("malformed_row", str(path), reader.line_num, ",".join(row),
                               f"{len(row)} fields, expected {len(header)}")  # fmt: skip
                else:
                    given = row[at_words].split()
                    rows.append((reader.line_num, row[at_id].strip(), given, ",".join(row)))
        return rows
    if (path / SUBSCRIPTIONS_DIR).exists():
        path = path / SUBSCRIPTIONS_DIR
    try:
        frame = pd.read_parquet(path, columns=["sub_id", "words"])
    except Exception as exc:  # pyarrow's errors vary; one line for the user
        raise BadInputError(f"{path}: cannot read as Parquet: {exc}") from None
    report.records += len(frame)
    for i, (sid, words) in enumerate(zip(frame["sub_id"], frame["words"], strict=True)):
        if words is None:
            given = []
        elif isinstance(words, str):
            given = words.split()
        else:
            given = [str(w) for w in words if w is not None]
        rows.append((i + 1, "" if sid is None else str(sid), given, f"{sid},{' '.join(given)}"))
    return rows


def read_subscriptions_file(
    path: str | Path, vocab: Sequence[str] | None = None, normalisation: Normalisation | None = None
) -> UserSubscriptions:
    """Subscriptions (module docstring) with their words made the posts' words: a word that
    is already one of the posts' words (``vocab``; the folder ``routelab s3tm subscriptions``
    writes holds only those) is kept; any other goes through ``normalisation`` (cleaning,
    stop words, the posts' stemming), so ``Coffee`` becomes ``coffe``. A record with a word
    that cleaning removes (a stop word, ``stop_word``; no letter or digit, ``no_words``), with
    an id that is not an int64 integer, or repeating an id is counted (file:line) and
    skipped; subscriptions holding a word no post has are kept (they match nothing here) and
    counted in ``words``."""
    from routelab.corpus.text import load_stopwords, tokenize
    from routelab.s3tm.matching_load import subscription_corpus

    path = Path(path)
    norm = normalisation or Normalisation()
    known = frozenset(vocab or ())
    stops = load_stopwords()
    report = BadRecordReport()
    where = str(path)
    cache: dict[str, list[str]] = {}
    changed: dict[str, str] = {}
    stop_words: set[str] = set()
    ids: list[int] = []
    lists: list[list[str]] = []
    first_line: dict[int, int] = {}
    for line, sid, given, raw in _subscription_rows(path, report):
        try:
            sub_id = int(sid)
            np.int64(sub_id)
        except (ValueError, OverflowError):
            report.add("bad_id", where, line, raw, "sub_id must be an integer (64-bit)")
            continue
        if sub_id in first_line:
            report.add("duplicate_id", where, line, raw, f"first at line {first_line[sub_id]}")
            continue
        first_line[sub_id] = line
        words: set[str] = set()
        empty = None  # the first given word that cleaning removes entirely
        for word in given:
            made = cache.get(word)
            if made is None:
                made = cache[word] = [word] if word in known else norm.words(word)
                if made and made != [word]:
                    changed[word] = " ".join(made)
            if not made:
                empty = word
                break
            words.update(made)
        if empty is not None or not words:
            tokens = tokenize(empty or "")
            if tokens and all(t in stops for t in tokens):
                stop_words.add(empty)
                report.add("stop_word", where, line, raw,
                           f"{empty!r} is a stop word: posts never hold it, so the subscription "
                           "could never match (dropping the word would match more than asked)")  # fmt: skip
            else:
                what = f"{empty!r} has no letter or digit" if empty else "no words"
                report.add("no_words", where, line, raw, f"{what}: it could never match")
            continue
        ids.append(sub_id)
        lists.append(sorted(words))
    if not ids:
        raise BadInputError(f"{path}: no usable subscription\n{report}")
    frame = pd.DataFrame({"sub_id": ids, "words": lists}).sort_values("sub_id", ignore_index=True)
    corpus = subscription_corpus(frame, vocab)
    unseen = [i for i, ws in zip(ids, lists, strict=True) if known and not known.issuperset(ws)]
    info = {
        "normalisation": {
            "stem": norm.stem,
            "stem_mode": norm.stem_mode if norm.stem else None,
            "settings_from": norm.source,
        },
        "words_changed": len(changed),
        "changed_examples": [f"{a} -> {b}" for a, b in sorted(changed.items())[:10]],
        "stop_words_refused": sorted(stop_words)[:20],
        "subscriptions_with_a_word_no_post_has": len(unseen),
        "unseen_examples": unseen[:10],
    }
    return UserSubscriptions(corpus, report, info)


def load_subscriptions(
    spark: SparkSession,
    path: str | Path,
    vocab: list[str] | None = None,
    normalisation: Normalisation | None = None,
) -> UserSubscriptions:
    """:func:`read_subscriptions_file` (``spark`` unused: the subscriptions are read on the
    driver, as the dataflow broadcasts them)."""
    del spark
    return read_subscriptions_file(path, vocab, normalisation)


def describe_normalisation(words: dict[str, Any]) -> None:
    """Print what normalising a user's subscription words did (nothing for the folder of
    ``routelab s3tm subscriptions``)."""
    if not words:
        return
    norm = words["normalisation"]
    how = f"stemmed ({norm['stem_mode']})" if norm["stem"] else "not stemmed"
    print(
        f"subscription words cleaned and {how} like the posts (settings: {norm['settings_from']})"
    )
    if words["changed_examples"]:
        print("  " + ", ".join(words["changed_examples"]))
    if words["stop_words_refused"]:
        refused = ", ".join(words["stop_words_refused"])
        print(f"  subscriptions refused for a stop word (no post holds one): {refused}")
    if words["subscriptions_with_a_word_no_post_has"]:
        print(
            f"  note: {words['subscriptions_with_a_word_no_post_has']:,} subscription(s) hold a "
            f"word no post has, so they match nothing here (e.g. sub_id "
            f"{', '.join(map(str, words['unseen_examples'][:5]))})"
        )


def learning_split(corpus: Corpus, fraction: float) -> tuple[Corpus, Corpus]:
    """(learning posts, held-out posts): the first ``fraction`` of the stream and the rest."""
    if not 0 < fraction < 1:
        raise BadInputError(f"the learning fraction must be in (0, 1), got {fraction}")
    cut = int(round(corpus.n_posts * fraction))
    if cut < 1 or cut >= corpus.n_posts:
        raise BadInputError(
            f"{corpus.n_posts} posts cannot be split {fraction:.0%} / {1 - fraction:.0%}: "
            "each side needs at least one post"
        )
    rows = np.arange(corpus.n_posts)
    return corpus.subset(rows[:cut]), corpus.subset(rows[cut:])


def pairs_frame(matches: pd.DataFrame) -> pd.DataFrame:
    """The dataflow's ``(sub_id, post_id)`` matches as the CLI writes them:
    ``post_id, subscription_id``, sorted."""
    out = pd.DataFrame(
        {
            "post_id": matches["post_id"].to_numpy(np.int64),
            "subscription_id": matches["sub_id"].to_numpy(np.int64),
        }
    )
    return out.sort_values(["post_id", "subscription_id"], ignore_index=True)


def _without_empty(
    frame: pd.DataFrame, id_col: str, path: str | Path
) -> tuple[pd.DataFrame, BadRecordReport]:
    """The rows that have words, and a report counting the others (``no_words``); a
    Parquet record has no line, so an example names the record by its id (line 0)."""
    report = BadRecordReport(records=len(frame))
    empty = frame["words"].map(lambda w: w is None or len(w) == 0).to_numpy()
    if empty.any():
        report.counts["no_words"] = int(empty.sum())
        for rid in frame.loc[empty, id_col].head(5):
            example = BadRecordExample(str(path), 0, f"{id_col} {rid}", "no words")
            report.add_example("no_words", example)
    return frame.loc[~empty].reset_index(drop=True), report
