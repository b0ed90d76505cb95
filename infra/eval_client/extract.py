"""Deterministic, schema-guided extraction from a live page (no LLM).

:func:`collect` gathers what a page states plainly: title, meta tags, headings, lists, tables, links,
labelled values (``<dl>``, two-column tables, ``Label: value`` lines) and paragraphs. :func:`fill` maps
that onto a JSON schema by property names (``title``, ``summary``, ``price``, ``tableOfContents``,
``links``, a table whose columns match an array's item properties, ...). The output has exactly the
schema's properties, each of its type, and ``null`` where the page does not state it (never an unrelated
paragraph or list, never ``false`` for an unknown boolean). Without a schema the collected page data itself
is the output.
"""

from __future__ import annotations

import re
from typing import Any

COLLECT_JS = r"""
() => {
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const visible = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const meta = {};
  for (const m of document.querySelectorAll('meta[name],meta[property]')) {
    meta[m.getAttribute('name') || m.getAttribute('property')] = clean(m.getAttribute('content'));
  }
  const headings = [...document.querySelectorAll('h1,h2,h3,h4')].filter(visible)
    .map(h => ({level: +h.tagName[1], text: clean(h.innerText)})).filter(h => h.text);
  const near = el => {
    let p = el;
    for (let i = 0; i < 6 && p; i++) {
      let s = p.previousElementSibling;
      while (s) {
        if (/^H[1-6]$/.test(s.tagName) || s.tagName === 'CAPTION') return clean(s.innerText);
        const h = s.querySelector && s.querySelector('h1,h2,h3,h4,h5,h6');
        if (h) return clean(h.innerText);
        s = s.previousElementSibling;
      }
      p = p.parentElement;
    }
    return '';
  };
  const lists = [...document.querySelectorAll('ul,ol')].filter(visible).filter(l => !l.closest('nav') || true)
    .map(l => ({heading: near(l), id: l.id || '', cls: l.className || '',
                items: [...l.children].filter(c => c.tagName === 'LI').map(li => clean(li.innerText)).filter(Boolean)}))
    .filter(l => l.items.length);
  const tables = [...document.querySelectorAll('table')].filter(visible).map(t => {
    const rows = [...t.querySelectorAll('tr')].map(r => [...r.children].map(c => clean(c.innerText)));
    let headers = [...t.querySelectorAll('thead th')].map(th => clean(th.innerText));
    let body = rows;
    const first = t.querySelector('tr');
    if (!headers.length && rows.length && first && [...first.children].every(c => c.tagName === 'TH')) {
      headers = rows[0]; body = rows.slice(1);
    } else if (headers.length) { body = rows.slice(1); }
    const cap = t.querySelector('caption');
    return {heading: cap ? clean(cap.innerText) : near(t), headers, rows: body.filter(r => r.length)};
  });
  const pairs = [];
  for (const dl of document.querySelectorAll('dl')) {
    for (const dt of dl.querySelectorAll('dt')) {
      const dd = dt.nextElementSibling;
      if (dd && dd.tagName === 'DD') pairs.push([clean(dt.innerText), clean(dd.innerText)]);
    }
  }
  for (const t of tables) if (!t.headers.length) for (const r of t.rows) if (r.length === 2) pairs.push([r[0], r[1]]);
  for (const el of document.querySelectorAll('[itemprop]')) {
    pairs.push([el.getAttribute('itemprop'), clean(el.innerText || el.getAttribute('content'))]);
  }
  for (const el of document.querySelectorAll('p,li,span,div')) {
    if (el.children.length > 3) continue;
    const m = clean(el.innerText).match(/^([A-Za-z][A-Za-z0-9 ()/-]{0,40}):\s+(.{1,200})$/);
    if (m) pairs.push([m[1], m[2]]);
  }
  const links = [...document.querySelectorAll('a[href]')].filter(visible)
    .map(a => ({text: clean(a.innerText), url: a.href})).filter(l => l.text);
  const paragraphs = [...document.querySelectorAll('p')].filter(visible).map(p => clean(p.innerText))
    .filter(t => t.length > 20);
  const messages = [...document.querySelectorAll('[role=status],[role=alert],output,p,.message,.alert,.notice')]
    .filter(visible).map(e => clean(e.innerText)).filter(t => t && t.length <= 300 && !paragraphs.includes(t));
  return {url: location.href, title: clean(document.title), meta, headings, lists, tables, pairs, links, paragraphs,
          messages};
}
"""

_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def _sim(a: str, b: str) -> float:
    wa, wb = set(words(a)), set(words(b))
    if not wa or not wb:
        return 0.0
    singular = {w.rstrip("s") for w in wa}, {w.rstrip("s") for w in wb}
    return len(singular[0] & singular[1]) / max(len(singular[0]), 1)


def collect(page: Any) -> dict[str, Any]:
    data: dict[str, Any] = page.evaluate(COLLECT_JS)
    return data


def _h1(data: dict[str, Any]) -> str:
    for h in data.get("headings", []):
        if h["level"] == 1:
            return str(h["text"])
    return str(data.get("title", ""))


def _pair(data: dict[str, Any], name: str) -> str | None:
    best, score = None, 0.0
    for label, value in data.get("pairs", []):
        s = _sim(name, label)
        if s > score:
            best, score = value, s
    return best if score >= 0.5 else None


