"""Guards every protocol applies to every action, whichever policy proposed it.

* :func:`resolve` finds an action's target the way the AI Olympics runner does (case-insensitive
  substring): click = button by name, then link by name, then text; type = textbox by name, then
  label, then placeholder; select = combobox by name/label, option by label. Proxy snapshots also
  resolve by element id.
* :func:`check_actions` resolves, repairs (nearest element of a compatible role) or drops each action,
  type-checks and caps arguments, strips script-like text, and caps the batch.
* :class:`LoopGuard` counts repeats of (tool, target, url, page fingerprint) across turns in the
  caller's memory: it nudges first (the action is withheld and the policy told), and asks to stop
  only when repeats persist.
* :func:`classify_risk` labels payment, deletion, sending/publishing, credential entry and account/security
  changes from the resolved element, its own form and the URL (for careful mode).
* The web guard: :class:`WebGuard` puts any policy (ours, the LLM's, a user's agent) behind
  :func:`guard_decision`, the rules every action follows whoever proposed it: off-site navigation needs a
  reason in the task (:func:`off_site`, sites by the Public Suffix List); a click that deletes something needs
  the task to ask for it (or careful mode's question); a secret the task states goes only into a field of a
  secret kind on a site the task names. ``make_policy()`` returns its policy behind it, so every protocol's
  adapter gets each decision checked once.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin

from agenthost import urls
from agenthost.agent.actions import TARGETED, TOOLS, Action, Decision
from agenthost.agent.address import address
from agenthost.agent.page import MASK, TEXT_ROLES, Element, Page, is_sensitive
from agenthost.agent.task import TaskFacts, read_task
from agenthost.agent.wording import has_phrase, words

logger = logging.getLogger("agenthost.agent")

MAX_TEXT = 2000
MAX_URL = 2048

_SCRIPTY = re.compile(
    r"(<\s*script\b[^>]*>.*?(<\s*/\s*script\s*>|$)|<\s*/?\s*script\b[^>]*>|\b(?:eval|new\s+Function)\s*\((?:[^()]|\([^()]*\))*\)?|\bon[a-z]+\s*=|process\.env"
    r"|javascript\s*:|document\.cookie|[A-Za-z0-9+/]{120,}={0,2})",
    re.IGNORECASE | re.DOTALL,
)


def is_scripty(text: str) -> bool:
    return bool(_SCRIPTY.search(text or ""))


def strip_script(text: str) -> str:
    """Remove script-like fragments (the AI Olympics runner blocks actions containing them)."""
    prev = None
    while prev != text:
        prev = text
        text = _SCRIPTY.sub("", text)
    return text.strip() if prev != text else text


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", (s or "").strip().lower())


def _tokens(s: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", (s or "").lower()) if len(t) > 1 or t.isdigit()}


def _contains(hay: str, needle: str) -> bool:
    return bool(needle) and needle in _norm(hay)


def resolve(page: Page, tool: str, target: str, option: str | None = None) -> Element | None:
    """The page element ``target`` names for ``tool``, matched like the AI Olympics runner (or by id)."""
    if not target:
        return None
    by_id = page.by_ref(target.strip())
    if by_id is not None and page.source != "aria":
        return by_id
    t = _norm(target)
    els = [e for e in page.elements if not e.disabled or tool == "click"]
    if tool == "click":
        for roles in (("button",), ("link",)):
            found = _first(els, roles, t)
            if found:
                return found
        lists = {e.ref for e in els if e.role == "listbox"}
        for e in els:  # text: any element whose name or text contains it (a field's value is no text)
            if e.role == "option" and e.parent not in lists:
                continue  # a <select>'s option is chosen with select, not clicked; a list's option is clicked
            if _contains(e.name, t) or (e.role not in ("textbox", "combobox", "searchbox") and _contains(e.value, t)):
                return e
        return None
    if tool == "type":
        for attr in ("name", "placeholder"):
            for e in els:
                takes_text = e.role in TEXT_ROLES or (e.role == "combobox" and not e.options)
                if takes_text and _contains(getattr(e, attr), t):
                    return e  # (an editable combobox takes text: the runner finds it by its label)
        return None
    if tool == "select":
        for e in els:
            if e.role in ("combobox", "listbox") and _contains(e.name, t):
                if option is None or not e.options or _option(e, option):
                    return e
        return None
    if tool == "check":
        for e in els:
            if e.role in ("checkbox", "radio", "switch", "menuitemcheckbox") and _contains(e.name, t):
                return e
        return None
    return None


def _first(els: Iterable[Element], roles: tuple[str, ...], t: str) -> Element | None:
    exact = None
    for e in els:
        if e.role in roles and _contains(e.name, t):
            if _norm(e.name) == t:
                return e
            exact = exact or e
    return exact


def _option(el: Element, option: str) -> str | None:
    o = _norm(option)
    for opt in el.options:
        if _norm(opt) == o:
            return opt
    for opt in el.options:
        if o and o in _norm(opt):
            return opt
    return None


_COMPATIBLE = {
    "click": ("button", "link", "checkbox", "radio", "tab", "menuitem", "switch", "option"),
    "type": tuple(TEXT_ROLES),
    "select": ("combobox", "listbox"),
    "check": ("checkbox", "radio", "switch", "menuitemcheckbox"),
}


def repair(page: Page, tool: str, target: str) -> Element | None:
    """The element of a compatible role whose name best overlaps ``target`` (None when nothing is close)."""
    want = _tokens(target)
    if not want:
        return None
    best, best_score = None, 0.0
    for e in page.elements:
        if e.role not in _COMPATIBLE.get(tool, ()) or e.disabled:
            continue
        have = _tokens(e.name) | _tokens(e.placeholder)
        if not have:
            continue
        score = len(want & have) / len(want | have)
        if score > best_score:
            best, best_score = e, score
    return best if best_score >= 0.5 else None


@dataclass
class Checked:
    """What :func:`check_actions` kept and why others were dropped or changed."""

    actions: list[Action] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)


def _str_arg(args: dict[str, Any], key: str, limit: int) -> str | None:
    v = args.get(key)
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise ValueError(f"{key} must be a string")
    return v[:limit]


def check_actions(actions: Iterable[Action], page: Page, *, tools: Iterable[str] | None = None,
                  max_actions: int = 10) -> Checked:
    """Resolve, repair, type-check, sanitise and cap ``actions`` against ``page``."""
    allowed = set(tools) if tools is not None else set(TOOLS)
    out = Checked()
    for a in actions:
        if len(out.actions) >= max_actions:
            out.dropped.append(f"{a.tool}: more than {max_actions} actions")
            continue
        # check/select map onto click/type for protocols without them, wait onto a fresh look (Action.to_proxy)
        if a.tool not in allowed and not (a.tool == "check" and "click" in allowed) \
                and not (a.tool == "select" and "type" in allowed) and not (a.tool == "wait" and "extract" in allowed):
            out.dropped.append(f"{a.tool}: not an available tool")
            continue
        try:
            args = _clean_args(a.tool, dict(a.args or {}), out)
        except (ValueError, TypeError) as exc:
            out.dropped.append(f"{a.tool}: {exc}")
            continue
        if a.tool in TARGETED:
            checked = _on_page(a, args, page, out)
            if checked is not None:
                out.actions.append(checked)
        else:
            out.actions.append(replace(a, args=args))
    return out


def _clean_args(tool: str, args: dict[str, Any], out: Checked) -> dict[str, Any]:
    """``args`` of a ``tool`` action type-checked and sanitised (repairs noted in ``out``); ValueError or
    TypeError for arguments that cannot be used."""
    if tool == "navigate":
        url = _str_arg(args, "url", MAX_URL) or ""
        if not re.match(r"^https?://", url, re.I):
            raise ValueError("url must be http(s)")
        args["url"] = url
    if tool == "type":
        text = _str_arg(args, "text", MAX_TEXT)
        if text is None:
            raise ValueError("text is required")
        clean = strip_script(text)
        if clean != text:
            if not clean:
                raise ValueError("text was script-like")
            out.repaired.append("type: script-like text removed")
        args["text"] = clean
        if "clear" in args:
            args["clear"] = bool(args["clear"])
    if tool == "select":
        args["option"] = _str_arg(args, "option", 300) or ""
    if tool == "scroll":
        d = str(args.get("direction", "down")).lower()
        args["direction"] = d if d in ("up", "down", "left", "right") else "down"
        amt = args.get("amount", 500)
        args["amount"] = max(1, min(int(amt), 5000)) if isinstance(amt, (int, float, str)) and \
            str(amt).lstrip("-").isdigit() else 500
    if tool == "press":
        key = _str_arg(args, "key", 40) or ""
        if not re.fullmatch(r"[A-Za-z0-9+ ]{1,40}", key):
            raise ValueError("key is not a key name")
    for k in ("result", "question", "thinking"):
        if isinstance(args.get(k), str):
            args[k] = strip_script(args[k])[:MAX_TEXT]
    return args


def _on_page(a: Action, args: dict[str, Any], page: Page, out: Checked) -> Action | None:
    """A targeted action resolved (or repaired) to an element of ``page``, its option matched; None (the
    reason in ``out.dropped``) when it names no usable element."""
    target = _str_arg(args, "element", 300) if isinstance(args.get("element"), (str, int)) else \
        _str_arg(args, "id", 300)
    el = a.resolved if a.resolved is not None and any(e is a.resolved for e in page.elements) else None
    if el is None and not target:
        out.dropped.append(f"{a.tool}: no element named")
        return None
    if el is None:
        el = resolve(page, a.tool, str(target), args.get("option"))
    if el is None:
        el = repair(page, a.tool, str(target))
        if el is None:
            out.dropped.append(f"{a.tool}: no element {target!r} on the page")
            return None
        out.repaired.append(f"{a.tool}: {target!r} -> {el.name!r}")
    if target and is_scripty(str(target)):
        out.dropped.append(f"{a.tool}: script-like element name")
        return None
    if page.source == "aria":
        # a runner that finds elements by name: the name that reaches this one, if any does
        name = address(page, {"check": "click"}.get(a.tool, a.tool), el, prefer=str(target or ""))
        if name is None and a.tool == "click" and el.role in TEXT_ROLES:
            focus = address(page, "type", el)
            if focus is not None:  # a field no click name reaches: typing nothing into it focuses it
                return replace(a, tool="type", args={"element": focus, "text": "", "clear": False}, resolved=el,
                               why=a.why or "focus the field")
        if name is None:
            out.dropped.append(f"{a.tool}: {el.label or el.role!r} cannot be reached by name on this page")
            return None
        args["element"] = name
    else:
        args["element"] = el.ref
    args.pop("id", None)
    if a.tool == "select" and el.options:
        opt = _option(el, args.get("option", ""))
        if opt is None:
            out.dropped.append(f"select: no option {args.get('option')!r} in {el.name!r}")
            return None
        args["option"] = opt
    return replace(a, args=args, resolved=el)


# --------------------------------------------------------------------------- loops

class LoopGuard:
    """Counts repeats of (tool, target, url, page fingerprint) in ``memory['loops']``.

    ``nudge_at`` repeats withhold the action (the policy is told and picks something else);
    ``stop_at`` repeats on the same page ask the caller to stop.
    """

    def __init__(self, memory: dict[str, Any], *, nudge_at: int = 2, stop_at: int = 4, streak_at: int = 6):
        self.counts: dict[str, int] = memory.setdefault("loops", {})
        self.nudge_at = nudge_at
        self.stop_at = stop_at
        #: the same batch sent this many turns in a row on one URL asks to stop, whatever changed on the page
        #: meanwhile (a clock, a counter, a toggle that opens and closes)
        self.streak_at = streak_at
        self.memory = memory

    @staticmethod
    def batch_key(actions: Iterable[Action], page: Page) -> str:
        parts = []
        for a in actions:
            target = a.target or a.args.get("url", "") or a.args.get("direction", "")
            extra = "" if a.tool == "type" and a.resolved is not None and a.resolved.is_secret() else \
                str(a.args.get("text") or a.args.get("option") or "")[:40]
            parts.append(f"{a.tool}|{str(target).lower()}|{extra}|{a.progress}")
        return hashlib.sha1((page.url.split("#")[0] + "\n" + "\n".join(parts)).encode(),
                            usedforsecurity=False).hexdigest()[:12]

    def streak(self, actions: list[Action], page: Page) -> int:
        """How many turns in a row this very batch was sent on this URL."""
        last = self.memory.get("streak")
        if isinstance(last, list) and len(last) == 2 and last[0] == self.batch_key(actions, page):
            return int(last[1])
        return 0

    @staticmethod
    def key(action: Action, page: Page) -> str:
        target = action.target or action.args.get("url", "") or action.args.get("direction", "")
        extra = action.args.get("text") or action.args.get("option") or ""
        if extra and action.tool == "type" and (
                (action.resolved is not None and action.resolved.is_secret()) or is_sensitive(str(target))):
            extra = MASK  # the memory holding these keys is stored: no passwords or card numbers in it
        return (f"{action.tool}|{str(target).lower()}|{str(extra)[:40]}|{page.url.split('#')[0]}|{page.fingerprint}"
                + (f"|{action.progress}" if action.progress else ""))

    def count(self, action: Action, page: Page) -> int:
        return self.counts.get(self.key(action, page), 0)

    def is_looping(self, action: Action, page: Page) -> bool:
        return self.count(action, page) >= self.nudge_at

    def record(self, actions: Iterable[Action], page: Page) -> None:
        actions = list(actions)
        if actions:
            self.memory["streak"] = [self.batch_key(actions, page), self.streak(actions, page) + 1]
        for a in actions:
            k = self.key(a, page)
            self.counts[k] = self.counts.get(k, 0) + 1
        if len(self.counts) > 200:  # keep memory small
            for k in list(self.counts)[:-200]:
                del self.counts[k]

    def filter(self, actions: list[Action], page: Page) -> tuple[list[Action], list[str], bool]:
        """(kept actions, nudges, stop?)."""
        kept, nudges, stop = [], [], False
        n = self.streak(actions, page) if actions else 0
        if n >= self.streak_at:
            return [], [f"the same actions were sent {n} turns in a row without the task ending"], True
        for a in actions:
            c = self.count(a, page)
            if c >= self.stop_at:
                stop = True
                nudges.append(f"{a.tool} {a.target or a.args} repeated {c} times on an unchanged page")
            elif c >= self.nudge_at:
                nudges.append(f"{a.tool} {a.target or a.args} already tried {c} times on this unchanged page")
            else:
                kept.append(a)
        return kept, nudges, stop


# --------------------------------------------------------------------------- risk

#: categories :func:`classify_risk` returns
RISKS = ("payment", "deletion", "send", "credential", "account")

#: committing to pay: a purchase, an order, a transfer (not the way to the checkout)
_PAY = re.compile(r"\b(pay|payment|purchase|buy now|buy it now|place (?:my |the |your )?order|order now|"
                  r"complete (?:my |your )?(?:order|purchase|payment|checkout)|confirm (?:and pay|order|purchase|"
                  r"payment)|submit (?:order|payment)|donate|add funds|top up|transfer (?:money|funds)|"
                  r"send money|place bet|bet now|book now|rent now)\b", re.I)
#: the way to a checkout, a cart or the next checkout step: navigation, no money moves
_CHECKOUT_NAV = re.compile(r"\b(proceed to checkout|go to checkout|checkout|check out|view (?:cart|basket|bag)|"
                           r"continue to (?:payment|shipping|checkout|delivery)|review (?:order|cart))\b", re.I)
_SUBSCRIBE = re.compile(r"\b(subscribe|subscription|upgrade|start (?:free )?trial|go premium|become a member)\b",
                        re.I)
_PRICE = re.compile(r"[$€£¥]\s?\d|\d(?:[.,]\d{2})?\s?(?:USD|EUR|GBP)\b|/\s?(?:mo|month|year|yr)\b", re.I)
_DELETE = re.compile(r"\b(delete|remove|erase|destroy|discard|cancel (?:subscription|account|order|membership)|"
                     r"close (?:my |your )?account|deactivate|unsubscribe|empty trash|wipe)\b", re.I)
#: words a delete control's name carries beside the verb that name the act, not the thing deleted ("trash
#: delete", "bin", "remove icon")
_DELETE_ICON = frozenset({"trash", "bin", "garbage", "rubbish", "wastebasket", "icon", "x", "button"})
#: removing a line from a cart or basket: undoable, not a deletion worth asking about
_CART_LINE = re.compile(r"\b(from (?:the |my |your )?(?:cart|basket|bag|order)|item|quantity|qty)\b", re.I)
_CART_PAGE = re.compile(r"\b(cart|basket|shopping bag|trolley)\b", re.I)
_SEND = re.compile(r"\b(send|post|publish|tweet|share|reply|comment|submit review|email|broadcast|invite|"
                   r"message)\b", re.I)
#: changing how the account is reached or protected
_ACCOUNT = re.compile(
    r"\b((?:change|update|reset|edit|set)\s+(?:your |my |the )?(?:account )?(?:password|passcode|e-?mail(?: address)?|"
    r"username|login|phone(?: number)?|recovery (?:e-?mail|phone|codes?)|security questions?)|"
    r"(?:disable|turn off|remove|deactivate|reset)\s+(?:the |your )?(?:two[- ]factor|2fa|mfa|multi[- ]factor|"
    r"two[- ]step|authenticator|security keys?|passkeys?)|security settings|"
    r"(?:sign|log) out (?:of )?(?:all|every|other) (?:devices|sessions)|revoke (?:all )?(?:sessions|tokens|access)|"
    r"(?:create|generate|regenerate|revoke) (?:an? |new )?api keys?|transfer ownership)\b", re.I)
_TWO_FACTOR = re.compile(r"\b(two[- ]factor|2fa|mfa|multi[- ]factor|two[- ]step|authenticator)\b", re.I)
#: fields of a form that changes account security (a new password, the current one, recovery details)
_ACCOUNT_FIELD = re.compile(r"\b(new password|current password|old password|confirm (?:new )?password|"
                            r"new e-?mail|recovery (?:e-?mail|phone)|security question)\b", re.I)
_CRED_FIELD = re.compile(r"\b(password|passcode|passphrase|pin|otp|one[- ]time|2fa|secret|api key|token|ssn|"
                         r"social security)\b", re.I)
_CARD_FIELD = re.compile(r"\b(card number|credit card|debit card|cvv|cvc|security code|expiry|expiration|iban|"
                         r"account number|routing|name on card)\b|\bcc-", re.I)
#: URLs that act when opened (a payment endpoint), as opposed to pages that show a checkout
_PAY_URL = re.compile(r"/(pay|payment|purchase|order/confirm|orders?/place)(?:[/?#]|$)", re.I)
_CONTAINERS = ("form", "group", "region", "dialog", "alertdialog")


def _form_elements(page: Page, el: Element | None, form_name: str = "") -> list[Element]:
    """The elements of ``el``'s own form: by the snapshot's form identifier when the page has them, else by
    the nearest enclosing form/group/region in the ARIA tree, else the whole page."""
    fid = (el.form if el is not None else "") or form_name
    if fid and any(e.form for e in page.elements):
        same = [e for e in page.elements if e.form == fid]
        if same:
            return same
    if el is not None and el.parent:
        by_ref = {e.ref: e for e in page.elements}
        container = None
        cur = by_ref.get(el.parent)
        while cur is not None:
            if cur.role in _CONTAINERS:
                container = cur
                break
            cur = by_ref.get(cur.parent)
        if container is not None:
            inside: list[Element] = []
            members = {container.ref}
            for e in page.elements:
                if e.parent in members:
                    members.add(e.ref)
                    inside.append(e)
            return inside
    return page.elements


def _has_field(fields: Iterable[Element], pattern: re.Pattern[str]) -> bool:
    return any(e.role in TEXT_ROLES and (pattern.search(e.name) or pattern.search(e.placeholder)
                                         or pattern.search(e.field_name)) for e in fields)


def _card_form(fields: list[Element]) -> bool:
    return _has_field(fields, _CARD_FIELD) or any(e.role in TEXT_ROLES and e.sensitive and
                                                  _CARD_FIELD.search(f"{e.name} {e.field_name}") for e in fields)


def _account_form(fields: list[Element]) -> bool:
    return _has_field(fields, _ACCOUNT_FIELD) or any(
        e.role in ("checkbox", "switch") and _TWO_FACTOR.search(e.name) for e in fields)


def _icon_only(el: Element | None) -> bool:
    return el is not None and el.role == "button" and not re.search(r"[A-Za-z0-9]", el.name or "")


def _cart_line_removal(name: str, page: Page) -> bool:
    return bool(_DELETE.search(name)) and not re.search(r"\b(account|profile|data|history|all)\b", name, re.I) \
        and (bool(_CART_LINE.search(name)) or bool(_CART_PAGE.search(f"{page.url} {page.title}"))
             or (re.fullmatch(r"\s*(remove|delete)\s*", name, re.I) is not None
                 and bool(_CART_PAGE.search(page.text[:3000]))))


def classify_risk(action: Action, page: Page) -> str | None:
    """``payment`` | ``deletion`` | ``send`` | ``credential`` | ``account`` | None, from what the action
    really touches: the resolved element, its own form (the snapshot's form identifier, else the enclosing
    ARIA form/group, else the page) and the URL.

    * payment: committing to pay (place order, pay, buy now, a paid subscription) or submitting a form with
      card fields (any submit button of it, icon-only ones included) - not the way to the checkout, adding
      to or removing from a cart, or a newsletter "Subscribe";
    * deletion: deleting or removing something that is not a cart line ("Delete account" stays here);
    * account: changing the password, e-mail or other sign-in details, turning off two-factor, security
      settings, sessions and API keys (typing into such a form's password fields too);
    * send: sending or publishing; credential: typing a password/PIN/OTP or submitting a sign-in form.
    """
    el = action.resolved
    name = (el.name if el else action.target) or ""
    form = _form_elements(page, el, str(action.args.get("form") or ""))
    if action.tool == "type":
        field_text = name if el is None else f"{name} {el.placeholder} {el.input_type} {el.field_name}"
        if _CARD_FIELD.search(field_text):
            return "payment"
        secret_field = (el is not None and (el.input_type == "password" or el.is_secret())) or \
            bool(_CRED_FIELD.search(field_text))
        if secret_field or _ACCOUNT_FIELD.search(field_text):
            return "account" if _account_form(form) or _ACCOUNT_FIELD.search(field_text) else "credential"
        return None
    if action.tool == "navigate":
        return "payment" if _PAY_URL.search(str(action.args.get("url", ""))) else None
    if action.tool in ("click", "check") and el is not None and el.role in ("checkbox", "switch", "radio"):
        return "account" if _TWO_FACTOR.search(name) or _ACCOUNT.search(name) else None
    commits = action.tool in ("click", "submit") or (action.tool == "press" and
                                                     str(action.args.get("key", "")).lower() == "enter")
    if not commits:
        return None
    if _DELETE.search(name):
        if _cart_line_removal(name, page):
            return None
        return "deletion"
    navigation = bool(_CHECKOUT_NAV.search(name)) and not _PAY.search(_CHECKOUT_NAV.sub(" ", name))
    if _PAY.search(name) and not navigation:
        return "payment"
    if _SUBSCRIBE.search(name) and (_PRICE.search(name) or _card_form(form)):
        return "payment"  # a paid plan; a newsletter "Subscribe" is not a payment
    submits = action.tool != "click" or _submit_like(el) or _icon_only(el)
    if _card_form(form) and submits:
        return "payment"
    if navigation:
        return None
    if action.tool == "click" and el is not None and el.role == "link":
        return "account" if _ACCOUNT.search(name) else None
    if _PAY_URL.search(page.url) and submits:
        return "payment"
    if _ACCOUNT.search(name) or (_account_form(form) and submits):
        return "account"
    if _SEND.search(name):
        return "send"
    if _has_field(form, _CRED_FIELD) and submits:
        return "credential"
    return None


_SUBMIT_WORDS = re.compile(r"\b(submit|continue|confirm|next|ok|done|finish|proceed|go|save|complete|sign in|"
                           r"log ?in|register|sign up|apply|update|change)\b", re.I)


def _submit_like(el: Element | None) -> bool:
    return el is not None and el.role == "button" and bool(_SUBMIT_WORDS.search(el.name) or el.input_type == "submit")


# --------------------------------------------------------------------------- the web guard

#: labels a task states its secrets under (passwords, PINs, card data, one-time codes): the values go only
#: into a field of a secret kind (:meth:`Element.is_secret`) on the task's site
_SECRET_LABELS = (("password", "password"), ("passcode", ""), ("PIN", ""), ("card number", ""), ("CVV", ""),
                  ("CVC", ""), ("security code", ""), ("one-time code", ""))
#: shorter secrets are only matched as a whole typed text (a 3-digit CVV is found in many harmless strings)
MIN_SECRET_IN_TEXT = 4


def off_site(url: str, home: str, facts: TaskFacts) -> bool:
    """Whether ``url`` is on another site than the task's (``home``) and the task gives no reason to go
    there (it names neither the host nor the site's name). Sites by the Public Suffix List."""
    host = urls.host(url)
    if not host or not home or urls.site(host) == urls.site(home):
        return False
    site = urls.site(host)
    name = site.split(".")[0]
    return not (host in facts.low or site in facts.low or (len(name) > 3 and has_phrase(facts.low, name))
                or any(urls.host(u) == host for u in facts.urls))


def home_of(facts: TaskFacts, page: Page, memory: dict[str, Any] | None = None) -> str:
    """The task's site's host: kept in ``memory["home"]`` once known, else the host of the first URL the task
    names, else the page's (the page a task starts on is its site)."""
    known = (memory or {}).get("home")
    if isinstance(known, str) and known:
        return known
    return urls.host(facts.urls[0]) if facts.urls else urls.host(page.url)


def task_secrets(facts: TaskFacts) -> list[str]:
    """The secrets the task states (a password, PIN, card number, security or one-time code), as written."""
    out: list[str] = []
    for label, input_type in _SECRET_LABELS:
        if not has_phrase(facts.low, label.lower()):
            continue  # the task must say it is a secret ("the promo code SPRING5" is no security code)
        value = facts.value_for(label, input_type)
        if value and value in facts.text and value not in out:  # stated, not made up
            out.append(value)
    return out


def _carries(text: str, secret: str) -> bool:
    return text == secret or (len(secret) >= MIN_SECRET_IN_TEXT and secret in text)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


@dataclass
class WebRules:
    """What the web guard checks a turn's actions against: the task, the page, the task's site."""

    facts: TaskFacts
    page: Page
    home: str
    careful: bool = False
    secrets: list[str] = field(default_factory=list)
    #: the sites the task's secrets may go to: those it names (URLs, host names; not e-mail domains), else
    #: its own (the site it started on)
    secret_sites: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, task: str, page: Page, memory: dict[str, Any] | None = None, *, careful: bool = False) -> WebRules:
        facts = read_task(task)
        home = home_of(facts, page, memory)
        sites = {urls.site(h) for h in urls.hosts_in(facts.text)} or ({urls.site(home)} if home else set())
        return cls(facts, page, home, careful, task_secrets(facts), sites)

    def navigation(self, url: str) -> str | None:
        """Why going to ``url`` is refused (None when allowed): another site than the task's and the current
        page's, which the task gives no reason to visit."""
        if urls.same_site(url, self.page.url) or not off_site(url, self.home, self.facts):
            return None
        return f"{urls.host(url) or url[:80]} is another site and the task gives no reason to go there"

    def refusal(self, a: Action) -> str | None:
        """Why ``a`` may not be sent (None when it may)."""
        el = a.resolved
        for secret in self.secrets:
            if not any(_carries(s, secret) for s in _strings(a.args)):
                continue
            if a.tool != "type" or not _carries(str(a.args.get("text", "")), secret):
                return f"{a.tool}: would carry a secret the task states"
            if el is None or not el.is_secret():
                return f"type: a secret the task states goes only into a password or card field, not {_label(el)}"
            if urls.site(urls.host(self.page.url)) not in self.secret_sites:
                return (f"type: a secret the task states goes only to the site the task names, not "
                        f"{urls.host(self.page.url) or 'this page'}")
        if a.tool == "navigate":
            return _prefixed("navigate", self.navigation(str(a.args.get("url", ""))))
        if a.tool == "click" and el is not None and el.role == "link" and el.href:
            return _prefixed("click", self.navigation(urljoin(self.page.url, el.href)))
        if not self.careful and (a.risk or classify_risk(a, self.page)) == "deletion" \
                and not self._asks_to_delete(el.name if el is not None else a.target):
            return f"{a.tool}: {_label(el)} deletes something, and the task does not ask for that"
        return None

    def _asks_to_delete(self, name: str) -> bool:
        """The task asks to delete what ``name`` deletes: it says delete/remove/close... and names the thing."""
        if not (_DELETE.search(self.facts.text) or re.search(r"\b(?:[Tt]rash|[Bb]in)\s+(?:the|that|this|it|my|her|his|"
                                                             r"all)\b", self.facts.text)):
            return False  # "trash that email", "bin the draft": asked as well
        rest = words(_DELETE.sub(" ", name or "")) - _DELETE_ICON
        return not rest or bool(rest & self.facts.words)


def _label(el: Element | None) -> str:
    return repr(el.label or el.role) if el is not None else "an element"


def _prefixed(tool: str, why: str | None) -> str | None:
    return f"{tool}: {why}" if why else None


def guard_decision(decision: Decision, task: str, page: Page, memory: dict[str, Any] | None = None, *,
                   careful: bool = False) -> list[str]:
    """Apply the web guard's rules to ``decision`` in place; returns why actions were refused.

    Whichever policy decided (ours, the LLM's, a user's agent), its actions keep the prefix the rules allow:
    off-site navigation (a navigate, or a click on a link to another site) needs a reason in the task; a
    click that deletes something needs the task to ask for it (careful mode asks the user instead); a
    secret the task states goes only into a field of a secret kind on a site the task names (its own site
    when it names none), and into no other argument. The task's secrets are masked in the decision's
    reasoning and result, and the task's site is kept in ``decision.memory["home"]``."""
    rules = WebRules.of(task, page, memory if memory is not None else decision.memory, careful=careful)
    refused: list[str] = []
    kept: list[Action] = []
    for a in decision.actions:
        why = rules.refusal(a)
        if why is not None:
            refused.append(why)
            break  # the rest of a batch counted on this one
        kept.append(a)
    decision.actions = kept
    for secret in sorted(rules.secrets, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_IN_TEXT:
            decision.thinking = (decision.thinking or "").replace(secret, MASK)
            decision.result = decision.result.replace(secret, MASK) if decision.result else decision.result
    if rules.home:
        decision.memory = dict(decision.memory or {})
        decision.memory.setdefault("home", rules.home)
    return refused


class WebGuard:
    """Any policy behind the web guard: every decision it makes goes through :func:`guard_decision` once;
    when the rules leave it nothing to do, ``fallback`` (our deterministic policy) decides instead, checked
    the same way (``source`` ``<policy>+guard``; logged, and metered as the fallback ``guard``)."""

    def __init__(self, policy: Any, fallback: Any = None):
        self.policy = policy
        self.fallback = fallback

    @property
    def name(self) -> str:
        return str(getattr(self.policy, "name", "policy"))

    def decide(self, task: str, page: Page, history: Any = (), memory: dict[str, Any] | None = None,
               tools: Any = None, deadline: Any = None, **options: Any) -> Decision:
        careful = bool(options.get("careful"))
        d = self.policy.decide(task, page, history, memory, tools, deadline, **options)
        refused = guard_decision(d, task, page, memory, careful=careful)
        if not refused:
            return d
        logger.warning("web guard refused an action: %s", refused[0][:300],
                       extra={"guard_refused": len(refused), "source": d.source})
        if d.actions or d.done or d.stop or self.fallback is None:
            d.thinking = f"{d.thinking or ''} [guard: {refused[0]}]".strip()[:MAX_TEXT]
            return d
        from agenthost import metering

        metering.current().fallback("guard")
        f = self.fallback.decide(task, page, history, memory, tools, deadline,
                                 **{k: v for k, v in options.items() if k in ("careful", "avoid")})
        guard_decision(f, task, page, memory, careful=careful)
        f.source = f"{d.source}+guard"
        f.thinking = f"{f.thinking or ''} [guard: {refused[0]}]".strip()[:MAX_TEXT]
        return f
