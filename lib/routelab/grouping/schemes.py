"""Registry of every grouping scheme: name -> readable reference, fast kernel, defaults.

Each :class:`SchemeSpec` pairs the readable implementation (mirrors the paper) with the
numba kernel (same signature, identical output; tested) and says which paper section it
implements. :func:`get_scheme` looks one up by name with a clear error listing the valid
names. FISH comes from :mod:`routelab.grouping.fish_reference` /
:mod:`routelab.grouping.fish_kernel` with the defaults of
:class:`routelab.grouping.fish_params.FishParams`. Defaults a reading flipped for a whole run
decides (``ROUTELAB_READING``) are resolved at each call, not when this module is imported.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from routelab.grouping import schemes_kernel as kernels
from routelab.grouping import schemes_reference as reference
from routelab.grouping.fish_kernel import fish_kernel
from routelab.grouping.fish_params import FishParams
from routelab.grouping.fish_reference import fish_reference
from routelab.methods import Method, MethodRegistry

_COMMON = ("seed", "times", "capacities", "events")


@dataclass(frozen=True)
class SchemeSpec(Method):
    """One grouping scheme of the lab (see :mod:`routelab.grouping` for the signature);
    ``supports_events``: the scheme takes workers joining and leaving (FISH Sect. 5)."""

    supports_events: bool = False
    reading_defaults: Callable[[], dict[str, Any]] | None = None
    """The defaults a reading flipped for a whole run may change (``ROUTELAB_READING``,
    :mod:`routelab.readings`), resolved at each :meth:`check_params`, not at import."""

    def check_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults (with this run's readings) updated with ``params``; unknown names raise
        ``ValueError`` listing the scheme's parameters."""
        checked = super().check_params(params)
        if self.reading_defaults is None:
            return checked
        live = {k: v for k, v in self.reading_defaults().items() if k not in params}
        return {**checked, **live}


def _defaults(func: Callable[..., Any]) -> dict[str, Any]:
    """Scheme parameters of a routing function: its keyword-only arguments beyond the
    common ones, with their defaults."""
    sig = inspect.signature(func)
    return {
        name: p.default
        for name, p in sig.parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in _COMMON
    }


#: per scheme, the keyword defaults a reading flipped for a run decides (their signature
#: default is None, resolved by :func:`routelab.readings.pick`)
_READING_DEFAULTS: dict[str, Callable[[], dict[str, Any]]] = {
    "pkg_probe": lambda: {"probe_reset": reference.probe_reset_default()},
    "dchoices": lambda: {"distinct": reference.distinct_default()},
}


def _spec(name: str, label: str, ref: Callable, kern: Callable, paper: str) -> SchemeSpec:
    defaults = _defaults(ref)
    if defaults != _defaults(kern):
        raise RuntimeError(f"{name}: reference and kernel parameters differ")  # pragma: no cover
    live = _READING_DEFAULTS.get(name)
    if live is not None:
        defaults = {**defaults, **live()}
    return SchemeSpec(name, label, paper, kern, ref, defaults, reading_defaults=live)


R, K = reference, kernels
_PKG_SIDE = (
    # name, label, reference, kernel, paper section
    ("kg", "KG (hashing)", R.kg_reference, K.kg_kernel, "PKG Sect. III"),
    ("sg", "SG (shuffle)", R.sg_reference, K.sg_kernel, "PKG Sect. II-A"),
    ("potc", "PoTC", R.potc_reference, K.potc_kernel, "PKG Sect. III-A"),
    ("on_greedy", "On-Greedy", R.on_greedy_reference, K.on_greedy_kernel, "PKG Sect. V-B"),
    ("off_greedy", "Off-Greedy", R.off_greedy_reference, K.off_greedy_kernel, "PKG Sect. V-B"),
    ("pkg_global", "PKG (G)", R.pkg_global_reference, K.pkg_global_kernel, "PKG Sects. III-IV"),
    ("pkg_local", "PKG (L)", R.pkg_local_reference, K.pkg_local_kernel, "PKG Sect. III-B"),
    ("pkg_probe", "PKG (LP)", R.pkg_probe_reference, K.pkg_probe_kernel, "PKG Sect. V-B"),
    ("dchoices", "D-C", R.dchoices_reference, K.dchoices_kernel, "FISH Sect. 2.2 [15]"),
    ("wchoices", "W-C", R.wchoices_reference, K.wchoices_kernel, "FISH Sect. 2.2 [15]"),
)

SCHEMES: MethodRegistry[SchemeSpec] = MethodRegistry(
    "grouping scheme",
    [
        *(_spec(*row) for row in _PKG_SIDE),
        SchemeSpec(
            name="fish",
            label="FISH",
            paper="FISH Sects. 4-5",
            kernel=fish_kernel,
            reference=fish_reference,
            defaults=FishParams().as_dict(),
            supports_events=True,
            reading_defaults=lambda: FishParams().as_dict(),
        ),
    ],
)


def get_scheme(name: str) -> SchemeSpec:
    """The :class:`SchemeSpec` called ``name``; ``ValueError`` listing valid names otherwise."""
    return SCHEMES.lookup(name)
