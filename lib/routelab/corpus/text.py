"""Cleaning, stop-word removal and stemming of short texts (S3-TM Sect. 2.1 and 6.1).

S3-TM's Receiver operator turns every publication into a *set of words*: "cleaning
involves removing any non-word tokens (numbers are kept), links starting with the word
'http', words starting with @ (screen names), and punctuations. Each word is stemmed using
Porter's algorithm. Stop word removal is performed based on a common stop words list"
(Sect. 6.1). This module holds those rules as pure Python functions usable on one string;
:mod:`routelab.corpus.preprocess` applies them on Spark.

The rules, in order (each choice the paper leaves open is marked *choice*):

1. HTML entities are decoded (``&amp;`` -> ``&``, ``&#39;`` -> ``'``): tweets arrive
   HTML-escaped from the Twitter API.
2. Unicode NFKC normalization (*choice*): full-width and "mathematical bold" letters
   become plain letters, ligatures are split, so look-alike spellings give one word.
3. Lowercase.
4. Links are dropped: every token that starts with ``http`` (``http://``, ``https://t.co/x``,
   and any other ``http``-prefixed token) up to the next white space.
5. Screen names are dropped: ``@`` followed by word characters, when the ``@`` does not
   follow a letter or digit (so ``RT @x:`` loses ``@x``; an e-mail address is not a
   screen name and is split into words).
6. Words are maximal runs of Unicode letters and digits, optionally joined by inner
   apostrophes (``don't``, ``rock'n'roll``). Everything else is punctuation, symbols or
   emoji and is dropped. Numbers are kept (``2013``; ``$5`` -> ``5``; ``3.5`` -> ``3``, ``5``).
   Underscores separate words.
7. Hashtags (*choice*): ``#`` is punctuation, so ``#Obama`` gives the word ``obama`` (the
   same word as in plain text, which is what word-to-matcher routing wants).
8. Apostrophes (*choice*): typographic apostrophes (``’``, ``ʼ``, `````) are normalized to
   ``'``; stop words are removed while the apostrophe is still there (Spark's list holds
   ``don't``, ``i'll``, ...), and only then is the apostrophe deleted (``obama's`` ->
   ``obamas`` -> stem ``obama``). Removing apostrophes first would turn ``we'll``,
   ``i'll``, ``she'll`` into the real words ``well``, ``ill``, ``shell``. Contractions
   typed without the apostrophe (``dont``, ``im``) are in the stop-word list as well.
9. Stop words are removed: by default (``STOP_LISTS["spark+glasgow"]``) the list in
   ``routelab/corpus/data/stopwords_en.txt`` (Spark's English list plus tweet-specific tokens)
   joined with gensim's ``STOPWORDS`` (the Glasgow information-retrieval list). The paper used
   Mallet's list, which is not redistributable here; Spark's 181 words alone let common
   verbs and quantifiers that Mallet's list removes ("may", "get", "make", "also", "one")
   into the LDA topics. The Glasgow list's few nouns that carry topic content in news tweets
   (:data:`GLASGOW_CONTENT_WORDS`: "bill", "fire", "system", ...) are kept. ``"spark"``
   selects the shorter list (the default before the Glasgow list was added; for a whole
   run, ``ROUTELAB_READING=stoplist``: :func:`default_stop_list`).
10. Porter stemming (:class:`nltk.stem.PorterStemmer`). Default mode ``"original"``
    (``ORIGINAL_ALGORITHM``: Porter's 1980 algorithm, the paper's reference [18]);
    ``"nltk"`` and ``"martin"`` select NLTK's extended variants (``"nltk"`` for a whole run,
    ``ROUTELAB_READING=stemmer``: :func:`default_stem_mode`).
11. A post is the *set* of its remaining words: :func:`clean_words` returns them distinct
    and sorted.

Stemming is the hot spot, and tweet vocabularies are Zipfian, so :func:`get_stemmer`
returns one process-wide :class:`CachedStemmer` per mode that remembers the stem of every
word it has seen (bounded; cleared when full). Spark reuses Python workers, so each worker
process builds its cache once.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Collection, Iterable
from functools import lru_cache
from importlib import resources

from routelab.readings import pick

STEM_MODES = ("original", "nltk", "martin")
DEFAULT_STEM_MODE = "original"


def default_stem_mode() -> str:
    """The stemming mode when none is given: :data:`DEFAULT_STEM_MODE` (Porter 1980), or
    NLTK's extensions (``"nltk"``) for a run with ``ROUTELAB_READING=stemmer``
    (:mod:`routelab.readings`)."""
    return pick("stemmer", DEFAULT_STEM_MODE, "nltk")


_LINK = re.compile(r"(?<![^\W_])http\S*")
_MENTION = re.compile(r"(?<![^\W_])@\w+")
_APOSTROPHES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'", "\u2032": "'"}
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# characters whose presence means the slow path (HTML entity or non-ASCII) is needed
_NEEDS_UNESCAPE = "&"


def tokenize(text: str | None) -> list[str]:
    """Clean one text into its word tokens, in order, duplicates kept (rules 1-8 above).

    Stop words are still present and nothing is stemmed; inner apostrophes are kept
    (normalized to ``'``) so that stop words such as ``don't`` can be recognized.

    >>> tokenize("RT @nasa: Launch at 5PM!! #Space https://t.co/x &amp; more")
    ['rt', 'launch', 'at', '5pm', 'space', 'more']
    """
    if not text:
        return []
    if _NEEDS_UNESCAPE in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    else:
        text = text.replace("`", "'")
    text = text.lower()
    if "http" in text:
        text = _LINK.sub(" ", text)
    if "@" in text:
        text = _MENTION.sub(" ", text)
    return _WORD.findall(text)


STOP_LISTS = ("spark+glasgow", "spark")
DEFAULT_STOP_LIST = "spark+glasgow"
# Nouns and adjectives of the Glasgow stop list (gensim's STOPWORDS) that name things news
# tweets are about ("the health-care bill", "a fire", "the health system"): kept as words.
GLASGOW_CONTENT_WORDS = frozenset(
    {"bill", "computer", "cry", "fire", "interest", "kg", "km", "mill", "system", "thick", "thin"}
)


def default_stop_list() -> str:
    """The stop-word list when none is given: :data:`DEFAULT_STOP_LIST`, or ``"spark"`` for a
    run with ``ROUTELAB_READING=stoplist`` (:mod:`routelab.readings`)."""
    return pick("stoplist", DEFAULT_STOP_LIST, "spark")


def load_stopwords(stop_list: str | None = None) -> frozenset[str]:
    """A stop-word list (S3-TM Sect. 6.1: "a common stop words list"; the paper used Mallet's).

    ``"spark+glasgow"`` (default): ``routelab/corpus/data/stopwords_en.txt`` (Spark's English
    list plus tweet tokens; see its header) and gensim's ``STOPWORDS`` (the Glasgow list) minus
    :data:`GLASGOW_CONTENT_WORDS`, closer to Mallet's longer list. ``"spark"``: the file alone.
    ``None``: :func:`default_stop_list` (the default unless the reading is flipped).
    """
    return _load_stopwords(default_stop_list() if stop_list is None else stop_list)


@lru_cache(maxsize=len(STOP_LISTS))
def _load_stopwords(stop_list: str) -> frozenset[str]:
    if stop_list not in STOP_LISTS:
        raise ValueError(f"unknown stop list {stop_list!r}; choose from {', '.join(STOP_LISTS)}")
    raw = resources.files("routelab.corpus").joinpath("data/stopwords_en.txt").read_text("utf-8")
    words = set()
    for line in raw.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words.add(line.lower().translate(_APOSTROPHES))
    if stop_list == "spark+glasgow":
        from gensim.parsing.preprocessing import STOPWORDS

        words |= {w.lower().translate(_APOSTROPHES) for w in STOPWORDS} - GLASGOW_CONTENT_WORDS
    return frozenset(words)


class CachedStemmer:
    """Porter stemmer with a memo of every word stemmed so far (S3-TM Sect. 6.1).

    Args:
        mode: ``"original"`` (Porter 1980), ``"nltk"`` or ``"martin"`` (NLTK's extensions);
            ``None``: :func:`default_stem_mode`.
        max_size: the cache is cleared when it holds this many words (bounds memory on
            unbounded vocabularies; Zipfian text refills the hot words at once).
    """

    def __init__(self, mode: str | None = None, max_size: int = 1_000_000) -> None:
        from nltk.stem.porter import PorterStemmer

        mode = default_stem_mode() if mode is None else mode
        modes = {
            "original": PorterStemmer.ORIGINAL_ALGORITHM,
            "nltk": PorterStemmer.NLTK_EXTENSIONS,
            "martin": PorterStemmer.MARTIN_EXTENSIONS,
        }
        if mode not in modes:
            raise ValueError(f"unknown stemming mode {mode!r}; choose from {', '.join(modes)}")
        self.mode = mode
        self.max_size = max_size
        self._stem = PorterStemmer(mode=modes[mode]).stem
        self.cache: dict[str, str] = {}
        self.hits = 0
        self.misses = 0

    def stem(self, word: str) -> str:
        """The Porter stem of a lowercase word."""
        try:
            result = self.cache[word]
        except KeyError:
            self.misses += 1
            if len(self.cache) >= self.max_size:
                self.cache.clear()
            result = self.cache[word] = self._stem(word, to_lowercase=False)
            return result
        self.hits += 1
        return result

    __call__ = stem


_STEMMERS: dict[str, CachedStemmer] = {}


def get_stemmer(mode: str | None = None) -> CachedStemmer:
    """The process-wide cached stemmer for ``mode`` (one per Spark Python worker; ``None``:
    :func:`default_stem_mode`)."""
    mode = default_stem_mode() if mode is None else mode
    stemmer = _STEMMERS.get(mode)
    if stemmer is None:
        stemmer = _STEMMERS[mode] = CachedStemmer(mode)
    return stemmer


def clean_words(
    text: str | None,
    stopwords: Collection[str] | None = None,
    stem: bool = True,
    stem_mode: str | None = None,
) -> list[str]:
    """A post as S3-TM sees it: the sorted set of its cleaned, stemmed, non-stop words.

    Args:
        text: the raw post text (``None`` or empty gives ``[]``).
        stopwords: words to remove (lowercase, apostrophes as ``'``); ``None`` means
            :func:`load_stopwords`, an empty set keeps every word.
        stem: apply Porter stemming.
        stem_mode: ``"original"``, ``"nltk"`` or ``"martin"`` (see :class:`CachedStemmer`);
            ``None``: :func:`default_stem_mode` (``"original"`` unless the reading is flipped).

    >>> clean_words("RT @who: Don't panic!! The flu vaccines are working #flu")
    ['flu', 'panic', 'vaccin', 'work']
    """
    stops = load_stopwords() if stopwords is None else stopwords
    stemmer = get_stemmer(stem_mode).stem if stem else None
    return _clean_tokens(tokenize(text), stops, stemmer)


def clean_many(
    texts: Iterable[str | None],
    stopwords: Collection[str] | None = None,
    stem: bool = True,
    stem_mode: str | None = None,
) -> list[list[str]]:
    """:func:`clean_words` over many texts, with the lookups hoisted out of the loop."""
    stops = load_stopwords() if stopwords is None else stopwords
    stemmer = get_stemmer(stem_mode).stem if stem else None
    return [_clean_tokens(tokenize(t), stops, stemmer) for t in texts]


def _clean_tokens(tokens: list[str], stops: Collection[str], stemmer) -> list[str]:
    words = set()
    for token in tokens:
        if token in stops:
            continue
        if "'" in token:
            token = token.replace("'", "")
        words.add(stemmer(token) if stemmer is not None else token)
    return sorted(words)


def surface_forms(
    texts: Iterable[str | None],
    stopwords: Collection[str] | None = None,
    stem_mode: str | None = None,
) -> dict[str, str]:
    """Stem -> its most frequent surface form in ``texts`` (cleaned exactly as
    :func:`clean_words` cleans them), for showing words to people: "insurance", not
    "insur". Ties go to the alphabetically first form.

    >>> surface_forms(["insurance insured", "insurance"])["insur"]
    'insurance'
    """
    from collections import Counter

    stops = load_stopwords() if stopwords is None else stopwords
    stemmer = get_stemmer(stem_mode).stem
    counts: Counter[tuple[str, str]] = Counter()
    for text in texts:
        for token in tokenize(text):
            if token in stops:
                continue
            word = token.replace("'", "")
            counts[(stemmer(word), word)] += 1
    best: dict[str, tuple[int, str]] = {}
    for (stem, word), n in counts.items():
        current = best.get(stem)
        if current is None or (-n, word) < (-current[0], current[1]):
            best[stem] = (n, word)
    return {stem: word for stem, (_, word) in best.items()}


def readable(words: Iterable[str], forms: dict[str, str]) -> list[str]:
    """Each stem shown as its surface form (the stem itself if it has none)."""
    return [forms.get(w, w) for w in words]
