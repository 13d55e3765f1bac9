"""One colour and one marker per solver, the same in every figure, on the web page and on every machine.

A solver's style is a fixed function of its label, never of the other labels beside it: a style by place among
the sorted labels changed the colour or marker of every published solver sorted after a newly added one. The
published board's solvers have theirs in :data:`PUBLISHED` (committed, so they never move); any other label
gets one by a hash of its name (:func:`solver_styles`), from the colours no published solver has while there are
such colours, so a new solver is never drawn like a published one.

The colours are distinguishable by measure, not by eye: any two in :data:`PALETTE` differ by at least
:data:`MIN_DELTA_E` in CIEDE2000 (:func:`delta_e`), every one stands off the page's white by
:data:`MIN_DELTA_E_WHITE` (no pale yellow lines), and two published solvers whose colours are closer than
:data:`NEAR_DELTA_E` have different markers (:data:`MARKERS`: 13 shapes). ``tests/test_styles.py`` checks all
three, and that adding a solver leaves every published style as it was.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

#: 34 colours, pairwise at least MIN_DELTA_E apart: Kelly's colours of maximum contrast that keep that distance
#: from one another (black, purple, orange, red, green, blue, yellow-green, brown, reddish orange), then the
#: farthest-point choice from an sRGB grid (steps of 0x11) of colours at least MIN_DELTA_E_WHITE from white and
#: of lightness L* >= 28 (darker ones read as black on a small marker).
PALETTE: tuple[str, ...] = (
    "#222222",
    "#875692",
    "#f38400",
    "#be0032",
    "#008856",
    "#0067a5",
    "#8db600",
    "#654522",
    "#e25822",
    "#ff6699",
    "#0000ee",
    "#0099aa",
    "#8888ff",
    "#005555",
    "#777777",
    "#887700",
    "#ee11ff",
    "#335500",
    "#0099ee",
    "#663344",
    "#996666",
    "#cc0077",
    "#444466",
    "#aa6600",
    "#00bb55",
    "#882200",
    "#558800",
    "#770088",
    "#8844ff",
    "#555544",
    "#cc9900",
    "#bb77bb",
    "#ff2244",
    "#778866",
)
#: Least CIEDE2000 distance between two colours of :data:`PALETTE`.
MIN_DELTA_E = 15.0
#: Least CIEDE2000 distance of a colour of :data:`PALETTE` from the page's white.
MIN_DELTA_E_WHITE = 35.0
#: Published solvers whose colours are closer than this (CIEDE2000) have different markers.
NEAR_DELTA_E = 30.0

#: Marker shapes: the page's name for each (leaderboard.js draws it in SVG) and matplotlib's code.
MARKERS: dict[str, str] = {
    "circle": "o",
    "square": "s",
    "triangle-up": "^",
    "diamond": "D",
    "triangle-down": "v",
    "plus": "P",
    "cross": "X",
    "star": "*",
    "hexagon": "h",
    "triangle-left": "<",
    "triangle-right": ">",
    "pentagon": "p",
    "thin-diamond": "d",
}

#: The published board's solvers: (colour, marker) each, fixed. Colours in PALETTE's order over the sorted labels
#: (the controls in greys), markers chosen so that colours closer than NEAR_DELTA_E never share one. A solver newly
#: published is added here with a colour of :func:`spare_colours`.
PUBLISHED: dict[str, tuple[str, str]] = {
    "bicgstab": ("#222222", "circle"),
    "cg": ("#875692", "square"),
    "gmres": ("#f38400", "triangle-up"),
    "hhl-c5-refine10": ("#be0032", "diamond"),
    "hhl-c8": ("#008856", "triangle-down"),
    "hhl-c8-refine10": ("#0067a5", "plus"),
    "lu": ("#8db600", "cross"),
    "minres": ("#654522", "star"),
    "null-b": ("#777777", "hexagon"),
    "null-random": ("#555544", "triangle-left"),
    "qsvt-eps1e-2": ("#e25822", "triangle-right"),
    "splu": ("#ff6699", "pentagon"),
    "vnls-arnn": ("#0000ee", "thin-diamond"),
    "vnls-crbm": ("#0099aa", "circle"),
    "vnls-crbm-exact": ("#8888ff", "triangle-up"),
    "vnls-rbm": ("#005555", "square"),
    "vqls-global-qnspsa": ("#887700", "diamond"),
    "vqls-local-circuits": ("#ee11ff", "triangle-down"),
    "vqls-local-lbfgsb": ("#335500", "plus"),
    "vqls-local-lbfgsb-L16": ("#0099ee", "cross"),
    "vqls-local-lbfgsb-ladder": ("#663344", "triangle-right"),
    "vqls-local-qnspsa": ("#996666", "thin-diamond"),
    # peers, published from contrib/ (qlsbench/pinned/submissions/)
    "mps-als-D16": ("#cc0077", "circle"),
    "mps-als-D2": ("#444466", "triangle-up"),
    "mps-als-D4": ("#aa6600", "triangle-down"),
    "mps-als-D8": ("#00bb55", "diamond"),
    "pennylane-qsvt-eps1e-2": ("#882200", "plus"),
    "vqls-prototype-global": ("#558800", "star"),
    "vqls-prototype-local": ("#770088", "cross"),
}

#: Appended to a self-submitted label (:data:`qlsbench.bench.board.submissions.SELF_SUBMITTED`): such labels take
#: their styles after every other label, so none of them moves a published one.
_SELF_SUBMITTED = " (self-submitted)"


@dataclass(frozen=True)
class Style:
    """How one solver is drawn: ``color`` (hex), ``marker`` (the page's name) and ``mpl_marker`` (matplotlib's)."""

    color: str
    marker: str
    mpl_marker: str


def spare_colours() -> list[str]:
    """The colours of :data:`PALETTE` no published solver has, in palette order."""
    taken = {colour for colour, _ in PUBLISHED.values()}
    return [c for c in PALETTE if c not in taken]


def _hash(label: str) -> int:
    """A label's fixed number: the same on every machine and run (Python's ``hash`` of a str is salted)."""
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def solver_styles(labels) -> dict[str, Style]:
    """Each label's :class:`Style`: a published solver's from :data:`PUBLISHED`, any other's by its hash.

    Other labels are styled one by one (self-submitted ones last, then by label), each taking by its hash a
    colour no label here has yet, first among :func:`spare_colours`, then among the published colours absent
    from ``labels``; when every colour is in use, a (colour, marker) pair none has. So a published solver never
    changes, a new one is never drawn like a published one while colours last, and no two labels share a
    (colour, marker) pair until all ``len(PALETTE) * len(MARKERS)`` are used.
    """
    labels = sorted(set(labels))
    pairs = {label: PUBLISHED[label] for label in labels if label in PUBLISHED}
    spare = spare_colours()
    absent = [c for label, (c, _) in PUBLISHED.items() if label not in pairs]
    for label in sorted(set(labels) - set(pairs), key=lambda s: (s.endswith(_SELF_SUBMITTED), s)):
        pairs[label] = _new_pair(_hash(label), pairs.values(), spare, absent)
    return {label: Style(colour, marker, MARKERS[marker]) for label, (colour, marker) in pairs.items()}


def _new_pair(number: int, taken, spare: list[str], absent: list[str]) -> tuple[str, str]:
    """The (colour, marker) ``number`` picks: a colour none of ``taken`` has (``spare`` first, then ``absent``),
    else a pair none of them has, else (every pair in use) any pair."""
    taken = set(taken)
    used = {colour for colour, _ in taken}
    shapes = list(MARKERS)
    marker = shapes[(number >> 32) % len(shapes)]  # the hash's other half, so colour and marker vary apart
    for colours in (spare, absent):
        free = [c for c in colours if c not in used]
        if free:
            return free[number % len(free)], marker
    everything = [(c, m) for c in PALETTE for m in shapes]
    free_pairs = [pair for pair in everything if pair not in taken] or everything
    return free_pairs[number % len(free_pairs)]


def to_lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB hex colour ``#rrggbb``."""
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    matrix = ((0.4124564, 0.3575761, 0.1804375), (0.2126729, 0.7151522, 0.0721750), (0.0193339, 0.1191920, 0.9503041))
    white = (0.95047, 1.0, 1.08883)
    xyz = [sum(m * c for m, c in zip(row, linear)) / w for row, w in zip(matrix, white)]
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def delta_e(first: str, second: str) -> float:
    """The CIEDE2000 colour difference of two sRGB hex colours: about 1 is the smallest difference an observer
    sees side by side; 15 and more reads as another colour."""
    return delta_e_lab(to_lab(first), to_lab(second))


