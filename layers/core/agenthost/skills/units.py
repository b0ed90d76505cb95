"""Unit conversion: length, mass, time, volume, area, speed, data and temperature, with exact factors.

Input: a question that converts a stated amount, in the usual phrasings::

    How many metres are in 4.5 kilometres?      How many kilograms are 7250 grams?
    What is 25 °C in °F?                        Convert 3 miles to km      12 ft = ? inches
    How many seconds are in a day?              5 km/h in m/s

Output: :class:`~agenthost.skills.Solution` with ``skill="units"``, ``answer`` the converted number (exact:
an integer when whole, the exact decimal when it ends within 6 places (more for small values), else rounded
to 4 places or 4 significant digits, with the rounding to 2 places fewer as an alternative) and ``detail``
the conversion; ``None`` when the question converts nothing or the two units measure different things
(metres into kilograms). Every factor is the exact definition (an inch is 0.0254 m, a pound 0.45359237 kg, a
US gallon 3.785411784 l); arithmetic is on fractions, so 5 °C is 41 °F, never 40.999999999999936. Ambiguous
names take the common reading and say so in ``detail``: a plain "gallon" or "pint" is the US one, "kilobyte"
1,000 bytes (KiB is 1,024), "ton" the metric tonne.

Why by hand and not pint: importing pint and building its registry took 0.9-1.7 s and 1.5-3.0 s here (a
loaded 2-core machine), all of it on a cold start of a function that may never convert anything, for a
4.5 MB dependency; its float arithmetic gives 40.999999999999936 °F for 5 °C. The units a web task asks
about are a short table of exact definitions.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from agenthost.skills import Context, Solution, Tool
from agenthost.skills.arithmetic import format_number

F = Fraction
#: unit -> (dimension, size in the dimension's base unit); spellings in _NAMES
UNITS: dict[str, tuple[str, Fraction]] = {
    "mm": ("length", F(1, 1000)), "cm": ("length", F(1, 100)), "dm": ("length", F(1, 10)), "m": ("length", F(1)),
    "km": ("length", F(1000)), "in": ("length", F("0.0254")), "ft": ("length", F("0.3048")),
    "yd": ("length", F("0.9144")), "mi": ("length", F("1609.344")), "nmi": ("length", F(1852)),
    "mg": ("mass", F(1, 10**6)), "g": ("mass", F(1, 1000)), "kg": ("mass", F(1)), "t": ("mass", F(1000)),
    "oz": ("mass", F("0.028349523125")), "lb": ("mass", F("0.45359237")), "st": ("mass", F("6.35029318")),
    "ms": ("time", F(1, 1000)), "s": ("time", F(1)), "min": ("time", F(60)), "h": ("time", F(3600)),
    "day": ("time", F(86400)), "week": ("time", F(604800)),
    "ml": ("volume", F(1, 1000)), "cl": ("volume", F(1, 100)), "dl": ("volume", F(1, 10)), "l": ("volume", F(1)),
    "m3": ("volume", F(1000)), "gal": ("volume", F("3.785411784")), "impgal": ("volume", F("4.54609")),
    "pt": ("volume", F("0.473176473")), "floz": ("volume", F("0.0295735295625")),
    "mm2": ("area", F(1, 10**6)), "cm2": ("area", F(1, 10**4)), "m2": ("area", F(1)), "ha": ("area", F(10**4)),
    "km2": ("area", F(10**6)), "acre": ("area", F("4046.8564224")), "ft2": ("area", F("0.09290304")),
    "m/s": ("speed", F(1)), "km/h": ("speed", F(1000, 3600)), "mph": ("speed", F("1609.344") / 3600),
    "kn": ("speed", F(1852, 3600)),
    "bit": ("data", F(1, 8)), "B": ("data", F(1)), "kB": ("data", F(10**3)), "MB": ("data", F(10**6)),
    "GB": ("data", F(10**9)), "TB": ("data", F(10**12)), "KiB": ("data", F(2**10)), "MiB": ("data", F(2**20)),
    "GiB": ("data", F(2**30)),
    "C": ("temperature", F(1)), "F": ("temperature", F(5, 9)), "K": ("temperature", F(1)),
}
#: what a unit is called in questions (lower case; plurals made below), by unit
_NAMES: dict[str, tuple[str, ...]] = {
    "mm": ("mm", "millimetre", "millimeter"), "cm": ("cm", "centimetre", "centimeter"),
    "dm": ("decimetre", "decimeter"), "m": ("m", "metre", "meter"), "km": ("km", "kilometre", "kilometer"),
    "in": ("inch", "inches"), "ft": ("ft", "foot", "feet"), "yd": ("yd", "yard"), "mi": ("mile",),
    "nmi": ("nautical mile",), "mg": ("mg", "milligram", "milligramme"), "g": ("g", "gram", "gramme"),
    "kg": ("kg", "kilogram", "kilogramme", "kilo"), "t": ("tonne", "metric ton", "ton"), "oz": ("oz", "ounce"),
    "lb": ("lb", "lbs", "pound"), "st": ("stone",), "ms": ("ms", "millisecond"), "s": ("s", "sec", "second"),
    "min": ("min", "minute"), "h": ("h", "hr", "hour"), "day": ("day",), "week": ("week",),
    "ml": ("ml", "millilitre", "milliliter"), "cl": ("cl", "centilitre", "centiliter"),
    "dl": ("dl", "decilitre", "deciliter"), "l": ("l", "litre", "liter"),
    "m3": ("m³", "m3", "cubic metre", "cubic meter"), "gal": ("gallon", "us gallon", "gal"),
    "impgal": ("imperial gallon", "uk gallon"), "pt": ("pint", "us pint"), "floz": ("fl oz", "fluid ounce"),
    "mm2": ("mm²", "mm2", "square millimetre", "square millimeter"),
    "cm2": ("cm²", "cm2", "square centimetre", "square centimeter"),
    "m2": ("m²", "m2", "square metre", "square meter"), "ha": ("ha", "hectare"),
    "km2": ("km²", "km2", "square kilometre", "square kilometer"), "acre": ("acre",),
    "ft2": ("ft²", "sq ft", "square foot", "square feet"), "m/s": ("m/s", "metres per second", "meters per second"),
    "km/h": ("km/h", "kph", "kmh", "kilometres per hour", "kilometers per hour"),
    "mph": ("mph", "miles per hour"), "kn": ("knot", "kn"), "bit": ("bit",), "B": ("byte",),
    "kB": ("kb", "kilobyte"), "MB": ("mb", "megabyte"), "GB": ("gb", "gigabyte"), "TB": ("tb", "terabyte"),
    "KiB": ("kib", "kibibyte"), "MiB": ("mib", "mebibyte"), "GiB": ("gib", "gibibyte"),
    "C": ("°c", "° c", "ºc", "degrees celsius", "degree celsius", "celsius", "degrees centigrade", "centigrade"),
    "F": ("°f", "° f", "ºf", "degrees fahrenheit", "degree fahrenheit", "fahrenheit"),
    "K": ("kelvin", "kelvins", "degrees kelvin"),
}
_AMBIGUOUS = {"gal": "US gallon", "pt": "US pint", "kB": "1 kB = 1,000 bytes", "MB": "1 MB = 10^6 bytes",
              "GB": "1 GB = 10^9 bytes", "TB": "1 TB = 10^12 bytes", "t": "metric tonne"}
#: abbreviations that are never made plural ("ms" is milliseconds, not metres)
_NO_PLURAL = frozenset({"m", "s", "g", "h", "l", "mm", "cm", "km", "ml", "cl", "dl", "mg", "kg", "ms", "ft", "yd",
                        "oz", "lb", "lbs", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "ha", "kn", "mph", "kph",
                        "kmh", "hr", "min", "sec", "gal"})


def _spellings() -> dict[str, str]:
    out: dict[str, str] = {}
    for unit, names in _NAMES.items():
        for name in names:
            out[name] = unit
            if name not in _NO_PLURAL and name[-1].isalpha() and name[-1] != "s" and not name.startswith(("°", "º")):
                out.setdefault(name + ("es" if name.endswith("inch") else "s"), unit)
    out.update({"hrs": "h", "mins": "min", "secs": "s", "kgs": "kg", "gals": "gal"})
    return out


SPELLINGS = _spellings()
_UNIT = "(?:" + "|".join(re.escape(n) for n in sorted(SPELLINGS, key=len, reverse=True)) + ")"
_NUM = r"(?:[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?|an?|one)"
_END = r"(?![\w²³])"
#: "how many <to> are in <n> <from>"
_HOW_MANY = re.compile(rf"\bhow\s+many\s+(?P<to>{_UNIT}){_END}[^?\d]{{0,40}}?(?<![\w-])(?P<n>{_NUM})\s*"
                       rf"(?P<from>{_UNIT}){_END}", re.I)
#: "<n> <from> in/to/into/= <to>"
_INTO = re.compile(rf"(?<![\w.-])(?P<n>{_NUM})\s*(?P<from>{_UNIT}){_END}\s*(?:(?:is|are)\s+)?"
                   rf"(?:in|to|into|as|=\s*\?*|equals?\s+how\s+many|(?:is|are)\s+how\s+many)\s+(?:\?\s*)?"
                   rf"(?P<to>{_UNIT}){_END}", re.I)


def unit_of(name: str) -> str | None:
    """The unit a spelling names (``"kilometres"`` -> ``"km"``), or None."""
    text = " ".join(name.strip().split())
    return SPELLINGS.get(text.lower()) or (text if text in UNITS else None)


def _number(raw: str) -> Fraction:
    low = raw.lower()
    if low in ("a", "an", "one"):
        return F(1)
    return F(raw.replace(",", "").replace("−", "-"))


def convert(value: Fraction | int | str, source: str, target: str) -> Fraction:
    """``value`` in unit ``source`` expressed in ``target`` (units or spellings). Raises ValueError for an
    unknown unit or two units of different dimensions."""
    a, b = unit_of(source), unit_of(target)
    if a is None or b is None:
        raise ValueError(f"unknown unit: {source if a is None else target!r}")
    (dim_a, size_a), (dim_b, size_b) = UNITS[a], UNITS[b]
    if dim_a != dim_b:
        raise ValueError(f"{a} is a {dim_a}, {b} a {dim_b}: no conversion")
    v = value if isinstance(value, Fraction) else _number(str(value))
    if dim_a != "temperature":
        return v * size_a / size_b
    kelvin = {"C": v + F("273.15"), "F": (v - 32) * F(5, 9) + F("273.15"), "K": v}[a]
    return {"C": kelvin - F("273.15"), "F": (kelvin - F("273.15")) * F(9, 5) + 32, "K": kelvin}[b]


def _places(value: Fraction) -> int:
    """Decimal places that keep at least 4 significant digits (4 for values of 1 and more)."""
    if value == 0:
        return 0
    small, v = 0, abs(value)
    while v < 1:
        v *= 10
        small += 1
    return max(4, small + 3)


def _shown(value: Fraction) -> tuple[str, list[str]]:
    """The answer (exact when it ends within 6 places or its places, else rounded to 4 significant digits or 4
    places) and the other rounding worth trying (2 places fewer)."""
    places = _places(value)
    exact = format_number(value, max(6, places))
    if Fraction(exact) == value:
        return exact, []
    return format_number(value, places), [format_number(value, places - 2)]


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` converts an amount between two units of one kind, else None."""
    for pattern in (_HOW_MANY, _INTO):
        m = pattern.search(question)
        if m is None:
            continue
        try:
            value = convert(_number(m.group("n")), m.group("from"), m.group("to"))
        except (ValueError, ZeroDivisionError):
            continue
        a, b = unit_of(m.group("from")), unit_of(m.group("to"))
        answer, others = _shown(value)
        notes = [_AMBIGUOUS[u] for u in (a, b) if u in _AMBIGUOUS]
        detail = f"{m.group('n')} {a} = {answer} {b}" + (f" ({'; '.join(notes)})" if notes else "")
        return Solution("units", answer, detail, alternatives=others)
    return None


def _tool_call(args: dict[str, Any]) -> str:
    try:
        value = convert(F(str(args.get("value"))), str(args.get("from", "")), str(args.get("to", "")))
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        return f"cannot convert: {exc}"
    return _shown(value)[0]


def tools() -> list[Tool]:
    return [Tool(
        "convert_units", "Convert an amount between units of length, mass, time, volume, area, speed, data or "
        "temperature (exact definitions; e.g. value 4.5, from 'km', to 'm').",
        {"type": "object", "properties": {"value": {"type": "number"}, "from": {"type": "string"},
                                          "to": {"type": "string"}}, "required": ["value", "from", "to"]},
        _tool_call)]
