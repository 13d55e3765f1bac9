"""Level sets of fixed obstacles: signed distance, its gradient and Hessian.

Each obstacle answers :meth:`evaluate` at one point with ``(phi, n, H)``:
the signed distance (negative inside the obstacle), the outward unit normal
``grad phi`` and the Hessian of ``phi``. Attachment projection (alg. 5 of the
penalty-friction paper) needs all three: ``W = X - phi n`` and
``dW/dX = I - n n^T - phi H``. :meth:`distance` is the vectorised ``phi`` used
by the broad phase.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qlsbench.errors import InputError


def _unit(vector, name: str) -> np.ndarray:
    v = np.asarray(vector, dtype=float).reshape(3)
    norm = np.linalg.norm(v)
    if not np.isfinite(norm) or norm == 0.0:
        raise InputError(f"{name} must be a finite non-zero 3-vector, got {vector!r}")
    return v / norm


@dataclass(frozen=True)
class Plane:
    """The half-space ``n . (x - point) < 0`` (a floor when ``normal`` points up)."""

    point: np.ndarray
    normal: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "point", np.asarray(self.point, dtype=float).reshape(3))
        object.__setattr__(self, "normal", _unit(self.normal, "Plane.normal"))

    def distance(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x) - self.point) @ self.normal

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        return float(self.normal @ (x - self.point)), self.normal.copy(), np.zeros((3, 3))


def inclined_plane(angle: float, point=(0.0, 0.0, 0.0)) -> Plane:
    """A plane through ``point`` tilted by ``angle`` radians about the y axis.

    Its normal is ``(sin a, 0, cos a)``, so with gravity along ``-z`` the
    downhill direction is ``(cos a, 0, -sin a)``.
    """
    if not 0.0 <= angle < np.pi / 2:
        raise InputError(f"incline angle must be in [0, 90) degrees, got {np.degrees(angle):g}")
    return Plane(point, np.array([np.sin(angle), 0.0, np.cos(angle)]))


@dataclass(frozen=True)
class SphereObstacle:
    """A fixed solid ball."""

    center: np.ndarray
    radius: float

    def __post_init__(self):
        object.__setattr__(self, "center", np.asarray(self.center, dtype=float).reshape(3))
        if not self.radius > 0:
            raise InputError(f"SphereObstacle.radius must be > 0, got {self.radius!r}")

    def distance(self, x: np.ndarray) -> np.ndarray:
        return np.linalg.norm(np.asarray(x) - self.center, axis=-1) - self.radius

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        d = x - self.center
        r = np.linalg.norm(d)
        if r == 0.0:  # the centre: every direction is a normal; pick one, the Hessian is unbounded anyway
            n = np.array([0.0, 0.0, 1.0])
            return -self.radius, n, np.zeros((3, 3))
        n = d / r
        return float(r - self.radius), n, (np.eye(3) - np.outer(n, n)) / r


@dataclass(frozen=True)
class Box:
    """A fixed solid axis-aligned box with the given centre and half extents."""

    center: np.ndarray
    half: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "center", np.asarray(self.center, dtype=float).reshape(3))
        half = np.asarray(self.half, dtype=float).reshape(3)
        if not np.all(half > 0):
            raise InputError(f"Box.half extents must all be > 0, got {self.half!r}")
        object.__setattr__(self, "half", half)

    def distance(self, x: np.ndarray) -> np.ndarray:
        q = np.abs(np.asarray(x) - self.center) - self.half
        outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
        return outside + np.minimum(q.max(axis=-1), 0.0)

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        p = x - self.center
        s = np.where(p < 0, -1.0, 1.0)
        q = np.abs(p) - self.half
        if np.any(q > 0):
            # Outside: distance to the nearest face, edge or corner, ||max(q, 0)||.
            active = q > 0
            qp = np.where(active, q, 0.0)
            length = np.linalg.norm(qp)
            n = s * qp / length
            H = (np.diag(active.astype(float)) - np.outer(qp, qp) / length**2) / length
            return float(length), n, H * np.outer(s, s)
        k = int(np.argmax(q))  # inside: the nearest face; phi is linear there
        n = np.zeros(3)
        n[k] = s[k]
        return float(q[k]), n, np.zeros((3, 3))
