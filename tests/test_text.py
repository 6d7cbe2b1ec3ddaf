"""Cleaning, stop words and stemming of routelab.corpus.text (S3-TM Sect. 6.1): pure Python."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer

from routelab.corpus.text import (
    CachedStemmer,
    clean_many,
    clean_words,
    get_stemmer,
    load_stopwords,
    tokenize,
)

# -------------------------------------------------------------------------- tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # retweet marker, screen name with colon, link, shouting
        ("RT @nasa: Launch NOW!! https://t.co/x", ["rt", "launch", "now"]),
        # every http-prefixed token goes, wherever it starts after punctuation
        ("see (http://a.b/c) httpfoo http https://t.co/x… end", ["see", "end"]),
        # 'http' inside a word is not a link
        ("xhttp", ["xhttp"]),
        # .@name and (@name) are screen names; an e-mail address is split into words
        (".@FLOTUS met (@x) mail a@b.com", ["met", "mail", "a", "b", "com"]),
        # numbers kept; '$5' -> '5'; '3.5' -> '3', '5'
        ("in 2013 for $5 or 3.5", ["in", "2013", "for", "5", "or", "3", "5"]),
        # hashtags keep their word
        ("#Health #flu_season", ["health", "flu", "season"]),
        # HTML entities decoded first; '&' itself is punctuation
        ("salt &amp; pepper &lt;3 &#39;quoted&#39;", ["salt", "pepper", "3", "quoted"]),
        # emoji and symbols dropped
        ("I ❤️ NY 😀 ✓ → ok", ["i", "ny", "ok"]),
        # typographic quotes and apostrophes
        ("“Don’t” say ‘it’s’", ["don't", "say", "it's"]),
        # full-width and mathematical letters normalized (NFKC)
        ("ＨＥＬＬＯ 𝐁𝐨𝐥𝐝", ["hello", "bold"]),
        # accented letters are letters
        ("Café naïve", ["café", "naïve"]),
        ("", []),
        (None, []),
        ("!!! ... --- :)", []),
    ],
)
def test_tokenize_tricky_tweets(text: str | None, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_tokenize_keeps_order_and_duplicates() -> None:
    assert tokenize("Flu flu FLU shot") == ["flu", "flu", "flu", "shot"]


# -------------------------------------------------------------------------- stop words


def test_stopwords_hold_spark_list_and_tweet_additions() -> None:
    stops = load_stopwords()
    for word in ("the", "and", "i'll", "don't", "couldn't", "would"):  # Spark's list
        assert word in stops
    for word in ("rt", "amp", "via", "dont", "im"):  # additions
        assert word in stops
    for word in ("ill", "hell", "shell", "flu", "2013"):  # real words stay
        assert word not in stops
    assert all(w == w.strip().lower() and w and not w.startswith("#") for w in stops)


def test_default_stop_list_is_closer_to_mallets() -> None:
    """Common verbs and quantifiers that Mallet's list removes are stop
    words by default (they reached the LDA topics with Spark's list alone); the Glasgow list's
    content nouns are kept; "spark" is the shorter list."""
    stops, spark = load_stopwords(), load_stopwords("spark")
    assert spark < stops
    for word in ("may", "get", "make", "also", "one", "well", "really"):
        assert word in stops and word not in spark
    for word in ("bill", "fire", "system", "flu", "ebola", "health"):
        assert word not in stops
    assert clean_words("The bill may get passed") == ["bill", "pass"]
    assert clean_words("The bill may get passed", stopwords=spark) == ["bill", "get", "mai", "pass"]
    with pytest.raises(ValueError, match="unknown stop list"):
        load_stopwords("mallet")


def test_apostrophe_stopwords_removed_before_apostrophes_go() -> None:
    # "we'll" and "she'll" are stop words; the words "well" (in Spark's list) and "shell" are
    # not, and must survive
    assert clean_words("We’ll be well", stem=False, stopwords=load_stopwords("spark")) == ["well"]
    assert clean_words("She’ll find a shell", stem=False) == ["shell"]
    assert clean_words("Obama's dog", stem=False) == ["dog", "obamas"]
    assert clean_words("Obama's dog") == ["dog", "obama"]


def test_custom_and_empty_stopword_sets() -> None:
    assert clean_words("the flu", stopwords=frozenset(), stem=False) == ["flu", "the"]
    assert clean_words("the flu", stopwords={"flu"}, stem=False) == ["the"]


# -------------------------------------------------------------------------- clean_words


def test_clean_words_is_sorted_set_of_stems() -> None:
    text = "RT @who: Running runners RUN!! The flu vaccines are working #flu https://t.co/a"
    # rt/the/are are stop words; run/running/RUN share the stem 'run'
    assert clean_words(text) == ["flu", "run", "runner", "vaccin", "work"]
    assert clean_words(text, stem=False) == [
        "flu",
        "run",
        "runners",
        "running",
        "vaccines",
        "working",
    ]


@pytest.mark.parametrize(
    ("word", "original", "nltk"),
    [
        ("caresses", "caress", "caress"),
        ("ponies", "poni", "poni"),
        ("generously", "gener", "gener"),
        ("meeting", "meet", "meet"),
        ("dying", "dy", "die"),  # NLTK's extension differs from Porter (1980)
        ("2013", "2013", "2013"),
    ],
)
def test_stemming_modes(word: str, original: str, nltk: str) -> None:
    empty: frozenset[str] = frozenset()
    assert clean_words(word, stopwords=empty, stem_mode="original") == [original]
    assert clean_words(word, stopwords=empty, stem_mode="nltk") == [nltk]


def test_unknown_stem_mode_rejected() -> None:
    with pytest.raises(ValueError, match="unknown stemming mode"):
        CachedStemmer("snowball")


def test_only_stopwords_gives_empty_set() -> None:
    assert clean_words("RT @x: the and of to &amp; via https://t.co/z") == []


def test_clean_many_matches_clean_words() -> None:
    texts = ["A b c", None, "Flu shots!! #flu", "", "We’ll see @x"]
    assert clean_many(texts) == [clean_words(t) for t in texts]
    assert clean_many(texts, stem=False) == [clean_words(t, stem=False) for t in texts]


# -------------------------------------------------------------------------- cached stemmer

_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)


@settings(max_examples=300)
@given(st.lists(_words, min_size=1, max_size=30), st.sampled_from(["original", "nltk", "martin"]))
def test_cached_stemmer_agrees_with_nltk(words: list[str], mode: str) -> None:
    modes = {
        "original": PorterStemmer.ORIGINAL_ALGORITHM,
        "nltk": PorterStemmer.NLTK_EXTENSIONS,
        "martin": PorterStemmer.MARTIN_EXTENSIONS,
    }
    reference = PorterStemmer(mode=modes[mode])
    cached = CachedStemmer(mode, max_size=7)  # small: exercises clearing
    for word in words + words:  # second pass hits the cache
        assert cached.stem(word) == reference.stem(word)
    assert len(cached.cache) <= 7
    assert cached.hits + cached.misses == 2 * len(words)


def test_cache_counts_hits() -> None:
    stemmer = CachedStemmer()
    for word in ["running", "running", "runs", "running"]:
        stemmer(word)
    assert (stemmer.hits, stemmer.misses) == (2, 2)
    assert get_stemmer("original") is get_stemmer("original")


# -------------------------------------------------------------------------- invariants

_PIECES = list("aBc dE#@:/.'’&;!? 0123456789_-😀é") + [
    "http",
    "https://",
    "&amp;",
    "RT ",
    "running",
    "the ",
    "don't",
]
_tweety = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=300)
@given(_tweety)
def test_clean_words_invariants(text: str) -> None:
    words = clean_words(text)
    assert words == sorted(set(words))
    for w in words:
        assert re.fullmatch(r"[^\W_]+", w), w  # letters and digits only
        assert not w.startswith("http")
        assert w == w.lower()
    # every word comes from a token that survived tokenization
    tokens = {t.replace("'", "") for t in tokenize(text)}
    unstemmed = set(clean_words(text, stem=False))
    assert unstemmed <= tokens
