"""One palette for every notebook: each method keeps one colour in every figure, and the
methods a figure compares never share one.

Colours come from Okabe & Ito's colour-blind-safe palette, extended with Tol's muted colours
where a system compares more than eight methods (the grouping schemes). Every method of every
registry (:mod:`routelab.methods`) is listed under its name and its label; the tests check
that no two methods of one system share a colour and that the executed notebooks' figures
never draw two methods in one colour. A variant drawn over its base method (prefetching over
propagation, hash with splitting over hash) also gets a dash, so coinciding lines stay
visible.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Okabe & Ito (colour-blind safe), then Tol's muted scheme for the ninth and later methods
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#000000",
)
EXTRA = ("#882255", "#44AA99", "#999933", "#332288", "#AA4499", "#999999")

_S3TM = {
    "hash": "#D55E00",
    "hash+split": "#E69F00",
    "SALB": "#0072B2",
    "gC": "#CC79A7",
    "gFC": "#56B4E9",
    "gFCL": "#009E73",
    "gNFCL": "#000000",
}
_GROUPING = {
    "kg": "#D55E00",
    "sg": "#999999",
    "potc": "#56B4E9",
    "on_greedy": "#CC79A7",
    "off_greedy": "#E69F00",
    "pkg_global": "#332288",
    "pkg_local": "#0072B2",
    "pkg_probe": "#44AA99",
    "dchoices": "#009E73",
    "wchoices": "#F0E442",
    "fish": "#000000",
}
_FILTERING = {
    "counting": "#D55E00",
    "propagation": "#0072B2",
    "propagation_wp": "#56B4E9",
    "static": "#009E73",
    "dynamic": "#CC79A7",
    "bitset": "#E69F00",  # beyond the paper: the interval matcher (Rein, HEM)
    "oracle": "#999999",
}
_SPATIAL = {
    "grid": "#999999",
    "kd-tree": "#D55E00",
    "r-tree": "#E69F00",
    "frequency": "#CC79A7",
    "hypergraph": "#56B4E9",
    "metric": "#009E73",
    "hybrid": "#0072B2",
}
_MIGRATION = {  # PS2Stream's cell selections (Sect. V-A) and the run without adjustment
    "DP": "#0072B2",
    "GR": "#D55E00",
    "SI": "#009E73",
    "RA": "#CC79A7",
    "none": "#999999",
    "GR+global": "#E69F00",  # GR with the global adjustment of Sect. V-B
}
#: colour per design when the systems are drawn side by side (notebook 13)
DESIGN_COLOURS = {
    "S3-TM": "#0072B2",
    "key grouping": "#D55E00",
    "PS2Stream": "#009E73",
    "Fabret": "#CC79A7",
}
#: colour per system, keyed by registry name
SYSTEM_COLOURS: dict[str, dict[str, str]] = {
    "s3tm": _S3TM,
    "grouping": _GROUPING,
    "filtering": _FILTERING,
    "spatial": _SPATIAL,
    "migration": _MIGRATION,
}
#: names figures use beside the registry names and labels (short legend names)
ALIASES: dict[str, str] = {
    "KG": "kg",
    "KG (hashing)": "kg",
    "FG": "kg",  # field grouping: the FISH paper's name for key grouping
    "SG": "sg",
    "SG (shuffle)": "sg",
    "PoTC": "potc",
    "On-Greedy": "on_greedy",
    "Off-Greedy": "off_greedy",
    "PKG": "pkg_local",
    "PKG (G)": "pkg_global",
    "PKG (L)": "pkg_local",
    "PKG (LP)": "pkg_probe",
    "D-C": "dchoices",
    "W-C": "wchoices",
    "FISH": "fish",
    "R-tree": "r-tree",
    "R-tree (STR)": "r-tree",
    "propagation (prefetching)": "propagation_wp",
    "bitset (interval)": "bitset",
    "no_change": "static",  # Fig. 4's No Change: the static clustering, kept
    "No Change": "static",
}
#: every colour by every name a figure may use (registry names, labels, aliases)
METHOD_COLOURS: dict[str, str] = {
    **{name: c for colours in SYSTEM_COLOURS.values() for name, c in colours.items()},
    **{alias: _GROUPING.get(n, _SPATIAL.get(n, _FILTERING.get(n))) for alias, n in ALIASES.items()},
}
#: a dash for a variant drawn over its base method, so coinciding lines stay visible
METHOD_DASH: dict[str, str] = {
    "propagation_wp": "dot",
    "propagation (prefetching)": "dot",
    "hash+split": "dash",
    "pkg_probe": "dot",
    "PKG (LP)": "dot",
}


def color_for(name: str, names: Sequence[str] = ()) -> str:
    """A stable colour for ``name``: its entry in :data:`METHOD_COLOURS`, else its position
    among ``names`` in the palette (same method, same colour)."""
    if name in METHOD_COLOURS:
        return METHOD_COLOURS[name]
    names = list(names)
    if name not in names:
        raise ValueError(f"no colour for {name!r}: add it to METHOD_COLOURS or pass names")
    return PALETTE[names.index(name) % len(PALETTE)]


def dash_for(name: str) -> str:
    """``"solid"``, or the dash that tells a variant from the method it is drawn over."""
    return METHOD_DASH.get(name, "solid")
