"""SpaceSaving heavy-hitter summary (Metwally et al. 2005), as D-Choices / W-Choices use it.

Each source of D-C and W-C (Nasir et al., ICDE'16; FISH Sect. 2.2 baselines) keeps a
summary of ``capacity`` counters (100 in the public simulator). Offering a key:

- if the key is monitored, its counter grows by one;
- else if a counter is free, the key gets a counter of 1 (error 0);
- else the counter with the smallest count is taken over: the new key gets that
  count + 1 and records the old count as its error.

The estimate of a monitored key overestimates its true count by at most its error, and every
error is at most ``m / capacity`` after ``m`` offers (the guarantee the tests check).

Ties among smallest counters are broken by the *stamp*, the index of the counter's last
update: the least recently updated one is evicted (what the linked bucket list of the
original Stream-Summary does). With unique stamps the eviction is fully determined, so the
readable :class:`SpaceSaving` and the numba arrays below always hold the same summary.

The numba version keeps each summary as a min-heap on ``(count, stamp)`` plus an
open-addressing hash table from key to heap position, so an offer costs ``O(log capacity)``.
"""

from __future__ import annotations

import numba
import numpy as np

from routelab.hashing import nb_mix64

# fields of a heap entry: heap array (n_summaries, capacity, 5)
H_KEY, H_COUNT, H_ERROR, H_STAMP, H_SLOT = 0, 1, 2, 3, 4
# fields of a table slot: table array (n_summaries, table_size, 2)
T_KEY, T_POS = 0, 1


class SpaceSaving:
    """Readable SpaceSaving summary (reference): three dicts and a linear min search."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"SpaceSaving capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.count: dict[int, int] = {}
        self.error: dict[int, int] = {}
        self.stamp: dict[int, int] = {}
        self.total = 0

    def offer(self, key: int) -> int:
        """Count one occurrence of ``key``; return its estimated count afterwards."""
        now = self.total
        self.total += 1
        if key in self.count:
            self.count[key] += 1
        elif len(self.count) < self.capacity:
            self.count[key] = 1
            self.error[key] = 0
        else:
            victim = min(self.count, key=lambda k: (self.count[k], self.stamp[k]))
            floor = self.count.pop(victim)
            del self.error[victim], self.stamp[victim]
            self.count[key] = floor + 1
            self.error[key] = floor
        self.stamp[key] = now
        return self.count[key]

    def estimate(self, key: int) -> int:
        """Estimated count (an upper bound of the true count); 0 if not monitored."""
        return self.count.get(key, 0)

    def max_count(self) -> int:
        """Largest estimated count (0 when empty)."""
        return max(self.count.values(), default=0)

    def head(self, min_count_exclusive: float) -> tuple[int, int]:
        """``(sum of counts, number of keys)`` over keys whose count exceeds the bound."""
        hot = [c for c in self.count.values() if c > min_count_exclusive]
        return sum(hot), len(hot)

    def items(self) -> list[tuple[int, int, int]]:
        """``(key, count, error)`` of every monitored key, by decreasing count then key."""
        return sorted(
            ((k, c, self.error[k]) for k, c in self.count.items()), key=lambda t: (-t[1], t[0])
        )


# ----------------------------------------------------------------------------- numba version


def table_size_for(capacity: int) -> int:
    """Hash-table slots for a summary: the power of two >= 2 * capacity (load <= 1/2)."""
    size = 4
    while size < 2 * capacity:
        size *= 2
    return size


def new_summaries(n_summaries: int, capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrays ``(heap, table, size)`` for ``n_summaries`` empty numba summaries."""
    if capacity < 1:
        raise ValueError(f"SpaceSaving capacity must be >= 1, got {capacity}")
    heap = np.zeros((n_summaries, capacity, 5), dtype=np.int64)
    table = np.zeros((n_summaries, table_size_for(capacity), 2), dtype=np.int64)
    table[:, :, T_POS] = -1
    size = np.zeros(n_summaries, dtype=np.int64)
    return heap, table, size


