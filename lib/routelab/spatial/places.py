"""Where the tweets are: the gazetteer's places in a country's box, posts placed by their
accounts, the box cut into regions.

TWEETS-US'/UK' (PS2Stream Sect. VI-A) are geo-tagged tweets; the bundled tweets carry no
place, so a post is placed by its account (:func:`place_accounts`): with probability
``p_home`` at the account's home metro (:data:`HOMES`, synthetic), else at a gazetteer place
of the country (:func:`country_places`) drawn by population, with a Gaussian jitter. The
country's box (:data:`BOXES`) cut ``regions`` x ``regions`` gives Q3's regions and the
region attribute of the five routers' stream (:func:`box_region`).

Used by notebooks 11-12's semi-synthetic workload (:mod:`routelab.spatial.lab.workload`)
and by the five routers' stream, interests and user files (:mod:`routelab.compare`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.spatial.grid import KM_PER_DEGREE

#: Each account's home metro (name as in the gazetteer), per country variant. Synthetic:
#: chosen to spread the accounts over the country's large cities.
HOMES: dict[str, dict[str, str]] = {
    "US": {
        "nytimeshealth": "New York City",
        "realDonaldTrump": "New York City",
        "wsjhealth": "New York City",
        "latimeshealth": "Los Angeles",
        "KaiserHealthNews": "Washington",
        "nprhealth": "Washington",
        "goodhealth": "Phoenix",
        "reuters_health": "Miami",
        "NBChealth": "Philadelphia",
        "cnnhealth": "Atlanta",
        "bbchealth": "Boston",
        "cbchealth": "Seattle",
        "everydayhealth": "Chicago",
        "msnhealthnews": "San Francisco",
        "gdnhealthcare": "Houston",
        "foxnewshealth": "Dallas",
        "usnewshealth": "Denver",
    },
    "GB": {
        "bbchealth": "London",
        "gdnhealthcare": "London",
        "realDonaldTrump": "Glasgow",
        "nytimeshealth": "Manchester",
        "wsjhealth": "Birmingham",
        "latimeshealth": "Leeds",
        "KaiserHealthNews": "Liverpool",
        "nprhealth": "Bristol",
        "goodhealth": "Sheffield",
        "reuters_health": "Edinburgh",
        "NBChealth": "Newcastle upon Tyne",
        "cnnhealth": "Cardiff",
        "cbchealth": "Nottingham",
        "everydayhealth": "Leicester",
        "msnhealthnews": "Southampton",
        "foxnewshealth": "Belfast",
        "usnewshealth": "Aberdeen",
    },
}

#: Country boxes (lon/lat) that clip the jittered points (contiguous US; Great Britain + NI).
BOXES = {"US": (-124.8, 24.5, -66.9, 49.4), "GB": (-8.2, 49.9, 1.8, 58.7)}


def country_places(country: str) -> pd.DataFrame:
    """The gazetteer's populated places inside ``country``'s box."""
    from routelab.datasets.bundled import read_prepared

    g = read_prepared("gazetteer", ["name", "country", "lat", "lon", "population"])
    lo_x, lo_y, hi_x, hi_y = BOXES[country]
    g = g[(g.country == country) & g.lon.between(lo_x, hi_x) & g.lat.between(lo_y, hi_y)]
    return g[g.population > 0].reset_index(drop=True)


def place_accounts(
    accounts: np.ndarray,
    country: str,
    p_home: float,
    rng: np.random.Generator,
    places: pd.DataFrame | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """TWEETS-US' placement of posts by their accounts: with probability ``p_home`` at the
    account's home metro (:data:`HOMES`; unknown accounts: the largest place), else at a
    gazetteer place drawn by population; Gaussian jitter of max(1 km, 2 km sqrt(pop/1e5)),
    clipped to the country's box. Returns (lon, lat)."""
    places = country_places(country) if places is None else places
    n = len(accounts)
    pop = places.population.to_numpy(dtype=np.float64)
    chosen = rng.choice(len(places), size=n, p=pop / pop.sum())
    homes = {}
    for acc, name in HOMES[country].items():
        rows = places[places.name == name]
        homes[acc] = int(rows.population.idxmax()) if len(rows) else int(np.argmax(pop))
    home = pd.Series(accounts).map(homes).fillna(int(np.argmax(pop))).to_numpy(dtype=np.int64)
    at_home = rng.random(n) < p_home
    chosen = np.where(at_home, home, chosen)
    sigma_km = np.maximum(1.0, 2.0 * np.sqrt(pop[chosen] / 1e5))
    lat0 = places.lat.to_numpy()[chosen]
    lon0 = places.lon.to_numpy()[chosen]
    lat = lat0 + rng.normal(0, 1, n) * sigma_km / KM_PER_DEGREE
    lon = lon0 + rng.normal(0, 1, n) * sigma_km / (KM_PER_DEGREE * np.cos(np.radians(lat0)))
    lo_x, lo_y, hi_x, hi_y = BOXES[country]
    return np.clip(lon, lo_x, hi_x), np.clip(lat, lo_y, hi_y)


def box_region(
    lon: np.ndarray,
    lat: np.ndarray,
    country: str | tuple[float, float, float, float] = "US",
    regions: int = 10,
) -> np.ndarray:
    """The region (0 .. regions^2 - 1, row-major from the south-west) of points: the
    country's box (or a ``(min_lon, min_lat, max_lon, max_lat)`` box) cut ``regions`` x
    ``regions`` (Q3's regions)."""
    lo_x, lo_y, hi_x, hi_y = BOXES[country] if isinstance(country, str) else country
    hi_x, hi_y = max(hi_x, lo_x + 1e-9), max(hi_y, lo_y + 1e-9)
    rx = np.clip(
        ((np.asarray(lon) - lo_x) / (hi_x - lo_x) * regions).astype(np.int64), 0, regions - 1
    )
    ry = np.clip(
        ((np.asarray(lat) - lo_y) / (hi_y - lo_y) * regions).astype(np.int64), 0, regions - 1
    )
    return ry * regions + rx