def _number(text: str | None) -> float | None:
    if not text:
        return None
    m = _NUM.search(text)
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def _string(data: dict[str, Any], name: str) -> str | None:
    w = set(words(name))
    if w & {"title", "name", "headline", "heading"} and not w & {"page"}:
        pair = _pair(data, name) if w - {"title", "name"} else None
        return pair or _h1(data)
    if w & {"url", "link", "href"}:
        return str(data.get("url", ""))
    pair = _pair(data, name)
    if pair is not None:
        return pair
    if w & {"summary", "description", "intro", "overview", "abstract"}:
        meta = data.get("meta", {})
        paras = data.get("paragraphs", [])
        return str(meta.get("description") or meta.get("og:description") or (paras[0] if paras else ""))
    if w & {"message", "status", "confirmation", "notice", "alert", "feedback", "outcome"}:
        shown = data.get("messages") or []
        if shown:
            return str(shown[-1])  # status texts and short notes (a confirmation the page printed)
    key = {x for x in w if len(x) > 3}
    for p in data.get("paragraphs", []):
        if key and all(x in p.lower() for x in key):
            return str(p)
    return None  # not on the page: null, never an unrelated text


def _best_list(data: dict[str, Any], name: str) -> list[str] | None:
    best, score = None, 0.0
    for lst in data.get("lists", []):
        s = max(_sim(name, lst.get("heading", "")), _sim(name, lst.get("id", "")), _sim(name, lst.get("cls", "")))
        if s > score:
            best, score = lst["items"], s
    return best if score >= 0.5 else None


def _table_objects(data: dict[str, Any], name: str, props: dict[str, Any]) -> list[dict[str, Any]] | None:
    best, score = None, 0.0
    for t in data.get("tables", []):
        if not t.get("headers"):
            continue
        col_score = sum(max((_sim(p, h) for h in t["headers"]), default=0) for p in props) / max(len(props), 1)
        s = col_score + 0.5 * _sim(name, t.get("heading", ""))
        if s > score:
            best, score = t, s
    if best is None or score < 0.5:
        return None
    mapping = {}
    for p in props:
        idx = max(range(len(best["headers"])), key=lambda i: _sim(p, best["headers"][i]))
        if _sim(p, best["headers"][idx]) > 0:
            mapping[p] = idx
    out = []
    for row in best["rows"]:
        item: dict[str, Any] = {}
        for p, i in mapping.items():
            cell = row[i] if i < len(row) else ""
            item[p] = _coerce(props[p], cell)
        out.append(item)
    return out


_TRUE = ("yes", "true", "in stock", "available", "1", "y", "on", "enabled")
_FALSE = ("no", "false", "out of stock", "unavailable", "sold out", "0", "n", "off", "disabled")


def _coerce(schema: Any, text: str | None) -> Any:
    """``text`` as the schema's type; None where it is missing or is not of that type (never a guess)."""
    if text is None:
        return None
    t = schema.get("type") if isinstance(schema, dict) else None
    if t in ("number", "integer"):
        n = _number(text)
        return (int(n) if t == "integer" else n) if n is not None else None
    if t == "boolean":
        low = text.strip().lower()
        return True if low in _TRUE else False if low in _FALSE else None
    enum = schema.get("enum") if isinstance(schema, dict) else None
    if isinstance(enum, list) and enum:
        return next((e for e in enum if str(e).lower() == text.strip().lower()), None)
    return text


def fill(schema: Any, data: dict[str, Any], name: str = "") -> Any:
    """Map collected page data onto ``schema`` by property names."""
    if not isinstance(schema, dict):
        return None
    t = schema.get("type")
    if t == "object" or (t is None and "properties" in schema):
        props = schema.get("properties") or {}
        if not props:
            return {"title": _h1(data), "url": data.get("url", "")}
        return {k: fill(v, data, k) for k, v in props.items()}
    if t == "array":
        raw_items = schema.get("items")
        items: dict[str, Any] = raw_items if isinstance(raw_items, dict) else {"type": "string"}
        w = set(words(name))
        if items.get("type") == "object" or "properties" in items:
            props = items.get("properties") or {}
            rows = _table_objects(data, name, props)
            if rows is not None:
                return rows
            if set(props) & {"url", "href", "link"}:
                text_key = next((p for p in props if p not in ("url", "href", "link")), None)
                url_key = next(p for p in props if p in ("url", "href", "link"))
                return [{**({text_key: lk["text"]} if text_key else {}), url_key: lk["url"]}
                        for lk in data.get("links", [])]
            found = _best_list(data, name) or []
            first = next(iter(props), "text")
            return [{first: x} for x in found]
        if w & {"toc", "contents", "sections", "headings", "outline"} or {"table", "of", "contents"} <= w:
            return [h["text"] for h in data.get("headings", []) if h["level"] in (2, 3)]
        if w & {"links", "urls"}:
            return [lk["url"] if "url" in w else lk["text"] for lk in data.get("links", [])]
        lst = _best_list(data, name)
        if lst is None and len(data.get("lists") or []) == 1:
            lst = data["lists"][0]["items"]  # the page's only list
        if lst is None:
            return None  # no list on the page matches: null, never an unrelated one
        return [_coerce(items, x) for x in lst]
    if t in ("number", "integer", "boolean"):
        return _coerce(schema, _pair(data, name))
    return _coerce(schema, _string(data, name))
