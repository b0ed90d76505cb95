"""A postal address a task writes as a comma list ("ship to Jonas Berg, Elm Street 4, 21073 Hamburg"): its
parts by the shape of each (name, street, postcode, city, state, country), and the part a form's field takes.

Hand-written: a few patterns over one comma list; address parsers on PyPI (usaddress, libpostal bindings) need
training data or a native library for one country's shapes, more than a task sentence's list needs.
"""

from __future__ import annotations

import re

from agenthost.agent.values import is_description

#: a postal address written as a comma list after "address" / "ship to" / "deliver to"
_ADDRESS = re.compile(r"\b(?:address(?:\s+(?:is|of|as|to))?|ship(?:ping|ped)?(?:\s+it|\s+them)?\s+to|deliver(?:y|ed)?"
                      r"(?:\s+it|\s+them)?\s+to|send (?:it|them) to|lives at|located at)\s*:?\s+"
                      r"(?P<rest>[^.;\n]+?)(?=\.\s|\.$|;|\n|$)", re.I)


def address_parts(text: str) -> dict[str, str]:
    """A postal address the task writes as a comma list (``ship to Jonas Berg, Elm Street 4, 21073 Hamburg``,
    ``the address Ines Duarte, Rua das Flores 12, Porto, Portugal``): name, street, postcode, city, state,
    country, by the shape of each part."""
    m = _ADDRESS.search(text)
    if not m:
        return {}
    parts = [p.strip() for p in m.group("rest").split(",") if p.strip()]
    if len(parts) < 2 or any(":" in p or is_description(p) for p in parts) or \
            re.match(r"(?:a|an|the|any|some|your|my)\b", parts[0], re.I):
        return {}  # a description of an address, or a list of other things
    out: dict[str, str] = {}
    for i, p in enumerate(parts):
        post_city = re.fullmatch(r"(\d{4,6}(?:-\d{3,4})?)\s+([A-Za-zÀ-ÿ][\w .'-]*)", p)
        city_post = re.fullmatch(r"([A-Za-zÀ-ÿ][\w .'-]*?)\s+(\d{4,6}(?:-\d{3,4})?)", p)
        state_zip = re.fullmatch(r"([A-Z]{2})\s+(\d{5}(?:-\d{4})?)", p)
        if state_zip:
            out.setdefault("state", state_zip.group(1))
            out.setdefault("postcode", state_zip.group(2))
        elif post_city and "street" in out:
            out.setdefault("postcode", post_city.group(1))
            out.setdefault("city", post_city.group(2).strip())
        elif city_post and "street" in out and not re.search(r"\d", city_post.group(1)):
            out.setdefault("city", city_post.group(1).strip())
            out.setdefault("postcode", city_post.group(2))
        elif re.fullmatch(r"\d{4,6}(?:-\d{3,4})?", p):
            out.setdefault("postcode", p)
        elif re.search(r"\d", p) and re.search(r"[A-Za-z]{2}", p) and "street" not in out:
            out["street"] = p
        elif not re.search(r"\d", p):
            if i == 0 and "street" not in out and len(p.split()) >= 2:
                out["name"] = p
            elif "street" in out and "city" not in out:
                out["city"] = p
            elif "city" in out:
                out.setdefault("country", p)
    return out if "street" in out else {}

def address_value(text: str, label: str) -> str | None:
    """The part of the address ``text`` (a task) writes a field called ``label`` takes (None when it is no address field
    or the task writes no address)."""
    low = label.lower()
    key = ("postcode" if re.search(r"\b(zip|post(?:al)?\s*code|postcode)\b", low) else
           "street" if re.search(r"\b(street|address(?: line)?(?: 1)?)\b", low) and "mail" not in low else
           "city" if re.search(r"\b(city|town)\b", low) else
           "state" if re.search(r"\b(state|province)\b", low) else
           "country" if re.search(r"\bcountry\b", low) else
           "name" if re.search(r"\b(full name|recipient|name)\b", low) and not re.search(r"\b(user|company|first|"
                                                                                      r"last|sur)", low) else "")
    if not key:
        return None
    return address_parts(text).get(key)
