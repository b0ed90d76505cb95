"""Observing a live Playwright page (sync API): ARIA tree, element snapshot, visible text, screenshot
(:func:`observe`), or straight into the page model (:func:`from_playwright`).

The element snapshot has the Proxy Server API ``ElementInfo`` shape (plus ``label``, ``checked``,
``options``, ``inViewport``, ``form`` (the element's form: id, name, aria-label or ``form#<index>``),
``autocomplete`` and ``sensitive``): at most ``max_elements`` elements, interactive and in-viewport first,
each with a ``data-agent-id`` that stays stable while the page lives.

Values of password fields and payment-card fields (``type=password``, ``autocomplete`` ``cc-*``, names
like card/cvc/cvv/iban/pin) never leave the page: the snapshot shows ``••••••`` when they hold something,
and the same values are masked in the visible text and in the ARIA snapshot.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from agenthost.agent.page import MASK, SENSITIVE, Page, from_observation

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
  const hidden = [];
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.type === 'hidden' || !visible(el)) continue;
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
          info.value = clip(raw, 100);
        }
      }
      const ac = el.getAttribute('autocomplete'); if (ac) info.autocomplete = ac;
    }
    const form = formOf(el); if (form) info.form = form;
    if (el.type === 'checkbox' || el.type === 'radio') info.checked = !!el.checked;
    if (tag === 'select') info.options = Array.from(el.options).slice(0, 50).map(o => clip(o.text, 100));
    if (tag === 'a' && el.href) info.href = el.href;
    if (el.disabled) info.disabled = true;
    if (el.name) info.name = el.name;
    info.bbox = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
    info.inViewport = r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
    out.push(info);
  }
  const prio = (e) => (e.inViewport ? 0 : 2) + (e.disabled ? 1 : 0);
  const ranked = out.map((e, i) => [prio(e), i, e]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(x => x[2]);
  const text = clip(document.body ? document.body.innerText : '', maxText);
  return { url: location.href, title: document.title, elements: ranked.slice(0, maxElements), text, hidden };
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
