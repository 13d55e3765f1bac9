"""How the command line words what it counts: a number and its noun, singular when there is one.

Every count the command line prints (its summaries, the dataset families'
reports) goes through :func:`plural`, so no line reads "wrote 1 systems" or
hedges with "file(s)".
"""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one.

    Parameters
    ----------
    count : int
        How many.
    noun : str
        The noun in the singular (``"system"``).
    many : str, optional
        Its plural where that is not the singular plus ``s`` (``"families"``).

    Returns
    -------
    str
        ``"1 system"``, ``"0 systems"``, ``"3 families"``.

    Examples
    --------
    >>> plural(1, "system"), plural(2, "system"), plural(0, "family", "families")
    ('1 system', '2 systems', '0 families')
    """
    return f"{count} {noun if count == 1 else many or noun + 's'}"


__all__ = ["plural"]
