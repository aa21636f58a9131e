"""The HTML report's colour scales: a stepped scale fitted to the figures a table or a heatmap
shows, so that 0.80 and 0.95 differ as much as 0.20 and 0.35 would on a corpus spread that wide
(docs/report.md).

A scale covers ``[low, high]``, the figures' range widened to whole steps of a round size (0.01,
0.02, 0.025, 0.05, 0.1, ...), in at most :data:`MAX_BINS` bins; each bin has a colour of a
perceptually ordered palette (viridis: dark for the lowest figures, light for the highest) and
the ink its numbers are written in (white on the dark colours, black on the light ones). A
figure's bin is found by comparing it with the edges, which the page's script receives as they
are (JSON numbers), so the script and Python always colour a figure alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Round step sizes, the smallest first: a scale takes the smallest that needs at most MAX_BINS bins.
STEPS = (0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
MAX_BINS = 8
#: viridis (Smith & van der Walt 2015), sampled at nine points: dark blue-purple to yellow.
PALETTE = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")
#: The colour of an undefined figure (and its ink).
UNDEFINED = ("#dddddd", "#1d2329")
#: The inks: black or white, whichever contrasts more, always at least 4.58 to 1 (WCAG 2).
DARK_INK, LIGHT_INK = "#000000", "#ffffff"


@dataclass(frozen=True, slots=True)
class Scale:
    """A stepped colour scale: ``edges`` (``len(colours) + 1`` numbers, ascending), each bin's
    colour and ink.

    Examples
    --------
    >>> s = fitted([0.81, 0.88, 0.76])
    >>> s.edges
    (0.76, 0.78, 0.8, 0.82, 0.84, 0.86, 0.88)
    >>> s.bin(0.76), s.bin(0.8), s.bin(0.81), s.bin(0.88)
    (0, 2, 2, 5)
    >>> s.colour(0.76), s.ink(0.76), s.ink(0.88), s.colour(None)
    ('#440154', '#ffffff', '#000000', '#dddddd')
    """

    edges: tuple[float, ...]
    colours: tuple[str, ...]
    inks: tuple[str, ...]

    def bin(self, v: float) -> int:
        """The bin of ``v``: the number of inner edges at or below it (so a figure on an edge
        goes to the bin above; the highest edge closes the last bin)."""
        return sum(1 for e in self.edges[1:-1] if v >= e)

    def colour(self, v) -> str:
        return UNDEFINED[0] if undefined(v) else self.colours[self.bin(v)]

    def ink(self, v) -> str:
        return UNDEFINED[1] if undefined(v) else self.inks[self.bin(v)]

    def style(self, v) -> str:
        """The CSS of a cell showing ``v``."""
        return f"background:{self.colour(v)};color:{self.ink(v)}"

    def as_json(self) -> dict:
        return {"edges": list(self.edges), "colours": list(self.colours), "inks": list(self.inks)}


def undefined(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fitted(values) -> Scale | None:
    """The scale of the figures ``values`` (undefined ones ignored; ``None`` when none is defined)."""
    defined = [float(v) for v in values if not undefined(v)]
    if not defined:
        return None
    lo, hi = min(defined), max(defined)
    for step in STEPS:
        low = math.floor(lo / step + 1e-9)  # (0.8 / 0.05 is 16.000000000000004)
        high = math.ceil(hi / step - 1e-9)
        if edge(low, step) > lo:  # a figure a hair below a round edge: the step below
            low -= 1
        if edge(high, step) < hi:
            high += 1
        if high <= low:  # every figure on one edge: the bin below it (above it at 0 and below)
            if low > 0:
                low -= 1
            else:
                high = low + 1
        if high - low <= MAX_BINS:
            break
    edges = tuple(edge(k, step) for k in range(low, high + 1))
    colours = palette(len(edges) - 1)
    return Scale(edges, colours, tuple(ink_on(c) for c in colours))


def edge(k: int, step: float) -> float:
    """The ``k``-th round edge of a scale of ``step`` (9 decimals: 0.95, not 0.9500000000000001)."""
    return round(k * step, 9) + 0.0


def palette(n: int) -> tuple[str, ...]:
    """``n`` colours spread evenly over :data:`PALETTE` (interpolated in RGB)."""
    if n == 1:
        return (PALETTE[-1],)
    found = []
    for k in range(n):
        at = k * (len(PALETTE) - 1) / (n - 1)
        below = min(int(at), len(PALETTE) - 2)
        t = at - below
        a, b = rgb(PALETTE[below]), rgb(PALETTE[below + 1])
        found.append("#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b)))
    return tuple(found)


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))


def ink_on(colour: str) -> str:
    """Black or white, whichever contrasts more with ``colour`` (WCAG 2's contrast ratio)."""
    luminance = luminance_of(colour)
    dark = (luminance + 0.05) / (luminance_of(DARK_INK) + 0.05)
    light = 1.05 / (luminance + 0.05)
    return DARK_INK if dark >= light else LIGHT_INK


def luminance_of(colour: str) -> float:
    """WCAG 2's relative luminance of an ``#rrggbb`` colour."""
    def linear(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
