"""A fingerprint of a JSON value that the kernel and a view compute alike.

The end-of-run ``check`` compares the kernel's shared state with a view's copy without sending
either. Both sides write the value as canonical JSON the way JavaScript's ``JSON.stringify``
writes it (no spaces, object keys sorted by UTF-16 code units, numbers as JavaScript prints a
double) and take the CRC-32 of its UTF-8 bytes; js/src/mirror/fingerprint.ts is the other half.
"""

from __future__ import annotations

import json
import math
import zlib
from decimal import Decimal
from typing import Any

from jupyter_client.jsonutil import json_default

from ..vocabulary._unicode import has_surrogate, replace_lone

_SAFE_INTEGER = 2**53
"""Integers beyond this are rounded to a double when a view parses them."""


def fingerprint(value: Any) -> int:
    """The CRC-32 of ``value``'s canonical JSON (an unsigned 32-bit integer)."""
    text = canonical_json(value)
    if has_surrogate(text):
        text = replace_lone(text)  # as a browser's TextEncoder writes a lone surrogate
    return zlib.crc32(text.encode("utf-8"))


def canonical_json(value: Any) -> str:
    """``value`` as JavaScript would write it after a round trip through JSON, keys sorted."""
    parts: list[str] = []
    _write(value, parts.append)
    return "".join(parts)


def _write(value: Any, out: Any) -> None:
    if value is None or value is True or value is False:
        out("null" if value is None else "true" if value else "false")
    elif isinstance(value, str):
        out(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out(str(value) if -_SAFE_INTEGER < value < _SAFE_INTEGER else js_number(float(value)))
    elif isinstance(value, float):
        out(js_number(value))
    elif isinstance(value, dict):
        items = sorted(
            ((_key(key), item) for key, item in value.items()), key=lambda pair: pair[0].encode("utf-16-be", "surrogatepass")
        )
        out("{")
        for index, (key, item) in enumerate(items):
            if index:
                out(",")
            out(json.dumps(key, ensure_ascii=False))
            out(":")
            _write(item, out)
        out("}")
    elif isinstance(value, (list, tuple)):
        out("[")
        for index, item in enumerate(value):
            if index:
                out(",")
            _write(item, out)
        out("]")
    else:  # what the kernel's message packer sends for anything else (dates, numpy numbers, ...)
        try:
            converted = json_default(value)
        except TypeError:
            converted = str(value)
        _write(converted if type(converted) is not type(value) else str(value), out)


def _key(key: Any) -> str:
    """A dict key as JSON writes it (Python's encoder turns int, float, bool and None keys into text)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return "null" if key is None else "true" if key else "false"
    return json.dumps(key)


def js_number(number: float) -> str:
    """``number`` as JavaScript's ``Number.prototype.toString`` writes it (ECMA-262 Number::toString)."""
    if math.isnan(number) or math.isinf(number):
        return "null"  # what JSON.stringify writes for them
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    _, digits_tuple, exponent = Decimal(repr(abs(number))).as_tuple()
    assert isinstance(exponent, int)  # a finite number's: NaN and infinity returned above
    digits = "".join(map(str, digits_tuple)).rstrip("0")
    exponent += len("".join(map(str, digits_tuple))) - len(digits)
    k = len(digits)
    n = exponent + k  # the value is 0.digits × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    power = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"
