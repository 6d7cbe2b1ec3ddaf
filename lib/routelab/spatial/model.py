"""The spatio-textual pub/sub model of PS2Stream (Chen et al., ICDE 2017, Sect. III-A).

* A **spatio-textual object** ``o = (o.psi, o.lambda)``: a set of terms and a point
  (longitude, latitude in degrees).
* An **STS query** ``q = (q.K, q.r)``: a boolean keyword expression over AND/OR and an
  axis-aligned rectangle. ``o`` matches ``q`` iff ``o.lambda`` lies in the *closed*
  rectangle and ``o.psi`` satisfies ``q.K``.
* The stream holds objects, query insertions and query deletions in one order; an object
  is matched against exactly the queries alive at its position.

Expressions are kept in disjunctive normal form (a list of conjuncts). The paper (Sect.
IV-C/IV-D) registers a query under "the least frequent keyword in each conjunctive norm
form"; the rule is only complete per *conjunct of the DNF* (every object that satisfies
the expression satisfies some conjunct and therefore contains that conjunct's key), so
that is the reading taken here: ``RK(q) = {argmin_{t in C_j} f(t)}`` over the
conjuncts ``C_j``, ``f`` = number of sample objects containing ``t``, ties by term id.

Everything is stored column-wise (numpy arrays + CSR offsets) so that the partitioners,
the dispatcher and the worker kernels can work on it without Python objects per tuple.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from routelab.errors import BadInputError
from routelab.hashing import string_hash
from routelab.uniques import unique

#: Tuple kinds of the stream (Sect. III-A): an object, a query insertion, a query deletion.
OBJ, INS, DEL = 0, 1, 2
KIND_NAMES = {OBJ: "OBJ", INS: "INS", DEL: "DEL"}

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


# --------------------------------------------------------------------------- vocabulary


@dataclass
class Vocabulary:
    """Term strings <-> dense term ids (``int32``)."""

    terms: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.terms)

    def add(self, term: str) -> int:
        """The id of ``term``, adding it if new."""
        tid = self.index.get(term)
        if tid is None:
            tid = self.index[term] = len(self.terms)
            self.terms.append(term)
        return tid

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """Sorted unique ids of ``words`` (added if new): an object's term set."""
        return unique(np.fromiter((self.add(w) for w in words), dtype=np.int32))

    def hashes(self, seed: int) -> np.ndarray:
        """Seeded stable 64-bit hash of every term string (routing of unseen terms)."""
        return np.fromiter(
            (string_hash(t, seed) for t in self.terms), dtype=np.uint64, count=len(self.terms)
        )


# --------------------------------------------------------------------------- expressions


def parse_expression(text: str) -> list[list[str]]:
    """Parse a keyword expression into DNF: a list of conjuncts, each a list of keywords.

    Grammar: keywords joined by ``AND``/``OR`` (case-insensitive), ``AND`` binds tighter
    than ``OR``, parentheses group; adjacent keywords without an operator mean ``AND``.
    Duplicate keywords in a conjunct and duplicate conjuncts are removed.

    >>> parse_expression("flu AND vaccine OR measles")
    [['flu', 'vaccine'], ['measles']]
    >>> parse_expression("(a OR b) AND c")
    [['a', 'c'], ['b', 'c']]

    Raises:
        BadInputError: empty expression, unbalanced parentheses, dangling operator.
    """
    tokens = _TOKEN.findall(text or "")
    if not tokens:
        raise BadInputError(f"empty keyword expression {text!r}")
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse_or() -> list[tuple[str, ...]]:
        terms = parse_and()
        while (tok := peek()) is not None and tok.upper() == "OR":
            take()
            terms = terms + parse_and()
        return terms

    def parse_and() -> list[tuple[str, ...]]:
        result = parse_atom()
        while (tok := peek()) is not None and tok != ")" and tok.upper() != "OR":
            if tok.upper() == "AND":
                take()
            right = parse_atom()
            result = [a + b for a in result for b in right]
        return result

    def parse_atom() -> list[tuple[str, ...]]:
        tok = peek()
        if tok is None:
            raise BadInputError(f"keyword expression {text!r} ends with an operator")
        if tok == "(":
            take()
            inner = parse_or()
            if peek() != ")":
                raise BadInputError(f"unbalanced '(' in keyword expression {text!r}")
            take()
            return inner
        if tok == ")" or tok.upper() in ("AND", "OR"):
            raise BadInputError(f"unexpected {tok!r} in keyword expression {text!r}")
        take()
        return [(tok.lower(),)]

    dnf = parse_or()
    if pos != len(tokens):
        raise BadInputError(f"unexpected {tokens[pos]!r} in keyword expression {text!r}")
    seen: dict[tuple[str, ...], None] = {}
    for conj in dnf:
        seen.setdefault(tuple(sorted(set(conj))), None)
    return [list(c) for c in seen]


