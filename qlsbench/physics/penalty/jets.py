"""Forward-mode first-order jets: a value together with its derivatives in ``m`` chosen inputs.

The mesh relaxation (alg. 10-11 of the penalty-friction supplement) asks for
the Jacobians of each move "by autodifferentiation"; the moves are short
chains of dot and cross products, square roots and divisions, so carrying the
gradient along with the value is simpler and safer than deriving every formula
by hand. A :class:`Jet` is either a scalar (``value`` shape ``()``, ``grad``
shape ``(m,)``) or a 3-vector (``value`` ``(3,)``, ``grad`` ``(3, m)``).
"""

from __future__ import annotations

import numpy as np


class Jet:
    """A value and its first derivatives with respect to ``m`` inputs.

    Parameters
    ----------
    value : float or ndarray (3,)
    grad : ndarray (m,) or (3, m)
    """

    __slots__ = ("value", "grad")

    def __init__(self, value, grad):
        self.value = np.asarray(value, dtype=float)
        self.grad = np.asarray(grad, dtype=float)

    @classmethod
    def variable(cls, value: np.ndarray, slot: int, m: int) -> Jet:
        """The 3-vector input occupying columns ``3 slot .. 3 slot + 2`` of the ``m`` derivatives."""
        grad = np.zeros((3, m))
        grad[:, 3 * slot : 3 * slot + 3] = np.eye(3)
        return cls(value, grad)

    @property
    def is_scalar(self) -> bool:
        return self.value.ndim == 0

    def _lift(self, other) -> Jet:
        """A constant as a jet of this one's shape (zero derivatives)."""
        if isinstance(other, Jet):
            return other
        value = np.broadcast_to(np.asarray(other, dtype=float), self.value.shape)
        return Jet(value, np.zeros_like(self.grad))

    def __add__(self, other) -> Jet:
        other = self._lift(other)
        return Jet(self.value + other.value, self.grad + other.grad)

    __radd__ = __add__

    def __sub__(self, other) -> Jet:
        other = self._lift(other)
        return Jet(self.value - other.value, self.grad - other.grad)

    def __rsub__(self, other) -> Jet:
        return self._lift(other) - self

    def __neg__(self) -> Jet:
        return Jet(-self.value, -self.grad)

    def __mul__(self, other) -> Jet:
        """Product with a float, a scalar jet, or (when one side is a scalar jet) a vector jet."""
        if not isinstance(other, Jet):
            return Jet(self.value * other, self.grad * other)
        if self.is_scalar and other.is_scalar:
            return Jet(self.value * other.value, self.value * other.grad + other.value * self.grad)
        scalar, vector = (self, other) if self.is_scalar else (other, self)
        if not scalar.is_scalar:
            raise TypeError("jets multiply as scalar * scalar or scalar * vector; use dot or cross for two vectors")
        return Jet(scalar.value * vector.value, scalar.value * vector.grad + np.outer(vector.value, scalar.grad))

    __rmul__ = __mul__

    def reciprocal(self) -> Jet:
        """``1 / self`` for a scalar jet."""
        return Jet(1.0 / self.value, -self.grad / self.value**2)

    def __truediv__(self, other) -> Jet:
        if isinstance(other, Jet):
            return self * other.reciprocal()
        return self * (1.0 / other)

    def __rtruediv__(self, other) -> Jet:
        return self.reciprocal() * float(other)

    def __float__(self) -> float:
        return float(self.value)


def cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` of two plain 3-vectors (``np.cross`` costs ~15 us a call, which the relaxation makes thousands of)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _skew(a: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def dot(a: Jet, b: Jet) -> Jet:
    """``a . b`` of two vector jets (a scalar jet)."""
    return Jet(a.value @ b.value, a.value @ b.grad + b.value @ a.grad)


def cross(a: Jet, b: Jet) -> Jet:
    """``a x b`` of two vector jets: ``d(a x b) = a x db - b x da``."""
    return Jet(cross3(a.value, b.value), _skew(a.value) @ b.grad - _skew(b.value) @ a.grad)


def sqrt(s: Jet) -> Jet:
    """Square root of a positive scalar jet."""
    root = np.sqrt(s.value)
    return Jet(root, s.grad / (2.0 * root))


def norm(a: Jet) -> Jet:
    """Euclidean length of a non-zero vector jet."""
    return sqrt(dot(a, a))


def absolute(s: Jet) -> Jet:
    """``|s|`` of a scalar jet (the derivative of the side ``s`` is on; at 0, that of ``+s``)."""
    return s if s.value >= 0 else -s


def stack(entries: list[Jet]) -> Jet:
    """Scalar jets stacked into one vector jet."""
    return Jet(np.array([e.value for e in entries]), np.vstack([e.grad for e in entries]))