def delta_e_lab(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and Dalal 2005, eqs. 1-25)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c**7 / (mean_c**7 + 25**7)))
    c1, c2 = math.hypot((1 + g) * a1, b1), math.hypot((1 + g) * a2, b2)
    h1 = math.degrees(math.atan2(b1, (1 + g) * a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, (1 + g) * a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else h2 - h1
    dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    mean_l, mean_cp = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        mean_h = h1 + h2
    elif abs(h1 - h2) <= 180:
        mean_h = (h1 + h2) / 2
    else:
        mean_h = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(mean_h - 30))
        + 0.24 * math.cos(math.radians(2 * mean_h))
        + 0.32 * math.cos(math.radians(3 * mean_h + 6))
        - 0.20 * math.cos(math.radians(4 * mean_h - 63))
    )
    rotation = (
        -2
        * math.sqrt(mean_cp**7 / (mean_cp**7 + 25**7))
        * math.sin(math.radians(60 * math.exp(-(((mean_h - 275) / 25) ** 2))))
    )
    s_l = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    s_c, s_h = 1 + 0.045 * mean_cp, 1 + 0.015 * mean_cp * t
    terms = ((l2 - l1) / s_l, (c2 - c1) / s_c, big_dh / s_h)
    return math.sqrt(terms[0] ** 2 + terms[1] ** 2 + terms[2] ** 2 + rotation * terms[1] * terms[2])