@numba.njit(cache=True, inline="always")
def _home(key: np.int64, mask: np.int64) -> np.int64:
    return np.int64(nb_mix64(np.uint64(key), np.uint64(0)) & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def _before(count_a, stamp_a, count_b, stamp_b) -> bool:
    """Heap order: smaller count first, then the older stamp (least recently updated)."""
    return count_a < count_b or (count_a == count_b and stamp_a < stamp_b)


@numba.njit(cache=True, inline="always")
def _place(heap, table, s, i, key, count, error, stamp, slot) -> None:
    heap[s, i, H_KEY] = key
    heap[s, i, H_COUNT] = count
    heap[s, i, H_ERROR] = error
    heap[s, i, H_STAMP] = stamp
    heap[s, i, H_SLOT] = slot
    table[s, slot, T_POS] = i


@numba.njit(cache=True, inline="always")
def _move(heap, table, s, src, dst) -> None:
    for r in range(5):
        heap[s, dst, r] = heap[s, src, r]
    table[s, heap[s, dst, H_SLOT], T_POS] = dst


@numba.njit(cache=True, inline="always")
def ss_needs_sift(heap, size, s, i) -> bool:
    """Whether entry ``i`` is out of heap order with one of its children (after a hit)."""
    n = size[s]
    count = heap[s, i, H_COUNT]
    stamp = heap[s, i, H_STAMP]
    child = 2 * i + 1
    if child < n and _before(heap[s, child, H_COUNT], heap[s, child, H_STAMP], count, stamp):
        return True
    child += 1
    return child < n and _before(heap[s, child, H_COUNT], heap[s, child, H_STAMP], count, stamp)


@numba.njit(cache=True)
def ss_sift_down(heap, table, size, s, i) -> None:
    """Move entry ``i`` down to its place (children move up into the hole)."""
    n = size[s]
    key = heap[s, i, H_KEY]
    count = heap[s, i, H_COUNT]
    error = heap[s, i, H_ERROR]
    stamp = heap[s, i, H_STAMP]
    slot = heap[s, i, H_SLOT]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        right = child + 1
        if right < n and _before(
            heap[s, right, H_COUNT],
            heap[s, right, H_STAMP],
            heap[s, child, H_COUNT],
            heap[s, child, H_STAMP],
        ):
            child = right
        if not _before(heap[s, child, H_COUNT], heap[s, child, H_STAMP], count, stamp):
            break
        _move(heap, table, s, child, i)
        i = child
    _place(heap, table, s, i, key, count, error, stamp, slot)


@numba.njit(cache=True)
def _sift_up(heap, table, s, i) -> None:
    """Move entry ``i`` up to its place (parents move down into the hole)."""
    key = heap[s, i, H_KEY]
    count = heap[s, i, H_COUNT]
    error = heap[s, i, H_ERROR]
    stamp = heap[s, i, H_STAMP]
    slot = heap[s, i, H_SLOT]
    while i > 0:
        parent = (i - 1) // 2
        if not _before(count, stamp, heap[s, parent, H_COUNT], heap[s, parent, H_STAMP]):
            break
        _move(heap, table, s, parent, i)
        i = parent
    _place(heap, table, s, i, key, count, error, stamp, slot)


@numba.njit(cache=True)
def ss_find(table, s, key) -> np.int64:
    """Table slot of ``key`` in summary ``s``, or -1 when it is not monitored."""
    mask = table.shape[1] - 1
    j = _home(key, mask)
    while table[s, j, T_POS] != -1:
        if table[s, j, T_KEY] == key:
            return j
        j = (j + 1) & mask
    return -1


@numba.njit(cache=True)
def _table_insert(table, s, key, pos) -> np.int64:
    mask = table.shape[1] - 1
    j = _home(key, mask)
    while table[s, j, T_POS] != -1:
        j = (j + 1) & mask
    table[s, j, T_KEY] = key
    table[s, j, T_POS] = pos
    return j


@numba.njit(cache=True)
def _table_delete(heap, table, s, slot) -> None:
    """Linear-probing deletion by backward shift (keeps every probe chain intact)."""
    mask = table.shape[1] - 1
    j = slot
    table[s, j, T_POS] = -1
    i = j
    while True:
        i = (i + 1) & mask
        if table[s, i, T_POS] == -1:
            return
        h = _home(table[s, i, T_KEY], mask)
        # the entry at i may stay only if its home lies cyclically in (j, i]
        stays = (j < h <= i) if j < i else (h > j or h <= i)
        if not stays:
            table[s, j, T_KEY] = table[s, i, T_KEY]
            table[s, j, T_POS] = table[s, i, T_POS]
            heap[s, table[s, j, T_POS], H_SLOT] = j
            table[s, i, T_POS] = -1
            j = i


@numba.njit(cache=True)
def ss_offer(heap, table, size, s, key, stamp) -> np.int64:
    """Offer ``key`` to summary ``s`` (``stamp``: its offer index); return the new estimate."""
    slot = ss_find(table, s, key)
    if slot >= 0:
        p = table[s, slot, T_POS]
        heap[s, p, H_COUNT] += 1
        heap[s, p, H_STAMP] = stamp
        count = heap[s, p, H_COUNT]
        ss_sift_down(heap, table, size, s, p)
        return count
    capacity = heap.shape[1]
    if size[s] < capacity:
        p = size[s]
        size[s] += 1
        heap[s, p, H_KEY] = key
        heap[s, p, H_COUNT] = 1
        heap[s, p, H_ERROR] = 0
        heap[s, p, H_STAMP] = stamp
        heap[s, p, H_SLOT] = _table_insert(table, s, key, p)
        _sift_up(heap, table, s, p)
        return 1
    _table_delete(heap, table, s, heap[s, 0, H_SLOT])
    floor = heap[s, 0, H_COUNT]
    heap[s, 0, H_KEY] = key
    heap[s, 0, H_COUNT] = floor + 1
    heap[s, 0, H_ERROR] = floor
    heap[s, 0, H_STAMP] = stamp
    heap[s, 0, H_SLOT] = _table_insert(table, s, key, 0)
    ss_sift_down(heap, table, size, s, 0)
    return floor + 1


@numba.njit(cache=True)
def ss_max_count(heap, size, s) -> np.int64:
    """Largest count in summary ``s`` (0 when empty)."""
    best = 0
    for i in range(size[s]):
        if heap[s, i, H_COUNT] > best:
            best = heap[s, i, H_COUNT]
    return best


@numba.njit(cache=True)
def ss_head(heap, size, s, min_count_exclusive):
    """``(sum of counts, number of keys)`` of summary ``s`` with count above the bound."""
    total = 0
    n = 0
    for i in range(size[s]):
        c = heap[s, i, H_COUNT]
        if c > min_count_exclusive:
            total += c
            n += 1
    return total, n


@numba.njit(cache=True)
def _offer_all(heap, table, size, keys) -> None:
    for i in range(keys.size):
        ss_offer(heap, table, size, 0, keys[i], i)


def summarize(keys: np.ndarray, capacity: int) -> list[tuple[int, int, int]]:
    """Run a whole key stream through one numba summary; ``(key, count, error)`` like
    :meth:`SpaceSaving.items`."""
    heap, table, size = new_summaries(1, capacity)
    _offer_all(heap, table, size, np.ascontiguousarray(keys, dtype=np.int64))
    n = int(size[0])
    rows = [
        (int(heap[0, i, H_KEY]), int(heap[0, i, H_COUNT]), int(heap[0, i, H_ERROR]))
        for i in range(n)
    ]
    return sorted(rows, key=lambda t: (-t[1], t[0]))
