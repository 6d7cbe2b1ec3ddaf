"""Registry of every grouping scheme: name -> readable reference, fast kernel, defaults.

Each :class:`SchemeSpec` pairs the readable implementation (mirrors the paper) with the
numba kernel (same signature, identical output; tested) and says which paper section it
implements. :func:`get_scheme` looks one up by name with a clear error listing the valid
names. FISH comes from :mod:`routelab.grouping.fish_reference` /
:mod:`routelab.grouping.fish_kernel` with the defaults of
:class:`routelab.grouping.fish_params.FishParams`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from routelab.grouping import kernels, reference
from routelab.grouping.fish_kernel import fish_route
from routelab.grouping.fish_params import FishParams
from routelab.grouping.fish_reference import fish_route_reference

_COMMON = ("seed", "times", "capacities", "events")


@dataclass(frozen=True)
class SchemeSpec:
    """One grouping scheme of the lab (see :mod:`routelab.grouping` for the signature)."""

    name: str
    label: str
    reference: Callable[..., Any]
    kernel: Callable[..., Any]
    defaults: dict[str, Any] = field(default_factory=dict)
    paper: str = ""
    supports_events: bool = False

    def implementation(self, which: str = "kernel") -> Callable[..., Any]:
        """The ``"kernel"`` (default) or the ``"reference"`` routing function."""
        if which == "kernel":
            return self.kernel
        if which == "reference":
            return self.reference
        raise ValueError(f"implementation must be 'kernel' or 'reference', got {which!r}")

    def check_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults updated with ``params``; unknown names raise ``ValueError`` listing the
        scheme's parameters."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            valid = ", ".join(sorted(self.defaults)) or "none"
            raise ValueError(
                f"scheme {self.name!r} has no parameter(s) {', '.join(unknown)}; "
                f"its parameters: {valid}"
            )
        return {**self.defaults, **params}


def _defaults(func: Callable[..., Any]) -> dict[str, Any]:
    """Scheme parameters of a routing function: its keyword-only arguments beyond the
    common ones, with their defaults."""
    sig = inspect.signature(func)
    return {
        name: p.default
        for name, p in sig.parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in _COMMON
    }


def _spec(name: str, label: str, ref: Callable, kern: Callable, paper: str) -> SchemeSpec:
    defaults = _defaults(ref)
    if defaults != _defaults(kern):
        raise RuntimeError(f"{name}: reference and kernel parameters differ")  # pragma: no cover
    return SchemeSpec(name, label, ref, kern, defaults, paper, False)


R, K = reference, kernels
_PKG_SIDE = (
    # name, label, reference, kernel, paper section
    ("kg", "KG (hashing)", R.kg_reference, K.kg_route, "PKG Sect. III"),
    ("sg", "SG (shuffle)", R.sg_reference, K.sg_route, "PKG Sect. II-A"),
    ("potc", "PoTC", R.potc_reference, K.potc_route, "PKG Sect. III-A"),
    ("on_greedy", "On-Greedy", R.on_greedy_reference, K.on_greedy_route, "PKG Sect. V-B"),
    ("off_greedy", "Off-Greedy", R.off_greedy_reference, K.off_greedy_route, "PKG Sect. V-B"),
    ("pkg_global", "PKG (G)", R.pkg_global_reference, K.pkg_global_route, "PKG Sects. III-IV"),
    ("pkg_local", "PKG (L)", R.pkg_local_reference, K.pkg_local_route, "PKG Sect. III-B"),
    ("pkg_probe", "PKG (LP)", R.pkg_probe_reference, K.pkg_probe_route, "PKG Sect. V-B"),
    ("dchoices", "D-C", R.dchoices_reference, K.dchoices_route, "FISH Sect. 2.2 [15]"),
    ("wchoices", "W-C", R.wchoices_reference, K.wchoices_route, "FISH Sect. 2.2 [15]"),
)

SCHEMES: dict[str, SchemeSpec] = {row[0]: _spec(*row) for row in _PKG_SIDE}
SCHEMES["fish"] = SchemeSpec(
    name="fish",
    label="FISH",
    reference=fish_route_reference,
    kernel=fish_route,
    defaults=FishParams().as_dict(),
    paper="FISH Sects. 4-5",
    supports_events=True,
)


def get_scheme(name: str) -> SchemeSpec:
    """The :class:`SchemeSpec` called ``name``; ``ValueError`` listing valid names otherwise."""
    try:
        return SCHEMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown grouping scheme {name!r}; valid: {', '.join(SCHEMES)}") from None