def format_expression(dnf: Sequence[Sequence[str]]) -> str:
    """The inverse of :func:`parse_expression` (``a AND b OR c``)."""
    return " OR ".join(" AND ".join(c) for c in dnf)


# --------------------------------------------------------------------------- data


def csr_take(ptr: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``index`` of a CSR structure: the new offsets and the positions of their
    entries in the old value array (``values[positions]`` are the new values)."""
    lengths = np.diff(ptr)[index]
    new_ptr = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    positions = np.repeat(ptr[index] - new_ptr[:-1], lengths) + np.arange(new_ptr[-1])
    return new_ptr, positions


@dataclass
class Objects:
    """Spatio-textual objects, column-wise; terms of object ``i`` are
    ``terms[term_ptr[i]:term_ptr[i+1]]`` (sorted, unique)."""

    ids: np.ndarray  # int64
    lon: np.ndarray  # float64
    lat: np.ndarray  # float64
    term_ptr: np.ndarray  # int64, n+1
    terms: np.ndarray  # int32

    def __len__(self) -> int:
        return len(self.ids)

    def terms_of(self, i: int) -> np.ndarray:
        return self.terms[self.term_ptr[i] : self.term_ptr[i + 1]]

    def entry_owner(self) -> np.ndarray:
        """For every CSR entry, the index of its object."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.term_ptr))

    def take(self, index: np.ndarray) -> Objects:
        """The objects at ``index`` (in that order)."""
        index = np.asarray(index, dtype=np.int64)
        ptr, rows = csr_take(self.term_ptr, index)
        return Objects(self.ids[index], self.lon[index], self.lat[index], ptr, self.terms[rows])


@dataclass
class Queries:
    """STS queries, column-wise, with their DNF expression and registering keys.

    ``conj_ptr`` (n+1) indexes conjuncts; conjunct ``j`` holds the terms
    ``conj_terms[cterm_ptr[j]:cterm_ptr[j+1]]``. ``key_ptr``/``keys`` hold ``RK(q)``
    (sorted unique term ids) once :func:`assign_keys` has run.
    """

    ids: np.ndarray  # int64
    rect: np.ndarray  # float64 (n, 4): min_lon, min_lat, max_lon, max_lat
    conj_ptr: np.ndarray  # int64 n+1
    cterm_ptr: np.ndarray  # int64 n_conj+1
    conj_terms: np.ndarray  # int32
    key_ptr: np.ndarray | None = None
    keys: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def dnf(self, i: int) -> list[np.ndarray]:
        """Conjuncts of query ``i`` as term-id arrays."""
        return [
            self.conj_terms[self.cterm_ptr[j] : self.cterm_ptr[j + 1]]
            for j in range(self.conj_ptr[i], self.conj_ptr[i + 1])
        ]

    def keys_of(self, i: int) -> np.ndarray:
        if self.keys is None or self.key_ptr is None:
            raise ValueError("registering keys not assigned; call assign_keys() first")
        return self.keys[self.key_ptr[i] : self.key_ptr[i + 1]]

    def all_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """(query index, term) of every keyword occurrence, duplicates per query removed."""
        n_conj = np.diff(self.conj_ptr)
        conj_owner = np.repeat(np.arange(len(self), dtype=np.int64), n_conj)
        term_owner = np.repeat(conj_owner, np.diff(self.cterm_ptr))
        pairs = unique(term_owner * np.int64(1 << 31) + self.conj_terms.astype(np.int64))
        return pairs >> np.int64(31), (pairs & np.int64((1 << 31) - 1)).astype(np.int32)

    def key_owner(self) -> np.ndarray:
        """For every registering-key entry, the index of its query."""
        if self.key_ptr is None:
            raise ValueError("registering keys not assigned; call assign_keys() first")
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.key_ptr))

    def take(self, index: np.ndarray) -> Queries:
        """The queries at ``index`` (in that order), with their keys if assigned."""
        index = np.asarray(index, dtype=np.int64)
        conj_ptr, conj_rows = csr_take(self.conj_ptr, index)
        cterm_ptr, term_rows = csr_take(self.cterm_ptr, conj_rows)
        out = Queries(
            self.ids[index], self.rect[index], conj_ptr, cterm_ptr, self.conj_terms[term_rows]
        )
        if self.key_ptr is not None and self.keys is not None:
            out.key_ptr, key_rows = csr_take(self.key_ptr, index)
            out.keys = self.keys[key_rows]
        return out


