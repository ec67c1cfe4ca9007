"""Expected outputs compared as a reader reads them (docs/contributing.md, "Numbers and
tolerances"): the text with every floating-point number taken out must be identical (words,
dtypes, shapes, integers: a number without a decimal point or an exponent is text), and each
float (``2.9973``, ``1.``, ``6.1e-05``, ``nan``, ``-inf``) must be close to the expected one:
``|actual - expected| <= atol + rtol * |expected| + unit``, where ``unit`` is one unit in the last
digit printed when the number shows at least three significant digits (a value within tolerance
can round either way: ``2.99735``). ``nan`` matches ``nan``, an infinity the same infinity.
Text that a snippet's ``# varies:`` pattern matches is ``<varies>`` on both sides first.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy


@dataclass(frozen=True)
class Tolerance:
    """How far a printed float may move between machines: ``rtol`` relative, ``atol`` absolute."""

    rtol: float
    atol: float = 0.0
    varies: str | None = None  # a '# varies:' regex: the text it matches is compared as <varies>

    def hide(self, text: str) -> str:
        """``text`` with each span that varies (:attr:`varies`) as :data:`VARIES`."""
        return re.sub(self.varies, VARIES, text, flags=re.M) if self.varies else text

    def __str__(self) -> str:
        parts = [f"rtol={self.rtol:g}"] + ([f"atol={self.atol:g}"] if self.atol else [])
        return ", ".join(parts)


#: What stands for a span of output declared to vary (``# varies:``) in a ``.out`` file.
VARIES = "<varies>"

#: The tolerance of a snippet that declares none: float32 results compiled for another CPU
#: (another vector width, AVX2, 128-bit vectors as on Arm) moved by at most 2.2e-7 of their value
#: (``python tools/portability.py --probe``).
DEFAULT = Tolerance(rtol=1e-6)

#: Where a unit in the last printed digit is allowed: the number shows this many significant digits.
SIGNIFICANT_DIGITS = 3

_EXP = r"(?:e[+-]?\d+)"
_FLOAT = rf"[ \t]*([+-]?\d+\.\d*{_EXP}?|[+-]?\.\d+{_EXP}?|[+-]?\d+{_EXP}|nan|[+-]?inf)"
# What may stand before and after a number (pytest-doctestplus's FLOAT_CMP separators, and those
# of program output: ':' ';' '%' '|' quotes, a sentence's final '.').
_FRONT = r"\s|[*+\-,<=(\[:;|'\"/]"
_BACK = _FRONT + r"|[>j)\]}%]|\.(?=\s|$)"
#: A printed float, with the spaces before it (so numpy's padding is no text).
FLOAT = re.compile(rf"(^{_FLOAT}(?={_BACK}|$)|(?<={_FRONT}){_FLOAT}(?={_BACK}|$))", re.M)


def unit_in_last_place(text: str) -> float:
    """One unit in the last digit of the printed float ``text`` (``2.9973`` -> 1e-4; ``1.2e-38``
    -> 1e-39), or 0 when the number shows fewer than :data:`SIGNIFICANT_DIGITS` significant digits
    or is not finite."""
    mantissa, _, exponent = text.strip().lstrip("+-").partition("e")
    if not mantissa[:1].isdigit() and not mantissa.startswith("."):
        return 0.0  # nan, inf
    whole, _, fraction = mantissa.partition(".")
    if len((whole + fraction).lstrip("0")) < SIGNIFICANT_DIGITS:
        return 0.0
    return 10.0 ** (int(exponent or 0) - len(fraction))


def _unit(expected: str, actual: str) -> float:
    """The rounding allowance of two printed floats: the larger unit in their last place (a
    hair more, as 10**-k has no exact binary value)."""
    return max(unit_in_last_place(expected), unit_in_last_place(actual)) * (1 + 1e-9)


def close(expected: str, actual: str, tolerance: Tolerance) -> bool:
    """Whether the printed float ``actual`` is within ``tolerance`` of the printed ``expected``."""
    atol = tolerance.atol + _unit(expected, actual)
    return bool(numpy.isclose(float(actual), float(expected), rtol=tolerance.rtol, atol=atol, equal_nan=True))


def floats(expected: str, actual: str) -> list[tuple[str, str]] | None:
    """The floats of ``expected`` and ``actual`` in pairs, as printed; None when the texts differ
    elsewhere (words, integers, the number of floats)."""
    want = [found[0].strip() for found in FLOAT.finditer(expected)]
    got = [found[0].strip() for found in FLOAT.finditer(actual)]
    if FLOAT.sub("<float>", expected) != FLOAT.sub("<float>", actual) or len(want) != len(got):
        return None
    return list(zip(want, got))


def matches(expected: str, actual: str, tolerance: Tolerance = DEFAULT) -> bool:
    """Whether ``actual`` is ``expected`` up to ``tolerance`` on its floating-point numbers."""
    expected, actual = tolerance.hide(expected), tolerance.hide(actual)
    if expected == actual:
        return True
    pairs = floats(expected, actual)
    return pairs is not None and all(close(x, y, tolerance) for x, y in pairs)


def explain(expected: str, actual: str, tolerance: Tolerance = DEFAULT) -> list[str]:
    """One line per reason why ``actual`` does not match ``expected`` (empty when it does): each
    float out of tolerance with its line number and relative difference, or the first line whose
    text (without its floats) differs."""
    if matches(expected, actual, tolerance):
        return []
    expected, actual = tolerance.hide(expected), tolerance.hide(actual)
    want, got = expected.splitlines(), actual.splitlines()
    reasons = []
    for number, (a, b) in enumerate(zip(want, got), start=1):
        pairs = floats(a, b)
        if pairs is None:
            reasons.append(f"line {number}: the text differs, not only its numbers")
            break
        reasons += [
            f"line {number}: {y} where {x} was expected ({_distance(x, y)})"
            for x, y in pairs
            if not close(x, y, tolerance)
        ]
    if len(want) != len(got) and not reasons:
        reasons.append(f"{len(got)} lines where {len(want)} were expected")
    return reasons or ["the text differs, not only its numbers"]


def required(expected: str, actual: str) -> Tolerance | None:
    """The smallest tolerance under which ``actual`` matches ``expected`` (``rtol`` for non-zero
    expected numbers, ``atol`` for zeros), or None when their text or non-finite values differ."""
    pairs = floats(expected, actual)
    if pairs is None:
        return None
    rtol = atol = 0.0
    for x, y in pairs:
        a, b = float(x), float(y)
        if not (math.isfinite(a) and math.isfinite(b)):
            if not (a == b or (math.isnan(a) and math.isnan(b))):
                return None
            continue
        excess = max(0.0, abs(a - b) - _unit(x, y))
        if a:
            rtol = max(rtol, excess / abs(a))
        else:
            atol = max(atol, excess)
    return Tolerance(rtol=rtol, atol=atol)


def _distance(expected: str, actual: str) -> str:
    x, y = float(expected), float(actual)
    if not (math.isfinite(x) and math.isfinite(y)):
        return "not the same non-finite value"
    difference = abs(x - y)
    relative = f", {difference / abs(x):.1e} of it" if x else ""
    return f"a difference of {difference:.2g}{relative}"
