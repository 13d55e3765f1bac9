"""Contact detection: which sphere pairs and sphere-wall pairs may touch within one step.

Everything is vectorised: a k-d tree finds candidate pairs, numpy computes the
gaps, normals and tangent frames of all contacts at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from qlsbench.errors import InputError
from qlsbench.physics.spheres.scenes import Plane, Scene, SphericalContainer


@dataclass(frozen=True)
class Contacts:
    """All contacts of one configuration, as parallel arrays of length ``nc``.

    Attributes
    ----------
    body_i : numpy.ndarray
        First body of each contact; ``-1`` for a static wall.
    body_j : numpy.ndarray
        Second body (always a sphere); ``body_i < body_j`` for sphere pairs.
    normal : numpy.ndarray
        ``(nc, 3)`` unit normals from ``i`` to ``j``: a positive normal impulse pushes ``j`` along it.
    gap : numpy.ndarray
        Signed surface distance; negative means overlap.
    t1, t2 : numpy.ndarray
        ``(nc, 3)`` orthonormal tangent frame, with ``(normal, t1, t2)`` right-handed.
    """

    body_i: np.ndarray
    body_j: np.ndarray
    normal: np.ndarray
    gap: np.ndarray
    t1: np.ndarray
    t2: np.ndarray

    @property
    def count(self) -> int:
        return int(len(self.gap))


def tangent_basis(normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic orthonormal tangent frame for each unit normal.

    ``t1`` is the x axis (the y axis when the normal is nearly along x) made
    orthogonal to the normal; ``t2 = normal x t1``. A floor with normal +z gets
    ``t1 = +x`` and ``t2 = +y``.
    """
    helper = np.zeros_like(normals)
    along_x = np.abs(normals[:, 0]) > 0.9
    helper[~along_x, 0] = 1.0
    helper[along_x, 1] = 1.0
    t1 = helper - np.sum(helper * normals, axis=1, keepdims=True) * normals
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    t2 = np.cross(normals, t1)
    return t1, t2


def _sphere_pairs(scene: Scene, margin: float):
    p, r = scene.positions, scene.radii
    if scene.n_spheres < 2:
        return np.empty(0, int), np.empty(0, int), np.empty((0, 3)), np.empty(0)
    pairs = cKDTree(p).query_pairs(2 * r.max() + margin, output_type="ndarray")
    if len(pairs) == 0:
        return np.empty(0, int), np.empty(0, int), np.empty((0, 3)), np.empty(0)
    # Sorted so the contact order, and hence every matrix, is the same on every run.
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    i, j = pairs[:, 0], pairs[:, 1]
    d = p[j] - p[i]
    dist = np.linalg.norm(d, axis=1)
    gap = dist - r[i] - r[j]
    keep = gap <= margin
    i, j, d, dist, gap = i[keep], j[keep], d[keep], dist[keep], gap[keep]
    if np.any(dist == 0):
        k = int(np.argmin(dist))
        raise InputError(f"spheres {i[k]} and {j[k]} have the same centre; no contact normal exists")
    return i, j, d / dist[:, None], gap


def _wall_contacts(scene: Scene, wall, margin: float):
    p, r = scene.positions, scene.radii
    if isinstance(wall, Plane):
        n = np.asarray(wall.normal, float) / np.linalg.norm(wall.normal)
        gap = (p - wall.point) @ n - r
        idx = np.flatnonzero(gap <= margin)
        return idx, np.broadcast_to(n, (len(idx), 3)).copy(), gap[idx]
    if isinstance(wall, SphericalContainer):
        d = np.asarray(wall.center, float) - p  # from sphere toward the centre: the push of the wall
        dist = np.linalg.norm(d, axis=1)
        gap = wall.radius - dist - r
        idx = np.flatnonzero(gap <= margin)
        return idx, d[idx] / dist[idx, None], gap[idx]
    raise InputError(f"unknown wall type {type(wall).__name__}")


def detect_contacts(scene: Scene, margin: float) -> Contacts:
    """Contacts whose gap is at most ``margin``.

    Parameters
    ----------
    scene : Scene
        Current configuration.
    margin : float
        Detection distance; must exceed how far surfaces can approach in one
        step, or contacts are missed and spheres pass through each other.

    Returns
    -------
    Contacts
        Sphere-sphere contacts (sorted by pair), then wall contacts (by wall, then sphere).
    """
    i, j, n, g = _sphere_pairs(scene, margin)
    bi, bj, normals, gaps = [i], [j], [n], [g]
    for wall in scene.walls:
        idx, n, g = _wall_contacts(scene, wall, margin)
        bi.append(np.full(len(idx), -1))
        bj.append(idx)
        normals.append(n)
        gaps.append(g)
    normal = np.concatenate(normals).reshape(-1, 3)
    t1, t2 = tangent_basis(normal) if len(normal) else (np.empty((0, 3)), np.empty((0, 3)))
    return Contacts(
        np.concatenate(bi).astype(np.int64), np.concatenate(bj).astype(np.int64), normal, np.concatenate(gaps), t1, t2
    )
