"""Numbers as the server writes them for people: d3-format's specifiers, read in Python.

The pages format in the browser with static/js/lib/format.js; this is the same reading of
d3-format's documentation (its U.S. English locale, "−" as the minus sign) for the server's own
texts and for the tests that check what a page shows.  JavaScript's toFixed, toExponential and
toPrecision round a tie away from zero on the double's exact value; Decimal with ROUND_HALF_UP does
the same, where Python's own ``format`` would round it to even.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

MINUS = "\u2212"
_SI = ["y", "z", "a", "f", "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y"]
_SPEC = re.compile(r"^(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-zA-Z%])?$")


def _digits(x: float, digits: int) -> tuple[str, int]:
    """A non-negative ``x``'s first ``digits`` significant digits (rounded) and its exponent."""
    if x == 0:
        return "0" * digits, 0
    exact = Decimal(x)
    exponent = exact.adjusted()
    scaled = exact.scaleb(-exponent).quantize(Decimal(1).scaleb(1 - digits), ROUND_HALF_UP)
    if scaled >= 10:
        exponent += 1
        scaled = exact.scaleb(-exponent).quantize(Decimal(1).scaleb(1 - digits), ROUND_HALF_UP)
    return format(scaled, "f").replace(".", ""), exponent


def to_fixed(x: float, places: int) -> str:
    """JavaScript's ``x.toFixed(places)`` for a non-negative ``x`` below 10²¹."""
    return format(Decimal(x).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP), "f")


def to_exponential(x: float, places: int) -> str:
    """JavaScript's ``x.toExponential(places)`` for a non-negative finite ``x``."""
    digits, exponent = _digits(x, places + 1)
    mantissa = digits[0] + (f".{digits[1:]}" if places else "")
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def to_precision(x: float, precision: int) -> str:
    """JavaScript's ``x.toPrecision(precision)`` for a non-negative finite ``x``."""
    digits, exponent = _digits(x, precision)
    if exponent < -6 or exponent >= precision:
        return to_exponential(x, precision - 1)
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    return digits[: exponent + 1] + (f".{digits[exponent + 1:]}" if exponent + 1 < precision else "")


def _rounded(x: float, precision: int) -> str:
    digits, exponent = _digits(x, precision)
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if len(digits) > exponent + 1:
        return f"{digits[: exponent + 1]}.{digits[exponent + 1:]}"
    return digits + "0" * (exponent + 1 - len(digits))


def _with_prefix(x: float, precision: int) -> tuple[str, str]:
    digits, exponent = _digits(x, precision)
    power = max(-8, min(8, math.floor(exponent / 3)))
    point = exponent - power * 3 + 1
    if point == len(digits):
        text = digits
    elif point > len(digits):
        text = digits + "0" * (point - len(digits))
    elif point > 0:
        text = f"{digits[:point]}.{digits[point:]}"
    else:
        text = "0." + "0" * -point + _digits(x, max(1, precision + point - 1))[0]
    return text, _SI[8 + power]


def _integer(x: float) -> int:
    return int(Decimal(x).to_integral_value(ROUND_HALF_UP))


_TYPES = {
    "%": lambda x, p: to_fixed(x * 100, p),
    "b": lambda x, p: format(_integer(x), "b"),
    "d": lambda x, p: str(_integer(x)),
    "e": to_exponential,
    "f": to_fixed,
    "g": to_precision,
    "o": lambda x, p: format(_integer(x), "o"),
    "p": lambda x, p: _rounded(x * 100, p),
    "r": _rounded,
    "s": lambda x, p: _with_prefix(x, p)[0],
    "X": lambda x, p: format(_integer(x), "X"),
    "x": lambda x, p: format(_integer(x), "x"),
}


def _trim(text: str) -> str:
    match = re.fullmatch(r"(\d*)\.(\d*?)0*(\D.*)?", text)
    if not match:
        return text
    whole, fraction, rest = match.groups()
    return whole + (f".{fraction}" if fraction else "") + (rest or "")


def _group(digits: str, width: float) -> str:
    parts, end, length = [], len(digits), 0
    while end > 0:
        size = min(3, end)
        if length + size + 1 > width:
            size = max(1, int(width) - length)
        parts.append(digits[end - size : end])
        length += size + 1
        end -= size
        if length > width:
            break
    return ",".join(reversed(parts))


def d3_format(value: float, specifier: str) -> str:
    """``value`` as ``d3.format(specifier)(value)`` writes it (types c and n aside: c, n and none
    as d3-format reads them too); a specifier d3-format refuses raises ValueError."""
    match = _SPEC.fullmatch(specifier)
    if not match:
        raise ValueError(f"invalid format: {specifier!r}")
    fill, align, sign, symbol, zero, width, comma, precision, trim, kind = match.groups()
    fill = " " if fill is None else fill
    align = align or ">"
    sign = sign or "-"
    width = None if width is None else int(width)
    digits = None if precision is None else int(precision[1:])
    kind = kind or ""
    if kind == "n":
        comma, kind = ",", "g"
    elif kind not in _TYPES:
        digits = 12 if digits is None else digits
        trim, kind = "~", "g"
    if zero or (fill == "0" and align == "="):
        zero, fill, align = "0", "0", "="
    prefix = "$" if symbol == "$" else f"0{kind.lower()}" if symbol == "#" and kind in "boxX" else ""
    suffix = "%" if kind in "%p" else ""
    if digits is None:
        digits = 6
    elif kind in "gprs":
        digits = max(1, min(21, digits))
    else:
        digits = max(0, min(20, digits))

    value = float(value)
    negative = value < 0 or math.copysign(1, value) < 0
    head, tail = prefix, suffix
    if math.isnan(value):
        body = "NaN"
    elif math.isinf(value):
        body = "Infinity"
    else:
        body = _TYPES[kind](abs(value), digits)
        if kind == "s":
            tail = _with_prefix(abs(value), digits)[1] + tail
    if trim:
        body = _trim(body)
    if negative and body != "NaN" and not math.isinf(value) and float(re.sub(r"[^0-9.e+-]", "", body) or 0) == 0 and sign != "+":
        negative = False
    head = (("(" if sign == "(" else MINUS) if negative else ("" if sign in "-(" else sign)) + head
    if negative and sign == "(":
        tail += ")"
    if kind in "defgprs%":
        cut = re.search(r"[^0-9]", body)
        if cut:
            tail, body = body[cut.start() :] + tail, body[: cut.start()]
    if comma and not zero:
        body = _group(body, math.inf)
    length = len(head) + len(body) + len(tail)
    padding = fill * (width - length) if width is not None and length < width else ""
    if comma and zero:
        body = _group(padding + body, width - len(tail) - len(head) if padding and width is not None else math.inf)
        padding = ""
    if align == "<":
        return head + body + tail + padding
    if align == "=":
        return head + padding + body + tail
    if align == "^":
        half = len(padding) // 2
        return padding[:half] + head + body + tail + padding[half:]
    return padding + head + body + tail
