"""One registry shape for every system's methods (:mod:`routelab.methods`)."""

from __future__ import annotations

import pytest

from routelab.filtering.matchers import MATCHERS
from routelab.grouping.schemes import SCHEMES
from routelab.methods import Method, MethodRegistry
from routelab.s3tm.mappings import MAPPINGS, METHODS
from routelab.spatial.engine import PARTITIONERS
from routelab.spatial.migration import SELECTORS

REGISTRIES = {
    "s3tm": MAPPINGS,
    "grouping": SCHEMES,
    "filtering": MATCHERS,
    "spatial": PARTITIONERS,
    "migration": SELECTORS,
}


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
        assert m.label and m.paper and callable(m.kernel)
        assert m.reference is None or (callable(m.reference) and m.reference is not m.kernel)
        assert m.oracle is None or callable(m.oracle)
        assert m.has_reference == (m.reference is not None)
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
    assert m.has_reference and set(m.implementations()) == {"kernel", "reference"}
    assert m.oracle is None


def test_a_method_without_reference_says_so_by_name():
    m = Method("solo", "S", "p", lambda: 1, None, oracle=lambda: 3)
    assert not m.has_reference and m.implementations() == {"kernel": m.kernel}
    assert m.implementation()() == 1 and m.oracle() == 3
    with pytest.raises(ValueError, match="'solo' has no reference implementation"):
        m.implementation("reference")


def test_no_reference_is_the_kernel_and_the_selectors_oracle_is_the_brute_force():
    """``reference`` means an independent readable version only: the entries that had the
    kernel as their reference now have none; the selectors' brute force is their oracle."""
    from routelab.spatial.migration import select_brute_force

    no_reference = {
        "s3tm": {"hash", "gC", "gFC", "gFCL", "gNFCL"},
        "spatial": set(PARTITIONERS.names),
        "migration": set(SELECTORS.names),
    }
    for system, registry in REGISTRIES.items():
        missing = {n for n, m in registry.items() if not m.has_reference}
        assert missing == no_reference.get(system, set()), system
    assert all(m.oracle is select_brute_force for m in SELECTORS.values())


def test_salb_impl_reference_still_learns_the_methods_without_one():
    """``learn_mapping(..., salb_impl="reference")`` picks SALB's readable version; the
    methods with one implementation (hash, METIS) still learn with their kernel."""
    from routelab.s3tm import learn_mapping

    posts = [["a", "b"], ["b", "c"], ["c", "d", "a"]]
    for method in ("hash", "gC", "SALB"):
        ref = learn_mapping(posts, 2, method, salb_impl="reference")
        assert ref.assignment == learn_mapping(posts, 2, method).assignment
