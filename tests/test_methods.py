"""One registry shape for every system's methods (:mod:`routelab.methods`)."""

from __future__ import annotations

import pytest

from routelab.filtering.matchers import MATCHERS
from routelab.grouping.schemes import SCHEMES
from routelab.methods import Method, MethodRegistry
from routelab.s3tm.mappings import MAPPINGS, METHODS
from routelab.spatial.engine import PARTITIONERS

REGISTRIES = {"s3tm": MAPPINGS, "grouping": SCHEMES, "filtering": MATCHERS, "spatial": PARTITIONERS}


def _toy() -> MethodRegistry:
    def f():
        return 1

    def g():
        return 2

    return MethodRegistry(
        "toy", [Method("a", "A", "Sect. 1", f, g), Method("SALB", "S", "2", f, f)]
    )


@pytest.mark.parametrize("system", sorted(REGISTRIES))
def test_every_registry_has_the_one_shape(system):
    registry = REGISTRIES[system]
    assert isinstance(registry, MethodRegistry) and len(registry) >= 4
    for name, m in registry.items():
        assert isinstance(m, Method) and m.name == name
        assert m.label and m.paper and callable(m.kernel) and callable(m.reference)
        assert isinstance(m.defaults, dict)
        assert registry.lookup(name) is m


def test_the_old_name_tuples_follow_the_registries():
    assert METHODS == MAPPINGS.names == ("hash", "gC", "gFC", "gFCL", "gNFCL", "SALB")


def test_parse_reads_comma_lists_all_and_case_but_lookup_is_exact():
    r = _toy()
    assert r.parse("a,salb") == ["a", "SALB"]
    assert r.parse(["a", "a,SALB"]) == ["a", "SALB"]  # duplicates dropped, order kept
    assert r.parse("all") == ["a", "SALB"]
    with pytest.raises(ValueError, match="unknown toy 'b'; choose from a, SALB"):
        r.parse("a,b")
    with pytest.raises(ValueError, match="no toy given"):
        r.parse(" , ")
    with pytest.raises(ValueError, match="unknown toy 'salb'"):
        r.lookup("salb")
    with pytest.raises(ValueError, match="registered twice"):
        MethodRegistry("toy", [r["a"], r["a"]])


def test_implementation_and_params():
    m = Method("x", "X", "p", lambda: 1, lambda: 2, {"k": 1})
    assert m.implementation()() == 1 and m.implementation("reference")() == 2
    with pytest.raises(ValueError, match="'kernel' or 'reference'"):
        m.implementation("gpu")
    assert m.check_params({"k": 3}) == {"k": 3}
    with pytest.raises(ValueError, match="its parameters: k"):
        m.check_params({"z": 0})


def test_filtering_reference_equals_the_kernel_matcher():
    """Each matcher's readable reference returns the oracle's matches, as its fast build."""
    import numpy as np

    from routelab.filtering.costmodel import EventStats
    from routelab.filtering.model import Events, Subscriptions
    from routelab.filtering.oracle import oracle_match

    rng = np.random.default_rng(5)
    ops = ["=", "=", "<=", ">=", "!="]
    lists = [
        [(int(a), ops[int(rng.integers(len(ops)))], int(rng.integers(3))) for a in range(3)]
        for _ in range(120)
    ]
    subs = Subscriptions.from_lists(lists, ids=[3 * i + 1 for i in range(120)], n_attrs=3)
    events = Events(rng.integers(0, 3, size=(40, 3)).astype(np.int64))
    ptr, idx = oracle_match(subs, events)
    truth = [sorted(subs.ids[idx[ptr[e] : ptr[e + 1]]].tolist()) for e in range(len(events))]
    assert sum(map(len, truth)) > 40  # the comparison is not vacuous
    stats = EventStats.from_events(events)
    for name, m in MATCHERS.items():
        fp, ids = m.kernel(subs, stats=stats).match(events)
        fast = [sorted(ids[fp[e] : fp[e + 1]].tolist()) for e in range(len(events))]
        assert fast == truth, name
        assert m.reference(subs, events, stats=stats) == truth, name
