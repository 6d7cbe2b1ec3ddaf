"""The base grid every index of PS2Stream lives on (Sects. IV-B to IV-D).

The paper builds the dispatcher's gridt index "with the granularity decided by the leaf
nodes" of the kdt-tree and the workers' GI2 index with a granularity "determined
empirically" and equal for all algorithms; both values are lost. Reading taken here:
one uniform ``g x g`` grid over the data's bounding box is the *base
grid*; every split line of every partitioner snaps to it, the dispatcher's gridt cells
and the workers' GI2 cells are its cells. So every cell lies in exactly one space leaf,
the GI2 granularity is the same for every algorithm (the paper's fairness condition), and
a query inserted at a worker for a gridt cell lands in exactly that GI2 cell.

Cell coordinates are integers ``(cx, cy)`` with ``0 <= cx, cy < g``; the cell id is
``cy * g + cx``. A point's cell uses ``floor`` and clips to the box, so a point on the
box's upper edge belongs to the last cell; a closed query rectangle covers the cells from
the cell of its lower corner to the cell of its upper corner (inclusive), which contain
every point of the rectangle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KM_PER_DEGREE = 111.32


@dataclass(frozen=True)
class BaseGrid:
    """A ``g x g`` grid over ``[min_lon, max_lon] x [min_lat, max_lat]``."""

    min_lon: float
    min_lat: float
    max_lon: float
    max_lat: float
    g: int = 256

    def __post_init__(self) -> None:
        if self.g < 1:
            raise ValueError(f"grid size must be >= 1, got {self.g}")
        if not (self.max_lon > self.min_lon and self.max_lat > self.min_lat):
            raise ValueError(
                f"empty grid box lon [{self.min_lon}, {self.max_lon}] lat [{self.min_lat}, {self.max_lat}]"
            )

    @classmethod
    def around(cls, lon: np.ndarray, lat: np.ndarray, g: int = 256, pad: float = 1e-6) -> BaseGrid:
        """The grid over the bounding box of the points (padded so no point is on an edge)."""
        lon = np.asarray(lon, dtype=np.float64)
        lat = np.asarray(lat, dtype=np.float64)
        if len(lon) == 0:
            raise ValueError("no points to build a grid around")
        lo_x, hi_x = float(lon.min()), float(lon.max())
        lo_y, hi_y = float(lat.min()), float(lat.max())
        px = max(pad, (hi_x - lo_x) * 1e-9)
        py = max(pad, (hi_y - lo_y) * 1e-9)
        return cls(lo_x - px, lo_y - py, hi_x + px, hi_y + py, g)

    @property
    def n_cells(self) -> int:
        return self.g * self.g

    @property
    def cell_width(self) -> float:
        return (self.max_lon - self.min_lon) / self.g

    @property
    def cell_height(self) -> float:
        return (self.max_lat - self.min_lat) / self.g

    def cx(self, lon: np.ndarray | float) -> np.ndarray:
        x = np.floor((np.asarray(lon, dtype=np.float64) - self.min_lon) / self.cell_width)
        return np.clip(x, 0, self.g - 1).astype(np.int64)

    def cy(self, lat: np.ndarray | float) -> np.ndarray:
        y = np.floor((np.asarray(lat, dtype=np.float64) - self.min_lat) / self.cell_height)
        return np.clip(y, 0, self.g - 1).astype(np.int64)

    def cell(self, lon: np.ndarray | float, lat: np.ndarray | float) -> np.ndarray:
        """Cell id of each point."""
        return self.cy(lat) * self.g + self.cx(lon)

    def cell_ranges(self, rect: np.ndarray) -> np.ndarray:
        """Inclusive cell ranges ``(x0, y0, x1, y1)`` covered by rectangles ``(n, 4)``."""
        rect = np.asarray(rect, dtype=np.float64).reshape(-1, 4)
        return np.stack(
            [self.cx(rect[:, 0]), self.cy(rect[:, 1]), self.cx(rect[:, 2]), self.cy(rect[:, 3])],
            axis=1,
        )

    def cell_box(self, x0: int, y0: int, x1: int, y1: int) -> tuple[float, float, float, float]:
        """Degrees of the half-open cell block ``[x0, x1) x [y0, y1)``."""
        return (
            self.min_lon + x0 * self.cell_width,
            self.min_lat + y0 * self.cell_height,
            self.min_lon + x1 * self.cell_width,
            self.min_lat + y1 * self.cell_height,
        )


def square_rect(lon: np.ndarray, lat: np.ndarray, side_km: np.ndarray) -> np.ndarray:
    """Squares of side ``side_km`` centred on the points, in degrees (one projection
    per query: ``dlat = s / 111.32``, ``dlon = s / (111.32 cos(lat))`` at its centre)."""
    lon = np.asarray(lon, dtype=np.float64)
    lat = np.asarray(lat, dtype=np.float64)
    half_lat = np.asarray(side_km, dtype=np.float64) / KM_PER_DEGREE / 2
    half_lon = half_lat / np.maximum(np.cos(np.radians(lat)), 0.05)
    return np.stack([lon - half_lon, lat - half_lat, lon + half_lon, lat + half_lat], axis=1)