def term_sets(
    word_lists: Iterable[Iterable[str]], vocab: Vocabulary
) -> tuple[np.ndarray, np.ndarray]:
    """Each list's sorted unique term ids (terms added to ``vocab`` in the order met), as a
    CSR ``(ptr, terms)``: :meth:`Vocabulary.ids` for every list at once (one sort instead
    of one small ``np.unique`` per list)."""
    import pandas as pd

    lists = word_lists if isinstance(word_lists, list | tuple) else list(word_lists)
    lens = [len(ws) for ws in lists]
    flat = pd.Series(list(itertools.chain.from_iterable(lists)), dtype=object)
    # codes in order of first appearance: adding the distinct words in that order gives
    # every word the id the word-by-word loop would
    codes, distinct = pd.factorize(flat, sort=False)
    add = vocab.add
    ids = np.fromiter((add(w) for w in distinct), dtype=np.int64, count=len(distinct))
    terms = ids[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    owner = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    order = np.lexsort((terms, owner))
    terms, owner = terms[order], owner[order]
    keep = np.ones(len(terms), dtype=bool)
    keep[1:] = (owner[1:] != owner[:-1]) | (terms[1:] != terms[:-1])
    ptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[keep], minlength=len(lens)), out=ptr[1:])
    return ptr, terms[keep].astype(np.int32)


def make_objects(
    ids: Sequence[int] | np.ndarray,
    lon: Sequence[float] | np.ndarray,
    lat: Sequence[float] | np.ndarray,
    words: Sequence[Iterable[str]],
    vocab: Vocabulary,
) -> Objects:
    """Objects from word lists (terms are added to ``vocab``)."""
    ptr, terms = term_sets(words, vocab)
    return Objects(
        np.asarray(ids, dtype=np.int64),
        np.asarray(lon, dtype=np.float64),
        np.asarray(lat, dtype=np.float64),
        ptr,
        terms,
    )


def make_queries(
    ids: Sequence[int] | np.ndarray,
    rects: Sequence[Sequence[float]] | np.ndarray,
    dnfs: Sequence[Sequence[Sequence[str]]],
    vocab: Vocabulary,
) -> Queries:
    """Queries from DNF keyword lists (see :func:`parse_expression`) and rectangles
    ``(min_lon, min_lat, max_lon, max_lat)``."""
    conj_ptr = np.zeros(len(dnfs) + 1, dtype=np.int64)
    np.cumsum([len(dnf) for dnf in dnfs], out=conj_ptr[1:])
    cterm_ptr, terms = term_sets((conj for dnf in dnfs for conj in dnf), vocab)
    rect = np.asarray(rects, dtype=np.float64).reshape(-1, 4)
    if np.any(rect[:, 0] > rect[:, 2]) or np.any(rect[:, 1] > rect[:, 3]):
        raise BadInputError("a query rectangle has min > max")
    return Queries(np.asarray(ids, dtype=np.int64), rect, conj_ptr, cterm_ptr, terms)


