"""Expected outputs compared as a reader reads them: text exactly, floating-point numbers as numbers.

The last digits of a printed float depend on the code XLA generates for the CPU that runs it (its
vector width, AVX-512 or AVX2, FP16 instructions), so an expected output written on one machine is
compared on another with a tolerance, and everything else exactly:

- The text with every floating-point number taken out must be identical: words, dtypes, shapes,
  booleans, jaxprs, error classes and messages, and every integer (``200``, ``f32[8,4]``,
  ``2**15``: a number without a decimal point or an exponent is text, never approximate).
  A float printed where an integer was (or the reverse) is a difference too.
- Each floating-point number (``2.9973``, ``1.``, ``6.1e-05``, ``nan``, ``-inf``) must be close to
  the expected one: ``|actual - expected| <= atol + rtol * |expected| + unit``, where ``unit`` is
  one unit in the last digit both print (``0.0001`` for ``2.9973``) when the number shows at least
  three significant digits. A value within the tolerance can sit on either side of a rounding
  boundary (``2.99735``), so its printed digits can differ by one in the last place; below three
  significant digits one unit is too coarse to allow (``0.1`` against ``0.2``). ``nan`` matches
  ``nan`` and an infinity the same infinity.

The tolerance is :data:`DEFAULT` unless the snippet declares its own in its header (see
:mod:`jaxbook.snippet`): ``# tolerance: rtol=2e-3 -- float16 training: ...``.

The tokens are those of pytest-doctestplus's ``FLOAT_CMP`` output checker (its number grammar, and
its rule that the text around the numbers is compared exactly); this module widens the characters
that may end a number to those program output uses (``2.0:``, ``12.5%``, a sentence's final
``.``) and decides closeness with :func:`numpy.isclose` as above.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy
from pytest_doctestplus.output_checker import FLOAT_CMP, OutputChecker


@dataclass(frozen=True)
class Tolerance:
    """How far a printed float may move between machines: ``rtol`` relative, ``atol`` absolute."""

    rtol: float
    atol: float = 0.0

    def __str__(self) -> str:
        parts = [f"rtol={self.rtol:g}"] + ([f"atol={self.atol:g}"] if self.atol else [])
        return ", ".join(parts)


#: The tolerance of every snippet that declares none: float32 arithmetic compiled for another CPU
#: (another vector width, AVX2 instead of AVX-512, 128-bit vectors as on Arm) moved single results
#: by at most 2.2e-7 of their value, dot products, reductions and transcendental functions alike
#: (``python tools/portability.py --probe``; docs/contributing.md gives the figures). Results of
#: float16 or bfloat16 arithmetic, and of long loops that amplify a rounding (100 steps of gradient
#: descent moved a small weight by 2e-5 of itself), move more: such a snippet declares its own.
DEFAULT = Tolerance(rtol=1e-6)

#: Where a unit in the last printed digit is allowed: the number shows at least this many
#: significant digits (see the module docstring).
SIGNIFICANT_DIGITS = 3

_EXP = r"(?:e[+-]?\d+)"
_FLOAT = rf"[ \t]*([+-]?\d+\.\d*{_EXP}?|[+-]?\.\d+{_EXP}?|[+-]?\d+{_EXP}|nan|[+-]?inf)"
# doctestplus's separators, plus those of program output: ':' ';' '%' '|' quotes, and a final '.'.
_FRONT = r"\s|[*+\-,<=(\[:;|'\"/]"
_BACK = _FRONT + r"|[>j)\]}%]|\.(?=\s|$)"


class _Checker(OutputChecker):
    """pytest-doctestplus's FLOAT_CMP checker with this module's separators and closeness."""

    def __init__(self, tolerance: Tolerance):
        super().__init__()
        number = re.compile(rf"(^{_FLOAT}(?={_BACK}|$)|(?<={_FRONT}){_FLOAT}(?={_BACK}|$))", re.M)
        self.num_got_rgx = self.num_want_rgx = number
        self.tolerance = tolerance

    def equal_floats(self, a: str, b: str) -> bool:  # a: this run's, b: the expected
        return close(b, a, self.tolerance)


def unit_in_last_place(text: str) -> float:
    """One unit in the last digit of the printed float ``text`` (``2.9973`` -> 1e-4; ``1.2e-38``
    -> 1e-39), or 0 when the number shows fewer than :data:`SIGNIFICANT_DIGITS` significant digits
    or is not finite."""
    mantissa, _, exponent = text.strip().lstrip("+-").partition("e")
    if not mantissa[:1].isdigit() and not mantissa.startswith("."):
        return 0.0  # nan, inf
    whole, _, fraction = mantissa.partition(".")
    significant = (whole + fraction).lstrip("0")
    if len(significant) < SIGNIFICANT_DIGITS:
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


def matches(expected: str, actual: str, tolerance: Tolerance = DEFAULT) -> bool:
    """Whether ``actual`` is ``expected`` up to ``tolerance`` on its floating-point numbers."""
    return expected == actual or _Checker(tolerance).check_output(expected, actual, FLOAT_CMP)


def numbers(text: str) -> list[str]:
    """The floating-point numbers of ``text``, as printed, in order."""
    return [found.strip() for found in _Checker(DEFAULT).find_numbers(text)]


def skeleton(text: str) -> str:
    """``text`` with each floating-point number (and the spaces before it) replaced by ``<float>``."""
    return _Checker(DEFAULT).num_got_rgx.sub("<float>", text)


def explain(expected: str, actual: str, tolerance: Tolerance = DEFAULT) -> list[str]:
    """One line per reason why ``actual`` does not match ``expected`` (empty when it does): each
    float out of tolerance with its line number and relative difference, or the first line whose
    text (without its floats) differs."""
    if matches(expected, actual, tolerance):
        return []
    want, got = expected.splitlines(), actual.splitlines()
    reasons = []
    for number, (a, b) in enumerate(zip(want, got), start=1):
        if skeleton(a) != skeleton(b):
            reasons.append(f"line {number}: the text differs, not only its numbers")
            break
        for x, y in zip(numbers(a), numbers(b)):
            if not close(x, y, tolerance):
                reasons.append(f"line {number}: {y} where {x} was expected ({_distance(x, y)})")
    if len(want) != len(got) and not reasons:
        reasons.append(f"{len(got)} lines where {len(want)} were expected")
    return reasons or ["the text differs, not only its numbers"]


def required(expected: str, actual: str) -> Tolerance | None:
    """The smallest tolerance under which ``actual`` matches ``expected`` (``rtol`` for non-zero
    expected numbers, ``atol`` for zeros), or None when their text or non-finite values differ."""
    if skeleton(expected) != skeleton(actual):
        return None
    rtol = atol = 0.0
    for x, y in zip(numbers(expected), numbers(actual)):
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
