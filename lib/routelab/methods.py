"""One registry shape for the methods of every system.

A :class:`Method` names one method a paper compares (an S3-TM mapping, a grouping scheme,
one of Fabret et al.'s matchers, a PS2Stream partitioner or migration selector): its ``name``
(what the CLI, the notebooks and the benches say), a ``label`` for figures, the ``paper``
section it implements, the fast implementation (``kernel``), the readable one that mirrors
the paper (``reference``: an *independent* version only, ``None`` where the method has no
separate readable version, e.g. a partitioner that hands its work to METIS), its
``defaults`` (tunable parameters) and an optional ``oracle``: a brute-force answer to the
same question, computed without the method's structures, that the tests judge the kernel
and the reference by (e.g. the migration selectors' exhaustive search).

A :class:`MethodRegistry` is an ordered, read-only mapping ``name -> Method`` with one error for
an unknown name and :meth:`MethodRegistry.parse` for the CLI's ``--algorithm a,b`` lists, so no
caller writes an if/elif chain over names. Each system keeps its registry beside its
algorithms: :data:`routelab.s3tm.mappings.MAPPINGS`, :data:`routelab.grouping.schemes.SCHEMES`,
:data:`routelab.filtering.matchers.MATCHERS`, :data:`routelab.spatial.engine.PARTITIONERS`,
:data:`routelab.spatial.migration.SELECTORS`. ``tests/test_conformance.py`` walks every entry
of the five; :mod:`routelab.protocols` says what each kind's kernels share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar


@dataclass(frozen=True)
class Method:
    """One method of one system (see the module docstring for the fields).

    ``reference`` is ``None`` when the method has no readable version independent of its
    kernel (:attr:`has_reference`); ``oracle`` is ``None`` when the registry gives no brute
    force of its own (the tests then use the system's, e.g. the pipeline's oracle pairs).
    """

    name: str
    label: str
    paper: str
    kernel: Callable[..., Any]
    reference: Callable[..., Any] | None
    defaults: dict[str, Any] = field(default_factory=dict)
    oracle: Callable[..., Any] | None = None

    @property
    def has_reference(self) -> bool:
        """Whether the method has a readable reference independent of its kernel."""
        return self.reference is not None

    def implementation(self, which: str = "kernel") -> Callable[..., Any]:
        """The ``"kernel"`` (default) or the ``"reference"`` implementation; ``ValueError``
        naming the method when it has no reference."""
        if which == "kernel":
            return self.kernel
        if which == "reference":
            if self.reference is None:
                raise ValueError(
                    f"{self.name!r} has no reference implementation independent of its "
                    "kernel; use implementation('kernel')"
                )
            return self.reference
        raise ValueError(f"implementation must be 'kernel' or 'reference', got {which!r}")

    def implementations(self) -> dict[str, Callable[..., Any]]:
        """The implementations the method has: ``"kernel"``, and ``"reference"`` where one
        exists (what a test compares against an oracle)."""
        out = {"kernel": self.kernel}
        if self.reference is not None:
            out["reference"] = self.reference
        return out

    def check_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults updated with ``params``; unknown names raise ``ValueError`` listing the
        method's parameters."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            valid = ", ".join(sorted(self.defaults)) or "none"
            raise ValueError(
                f"{self.name!r} has no parameter(s) {', '.join(unknown)}; its parameters: {valid}"
            )
        return {**self.defaults, **params}


M = TypeVar("M", bound=Method)


class MethodRegistry(Mapping[str, M], Generic[M]):
    """An ordered, read-only ``name -> Method`` mapping of one system's methods.

    ``kind`` names what the methods are ("mapping", "grouping scheme", ...) in errors.
    Code looks names up exactly (:meth:`lookup`); the CLI's lists are read
    case-insensitively (:meth:`parse`: ``salb`` finds ``SALB``).
    """

    def __init__(self, kind: str, methods: Iterable[M]) -> None:
        self.kind = kind
        self._methods: dict[str, M] = {}
        for m in methods:
            if m.name in self._methods:
                raise ValueError(f"{kind} {m.name!r} registered twice")
            self._methods[m.name] = m

    def __getitem__(self, name: str) -> M:
        return self._methods[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._methods)

    def __len__(self) -> int:
        return len(self._methods)

    def __repr__(self) -> str:
        return f"MethodRegistry({self.kind!r}, {list(self._methods)})"

    @property
    def names(self) -> tuple[str, ...]:
        """The method names in registry order."""
        return tuple(self._methods)

    def canonical(self, name: str, *, fold_case: bool = False) -> str:
        """``name`` as registered (with ``fold_case``, also matched case-insensitively);
        ``ValueError`` listing the valid names otherwise."""
        if isinstance(name, str):
            if name in self._methods:
                return name
            folded = {n.lower(): n for n in self._methods}
            if fold_case and name.lower() in folded:
                return folded[name.lower()]
        raise ValueError(f"unknown {self.kind} {name!r}; choose from {', '.join(self._methods)}")

    def lookup(self, name: str) -> M:
        """The method called ``name`` (see :meth:`canonical`)."""
        return self._methods[self.canonical(name)]

    def parse(self, names: str | Iterable[str]) -> list[str]:
        """Canonical names from ``"a,b"`` or an iterable of names (each may hold commas);
        ``"all"`` selects every method; duplicates are dropped, order kept."""
        items = [names] if isinstance(names, str) else list(names)
        out: list[str] = []
        for item in items:
            for part in str(item).split(","):
                part = part.strip()
                if not part:
                    continue
                chosen = (
                    self.names if part.lower() == "all" else (self.canonical(part, fold_case=True),)
                )
                out.extend(n for n in chosen if n not in out)
        if not out:
            raise ValueError(f"no {self.kind} given; choose from {', '.join(self._methods)}")
        return out

    def describe(self) -> str:
        """The methods on one line, each as name (paper section), for ``--help``."""
        return "; ".join(f"{m.name} ({m.paper})" for m in self._methods.values())