def term_frequencies(objects: Objects, n_terms: int) -> np.ndarray:
    """``f(t)``: number of objects containing term ``t`` (object term sets are unique)."""
    return np.bincount(objects.terms, minlength=n_terms).astype(np.int64)


def assign_keys(queries: Queries, freq: np.ndarray) -> Queries:
    """Set ``RK(q)``: the least frequent term of every DNF conjunct (ties: smaller id).

    ``freq`` is indexed by term id (terms beyond its length count 0). Returns ``queries``.
    """
    n_terms = max(len(freq), int(queries.conj_terms.max(initial=-1)) + 1)
    f = np.zeros(n_terms, dtype=np.int64)
    f[: len(freq)] = freq
    # per conjunct: argmin over (freq, term id) -> order entries and take the first
    n_conj = len(queries.cterm_ptr) - 1
    owner = np.repeat(np.arange(n_conj), np.diff(queries.cterm_ptr))
    t = queries.conj_terms.astype(np.int64)
    order = np.lexsort((t, f[t], owner))
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order][1:] != owner[order][:-1]
    conj_key = t[order][first]  # one per conjunct, conjunct order
    q_of_conj = np.repeat(np.arange(len(queries), dtype=np.int64), np.diff(queries.conj_ptr))
    pairs = unique(q_of_conj * np.int64(1 << 31) + conj_key)
    q = pairs >> np.int64(31)
    queries.keys = (pairs & np.int64((1 << 31) - 1)).astype(np.int32)
    queries.key_ptr = np.searchsorted(q, np.arange(len(queries) + 1)).astype(np.int64)
    return queries


def satisfies(dnf: Sequence[np.ndarray], terms: set[int] | frozenset[int]) -> bool:
    """``o.psi |= q.K`` for a DNF over term ids."""
    return any(all(int(t) in terms for t in conj) for conj in dnf)


# --------------------------------------------------------------------------- stream


@dataclass
class Stream:
    """One ordered stream of tuples: ``kind[i]`` in {OBJ, INS, DEL}, ``ref[i]`` the index
    of the object or query; the position is the sequence number. An INS and a DEL of the
    same query carry the full query (Sect. III-A)."""

    objects: Objects
    queries: Queries
    kind: np.ndarray  # int8
    ref: np.ndarray  # int64
    vocab: Vocabulary
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.kind)

    def counts(self) -> dict[str, int]:
        return {name: int((self.kind == k).sum()) for k, name in KIND_NAMES.items()}

    def head(self, n: int) -> Stream:
        """The first ``n`` tuples (queries inserted later stay undeleted)."""
        return Stream(
            self.objects, self.queries, self.kind[:n], self.ref[:n], self.vocab, self.info
        )


def validate_stream(stream: Stream) -> None:
    """Each query is inserted at most once and deleted at most once, after its insertion.

    Raises:
        BadInputError: naming the first offending tuple.
    """
    nq = len(stream.queries)
    ins_at = np.full(nq, -1, dtype=np.int64)
    del_at = np.full(nq, -1, dtype=np.int64)
    for kind, arr in ((INS, ins_at), (DEL, del_at)):
        pos = np.flatnonzero(stream.kind == kind)
        refs = stream.ref[pos]
        uniq, counts = np.unique(refs, return_counts=True)
        if np.any(counts > 1):
            q = int(uniq[counts > 1][0])
            raise BadInputError(
                f"query {int(stream.queries.ids[q])} has {KIND_NAMES[kind]} {int(counts.max())} times"
            )
        arr[refs] = pos
    bad = (del_at >= 0) & ((ins_at < 0) | (del_at < ins_at))
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        raise BadInputError(
            f"query {int(stream.queries.ids[q])} is deleted at tuple {int(del_at[q])} "
            "before it is inserted"
        )
