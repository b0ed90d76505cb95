"""Observing a live Playwright page (sync API): ARIA tree, element snapshot, visible text, screenshot
(:func:`observe`), or straight into the page model (:func:`from_playwright`).

The element snapshot has the Proxy Server API ``ElementInfo`` shape (plus ``label``, ``checked``,
``options``, ``inViewport``, ``form`` (the element's form: id, name, aria-label or ``form#<index>``),
``autocomplete``, ``sensitive``, ``at`` (where the element starts in the visible text), ``hint`` (an unlabelled
field's visual label: the short text right before it; an icon's class or image name), ``clickable`` (made
clickable by script: a pointer cursor, an image, or a control drawn as one character, a "+" or "-" whose text
cannot be selected), ``focused`` (where the keyboard is: the focused element, or the item its
``aria-activedescendant`` names), ``haspopup`` (``aria-haspopup``: an item opening a submenu) and, for a
multi-select list, ``multiple`` and ``chosen`` (the options selected now)): at most ``max_elements`` elements,
interactive and in-viewport first, each with a ``data-agent-id`` that stays stable while the page lives. A field
drawn transparent (opacity 0) is listed as the accessibility tree lists it: it still takes clicks, focus and
keys. The visible text is read from the text nodes in page order (whitespace collapsed), so each element's ``at``
points into it.

Values of password fields and payment-card fields (``type=password``, ``autocomplete`` ``cc-*``, names
like card/cvc/cvv/iban/pin) never leave the page: the snapshot shows ``••••••`` when they hold something,
and the same values are masked in the visible text and in the ARIA snapshot.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from agenthost.agent.page import MASK, SENSITIVE, Page
from agenthost.agent.snapshot import from_observation

SNAPSHOT_JS = r"""
([maxElements, maxText]) => {
  const W = window;
  W.__agentSeq = W.__agentSeq || 0;
  const sel = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=combobox],[role=textbox],' +
    '[contenteditable=""],[contenteditable=true],[onclick],[tabindex]:not([tabindex="-1"])';
  const vw = W.innerWidth, vh = W.innerHeight;
  const clip = (s, n) => (s || '').replace(/\s+/g, ' ').trim().slice(0, n);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.opacity || '1') > 0;
  };
  // a field drawn transparent (opacity 0) still takes clicks, focus and keys, and the browser's accessibility
  // tree lists it: a terminal's key catcher, a native control laid over a drawn one
  const transparentField = (el) => {
    if (!el.matches('input,select,textarea,[contenteditable=""],[contenteditable=true]') || el.disabled) return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const labelOf = (el) => {
    const al = el.getAttribute('aria-label'); if (al) return al;
    const lb = el.getAttribute('aria-labelledby');
    if (lb) { const t = lb.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean)
      .map(n => n.innerText).join(' '); if (t.trim()) return t; }
    if (el.labels && el.labels.length) return Array.from(el.labels).map(l => l.innerText).join(' ');
    return '';
  };
  // passwords and payment-card fields: their values never leave the page (masked; "filled" stays visible)
  const SENSITIVE = new RegExp(__SENSITIVE__, 'i');
  const sensitive = (el, label) => {
    if (el.type === 'password') return true;
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    if (ac.startsWith('cc-') || ['current-password', 'new-password', 'one-time-code'].includes(ac)) return true;
    return [label, el.name, el.id, el.placeholder, el.getAttribute('aria-label')].some(s => s && SENSITIVE.test(s));
  };
  const formOf = (el) => {
    const f = el.form || el.closest('form');
    if (!f) return '';
    return f.id || f.getAttribute('name') || f.getAttribute('aria-label') ||
      ('form#' + Array.prototype.indexOf.call(document.forms, f));
  };
  // what a person reads as an unlabelled field's label: the short text right before it in its block (a table
  // row's header cell included); never a field's own text or another control's
  const shortLabel = (t) => t && t.length <= 40 && !/[.!?]$/.test(t) ? t.replace(/:$/, '').trim() : '';
  const CONTROL = 'button,a[href],input,select,textarea,[role=button],[role=link]';
  const hintOf = (el) => {
    // a field alone in its box with nothing before it and a short text after it: that text is its label
    const box = el.parentElement;
    if (box && box !== document.body && box.querySelectorAll('input,select,textarea').length === 1) {
      let before = '';
      for (let s = el.previousSibling; s && !before; s = s.previousSibling)
        before = clip(s.nodeType === 3 ? s.textContent : (s.nodeType === 1 ? s.innerText : ''), 80);
      if (!before) {
        for (let s = el.nextSibling; s; s = s.nextSibling) {
          if (s.nodeType === 1 && (s.matches(CONTROL) || s.querySelector(CONTROL))) break;  // a button's text
          const t = clip(s.nodeType === 3 ? s.textContent : (s.nodeType === 1 ? s.innerText : ''), 80);
          if (t) { if (shortLabel(t)) return shortLabel(t); break; }
        }
      }
    }
    let n = el;
    for (let hops = 0; hops < 3 && n && n !== document.body; hops++) {
      for (let s = n.previousSibling; s; s = s.previousSibling) {
        if (s.nodeType === 1 && (s.matches('input,select,textarea,button') ||
                                 s.querySelector('input,select,textarea,button'))) return '';  // another field's box
        const t = clip(s.nodeType === 3 ? s.textContent : (s.nodeType === 1 ? s.innerText : ''), 80);
        if (t) return shortLabel(t);
      }
      n = n.parentElement;
      if (!n || n.matches('form,table,ul,ol,body,[role=dialog]')) break;
    }
    return '';
  };
  // an icon with no text: what its class names or image file say it is (trash, star, reply...)
  const GENERIC = new RegExp('^(icon|icons|btn|button|fa|fas|far|glyphicon|material|ui|img|image|svg|small|large|' +
    'left|right|pull|float|active|clicked|selected|hover|action|actions|item)$');
  const iconOf = (el) => {
    const words = [];
    const add = (s) => (s || '').split(/[^A-Za-z]+/).forEach(w => {
      const lw = w.toLowerCase(); if (lw.length > 2 && !GENERIC.test(lw) && !words.includes(lw)) words.push(lw); });
    for (const c of el.classList) add(c);
    for (const prop of ['content', 'background-image']) {
      const m = /url\(["']?([^"')]*)/.exec(getComputedStyle(el)[prop] || '');
      // a data URL names no file
      if (m && !/^data:/i.test(m[1])) add(m[1].split('/').pop().replace(/\.[a-z0-9]+$/i, ''));
    }
    const img = el.querySelector('img[src]');
    if (img) add(img.getAttribute('src').split('/').pop().replace(/\.[a-z0-9]+$/i, ''));
    return words.slice(0, 3).join(' ');
  };
  // elements a page makes clickable by script show a pointer cursor: the outermost one of a region, and any
  // text-less one inside it (an icon)
  const pointer = (el) => getComputedStyle(el).cursor === 'pointer';
  // an icon shows an image: its own (an img, an svg, a CSS content or background image) or a child's
  const pictured = (el) => {
    if (['IMG', 'SVG', 'svg', 'CANVAS'].includes(el.tagName)) return true;
    const cs = getComputedStyle(el);
    return /^url\(/.test(cs.content || '') || /url\(/.test(cs.backgroundImage || '') || !!el.querySelector('img,svg');
  };
  // the items of a list shown as a dropdown (an absolutely positioned list under a menu button)
  const dropdownItem = (el) => {
    if (el.tagName !== 'LI' || clip(el.innerText, 41).length > 40) return false;
    const list = el.parentElement;
    return !!list && ['UL', 'OL'].includes(list.tagName) &&
      ['absolute', 'fixed'].includes(getComputedStyle(list).position);
  };
  const clickable = (el) => {
    if (['HTML', 'BODY'].includes(el.tagName)) return false;
    if (dropdownItem(el)) return true;
    // an anchor without an address that shows text is a script's control (a calendar's Prev and Next)
    if (el.tagName === 'A' && !el.hasAttribute('href') && clip(el.innerText, 1)) return true;
    // a control drawn as one character (a quantity's "+" and "-"): a leaf whose text cannot be selected
    if (!el.children.length && /^[-+\u2212\u2013\uff0b\uff0d]$/.test(clip(el.textContent, 2))) {
      const cs = getComputedStyle(el);
      if ((cs.userSelect || cs.webkitUserSelect) === 'none') return true;
    }
    if (!pointer(el)) return el.tagName === 'IMG' || /^url\(/.test(getComputedStyle(el).content || '');
    const parent = el.parentElement;
    return !parent || !pointer(parent) || (!clip(el.innerText, 1) && pictured(el));
  };
  // the visible text, one pass over the text nodes in page order, and where each element starts in it
  const shownCache = new Map();
  const shown = (p) => {
    let v = shownCache.get(p);
    if (v === undefined) {
      v = !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(p.tagName) &&
        (p.checkVisibility ? p.checkVisibility({checkVisibilityCSS: true}) : visible(p));
      shownCache.set(p, v);
    }
    return v;
  };
  // text nodes of one block run together as written ("@kenda," stays one word); blocks are set apart by a space
  const blockCache = new Map();
  const blockOf = (el) => {
    let b = blockCache.get(el);
    if (b === undefined) {
      const d = getComputedStyle(el).display || '';
      b = (d.startsWith('inline') && el.parentElement && el !== document.body) ? blockOf(el.parentElement) : el;
      blockCache.set(el, b);
    }
    return b;
  };
  const starts = new Map();
  let text = '';
  if (document.body) {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    let lastBlock = null, lastSpace = true;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 1) { starts.set(n, text.length); continue; }
      if (text.length > maxText || !n.parentElement || !shown(n.parentElement)) continue;
      const raw = n.textContent;
      const t = raw.replace(/\s+/g, ' ').trim();
      if (!t) { if (raw) lastSpace = true; continue; }
      const block = blockOf(n.parentElement);
      if (text && (block !== lastBlock || lastSpace || /^\s/.test(raw))) text += ' ';
      text += t;
      lastBlock = block;
      lastSpace = /\s$/.test(raw);
    }
  }
  const hidden = [];
  const out = [];
  let focusedEl = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  const activeId = focusedEl && focusedEl.getAttribute('aria-activedescendant');
  if (activeId && document.getElementById(activeId)) focusedEl = document.getElementById(activeId);
  for (const el of document.querySelectorAll('body *')) {
    const matched = el.matches(sel);
    if (!matched && !clickable(el)) continue;
    if (el.type === 'hidden' || !(visible(el) || transparentField(el))) continue;
    if (!el.hasAttribute('data-agent-id')) el.setAttribute('data-agent-id', 'agent-' + (++W.__agentSeq));
    const r = el.getBoundingClientRect();
    const tag = el.tagName.toLowerCase();
    const info = { id: el.getAttribute('data-agent-id'), tag };
    const role = el.getAttribute('role'); if (role) info.role = role;
    const text = clip(tag === 'select' ? '' : (el.innerText || el.value && tag === 'input' &&
      ['submit','button','reset'].includes(el.type) && el.value || el.getAttribute('title') ||
      el.getAttribute('alt') || ''), 200);
    if (text) info.text = text;
    const aria = el.getAttribute('aria-label'); if (aria) info.ariaLabel = aria;
    const label = clip(labelOf(el), 200); if (label && label !== aria) info.label = label;
    if (!matched) info.clickable = true;
    const field = ['input', 'select', 'textarea'].includes(tag);
    const hint = label || aria ? '' : (field ? hintOf(el) : (text ? '' : iconOf(el)));
    if (hint) info.hint = hint;
    if (el.placeholder) info.placeholder = el.placeholder;
    if (el.type && (tag === 'input' || tag === 'button')) info.type = el.type;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      if (!['checkbox', 'radio', 'submit', 'button', 'reset'].includes(el.type)) {
        const raw = tag === 'select' ? (el.selectedOptions[0] ? el.selectedOptions[0].text : '') : el.value;
        if (tag !== 'select' && sensitive(el, label)) {
          info.sensitive = true;
          info.value = raw ? '\u2022\u2022\u2022\u2022\u2022\u2022' : '';
          if (raw) hidden.push(raw);
        } else {
          // a text area's text as it is (to copy it exactly), a field's value collapsed
          info.value = tag === 'textarea' ? (raw || '').slice(0, 1000) : clip(raw, 100);
        }
      }
      const ac = el.getAttribute('autocomplete'); if (ac) info.autocomplete = ac;
    }
    const form = formOf(el); if (form) info.form = form;
    if (el.type === 'checkbox' || el.type === 'radio') info.checked = !!el.checked;
    if (tag === 'select') info.options = Array.from(el.options).slice(0, 50).map(o => clip(o.text, 100));
    if (tag === 'a' && el.href) info.href = el.href;
    if (el.disabled) info.disabled = true;
    const expanded = el.getAttribute('aria-expanded');
    if (expanded === 'true' || expanded === 'false') info.expanded = expanded === 'true';
    if (el.getAttribute('aria-selected') === 'true') info.selected = true;
    // where the keyboard is: the focused element, or the item a focused widget points to as its active one
    if (el === focusedEl) info.focused = true;
    const popup = el.getAttribute('aria-haspopup'); if (popup && popup !== 'false') info.haspopup = true;
    if (tag === 'select' && el.multiple) {
      info.multiple = true;
      info.chosen = Array.from(el.selectedOptions).slice(0, 50).map(o => clip(o.text, 100));
    }
    if (el.name) info.name = el.name;
    info.bbox = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
    info.inViewport = r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
    if (starts.has(el) && starts.get(el) <= maxText) info.at = starts.get(el);
    out.push(info);
  }
  const prio = (e) => (e.inViewport ? 0 : 2) + (e.disabled ? 1 : 0);
  const ranked = out.map((e, i) => [prio(e), i, e]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(x => x[2]);
  text = text.slice(0, maxText);
  // the page's visible tables as rows of cell texts (what a flat text loses)
  const tables = [];
  for (const t of document.querySelectorAll('table')) {
    if (tables.length >= 10 || !visible(t)) continue;
    const rows = [];
    for (const tr of t.rows) {
      if (rows.length >= 50) break;
      const cells = Array.from(tr.cells).slice(0, 12).map(c => clip(c.innerText, 200));
      if (cells.some(c => c)) rows.push(cells);
    }
    if (rows.length) tables.push(rows);
  }
  return { url: location.href, title: document.title, elements: ranked.slice(0, maxElements), text, hidden, tables };
}
""".replace("__SENSITIVE__", json.dumps(SENSITIVE.pattern))


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with every occurrence of the page's password/card values replaced by the mask (Playwright's
    ARIA snapshot shows a password field's value)."""
    for value in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(value, MASK)
    return text


def observe(pw_page: Any, *, aria: bool = True, elements: bool = True, text: bool = True,
            screenshot: bool = False, max_elements: int = 100, max_text: int = 6000,
            timeout_ms: int = 3000) -> dict[str, Any]:
    """Observe ``pw_page``; returns ``{url, title, aria?, elements?, text?, screenshot?}``."""
    obs: dict[str, Any] = {"url": pw_page.url}
    # the snapshot always runs: it also finds password/card values, which are masked in every output
    snap = pw_page.evaluate(SNAPSHOT_JS, [max_elements, max_text])
    hidden = [h for h in snap.get("hidden") or [] if isinstance(h, str) and h]
    obs["title"] = snap.get("title", "")
    if elements:
        obs["elements"] = snap.get("elements", [])
    if text:
        obs["text"] = redact(snap.get("text", ""), hidden)
    if aria:
        obs["aria"] = redact(pw_page.locator("body").aria_snapshot(timeout=timeout_ms), hidden)
    if screenshot:
        png = pw_page.screenshot(type="jpeg", quality=60, timeout=timeout_ms)
        obs["screenshot"] = base64.b64encode(png).decode()
    return obs


def from_playwright(pw_page: Any, *, max_elements: int = 100, max_text: int = 6000) -> Page:
    """Observe a live (sync) Playwright page into a :class:`~agenthost.agent.page.Page`: ARIA snapshot plus
    element snapshot."""
    return from_observation(observe(pw_page, aria=True, elements=True, text=True,
                                    max_elements=max_elements, max_text=max_text))
