"""Trie-based subscription matching, reference implementation (S3-TM Sect. 4.1).

A subscription is a set of words; it matches a publication (a set of words) iff all its words
occur in the publication. The matcher keeps its subscriptions in a trie:

- each subscription's words are **sorted lexicographically** before insertion, so
  subscriptions that share a sorted prefix share a path ("the trie takes advantage of common
  prefixes within the subscriptions");
- every node holds its children in a **hash table** (a ``dict`` word -> node) and a possibly
  empty list of subscriptions; a subscription is stored at the node its last word leads to,
  which may be an **internal node** (``[a]`` sits on the path of ``[a, b]``);
- matching is a **scoped traversal**: a child is visited iff its word is in the publication,
  found by probing the child table with the publication's words. Every visited node lies on a
  path whose words are all in the publication, so its subscriptions are matches.

Because a path's words are increasing, a node reached through the publication's ``j``-th word
(in sorted order) can only have children among the words after position ``j``; the traversal
probes just those. **One lookup operation is one probe of one node's child hash table with one
publication word**; nodes without children are not probed (their emptiness is known without a
lookup). This is the work unit of Fig. 3 and of the subscription-aware load (Sect. 4.2).

:func:`brute_force_match` is the oracle (set containment over all subscriptions); the tests
prove the trie returns exactly its matches. The fast kernel with identical results and
identical op counts is :mod:`routelab.s3tm.trie_kernel`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping

from routelab.errors import BadInputError

__all__ = ["SubscriptionTrie", "brute_force_match", "normalize_words"]


def normalize_words(words: Iterable[str], what: str = "subscription") -> tuple[str, ...]:
    """The distinct words of ``words`` in lexicographic order (the order the trie stores).

    Raises :class:`~routelab.errors.BadInputError` for a non-string or empty word, or (for a
    bare string passed where a word collection is expected) to catch ``add(1, "word")``.
    """
    if isinstance(words, str):
        raise BadInputError(f"{what}: expected a collection of words, got the string {words!r}")
    out = set()
    for w in words:
        if not isinstance(w, str) or not w:
            raise BadInputError(f"{what}: every word must be a non-empty string, got {w!r}")
        out.add(w)
    return tuple(sorted(out))


class _Node:
    """One trie node: child hash table and the subscriptions ending here."""

    __slots__ = ("children", "subs")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.subs: list[int] = []


class SubscriptionTrie:
    """The matcher's subscription store (S3-TM Sect. 4.1); see the module docstring.

    Example:
        >>> t = SubscriptionTrie()
        >>> t.add(1, ["health", "obama"]); t.add(2, ["obama"])
        >>> t.match({"obama", "health", "care"})
        [1, 2]
        >>> t.match_ops({"obama", "care"})  # root probed with 'care', 'obama'; 'obama' is a leaf
        ([2], 2)
    """

    def __init__(self) -> None:
        self._root = _Node()
        self._words_of: dict[int, tuple[str, ...]] = {}
        self._word_count: Counter[str] = Counter()  # word -> subscriptions containing it

    # ------------------------------------------------------------------ maintenance
    def add(self, sub_id: int, words: Iterable[str]) -> None:
        """Insert subscription ``sub_id`` with the given words (sorted here, duplicates
        dropped). Raises :class:`BadInputError` for an empty word set or a duplicate id."""
        sub_id = int(sub_id)
        if sub_id in self._words_of:
            raise BadInputError(f"subscription {sub_id}: already in the trie")
        key = normalize_words(words, f"subscription {sub_id}")
        if not key:
            raise BadInputError(
                f"subscription {sub_id}: has no words (no matcher is responsible for it)"
            )
        node = self._root
        for w in key:
            child = node.children.get(w)
            if child is None:
                child = node.children[w] = _Node()
            node = child
        node.subs.append(sub_id)
        self._words_of[sub_id] = key
        self._word_count.update(key)

    def remove(self, sub_id: int) -> bool:
        """Delete subscription ``sub_id``; prunes nodes left without subscriptions and
        children. Returns ``False`` if it was not stored."""
        key = self._words_of.pop(int(sub_id), None)
        if key is None:
            return False
        path = [self._root]
        for w in key:
            path.append(path[-1].children[w])
        path[-1].subs.remove(int(sub_id))
        for depth in range(len(key), 0, -1):
            node = path[depth]
            if node.subs or node.children:
                break
            del path[depth - 1].children[key[depth - 1]]
        self._word_count.subtract(key)
        for w in key:
            if self._word_count[w] == 0:
                del self._word_count[w]
        return True

    # ------------------------------------------------------------------ queries
    def match(self, words: Collection[str]) -> list[int]:
        """Sorted ids of the subscriptions whose words all occur in ``words``."""
        return self.match_ops(words)[0]

    def match_ops(
        self,
        words: Collection[str],
        *,
        trace: list[tuple[tuple[str, ...], str, bool]] | None = None,
    ) -> tuple[list[int], int]:
        """``(sorted matching sub ids, lookup operations)``; one op = one child-table probe.

        ``trace``: if a list is given, every probe is appended to it in traversal order as
        ``(path of the probed node, probed word, found)``; the root's path is ``()``. This is
        the worked example of notebook 04 (which nodes a lookup visits).
        """
        pub = sorted(set(words))
        out: list[int] = []
        ops = 0
        # explicit stack of (node, index of the word that led here, path); root has index -1
        stack: list[tuple[_Node, int, tuple[str, ...]]] = [(self._root, -1, ())]
        while stack:
            node, pos, path = stack.pop()
            out.extend(node.subs)
            children = node.children
            if not children:
                continue
            for j in range(pos + 1, len(pub)):
                ops += 1
                child = children.get(pub[j])
                if trace is not None:
                    trace.append((path, pub[j], child is not None))
                if child is not None:
                    stack.append((child, j, (*path, pub[j]) if trace is not None else path))
        out.sort()
        return out, ops

    def __len__(self) -> int:
        """Number of subscriptions stored."""
        return len(self._words_of)

    def __contains__(self, sub_id: object) -> bool:
        return sub_id in self._words_of

    def __iter__(self) -> Iterator[int]:
        """Stored subscription ids (insertion order)."""
        return iter(self._words_of)

    def words_of(self, sub_id: int) -> tuple[str, ...]:
        """The sorted words of a stored subscription."""
        return self._words_of[int(sub_id)]

    @property
    def unique_words(self) -> int:
        """|H(i)|: distinct words in the trie (over all stored subscriptions)."""
        return len(self._word_count)

    @property
    def n_nodes(self) -> int:
        """Trie nodes excluding the root (one per distinct sorted prefix)."""
        count = 0
        stack = [self._root]
        while stack:
            node = stack.pop()
            count += len(node.children)
            stack.extend(node.children.values())
        return count


def brute_force_match(subs: Mapping[int, frozenset[str]], words: Collection[str]) -> list[int]:
    """The oracle: sorted ids of the subscriptions in ``subs`` that are subsets of ``words``."""
    pub = frozenset(words)
    return sorted(int(s) for s, sw in subs.items() if sw <= pub)
