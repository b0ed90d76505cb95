"""Risk classes for careful mode: what an action really touches, judged from its element, form and URL.

:func:`classify_risk` labels payment, deletion, sending/publishing, credential entry and account/security
changes (:data:`RISKS`) from the resolved element, its own form (the snapshot's form identifier, else the
enclosing ARIA form/group, else the page) and the URL. The web guard (:mod:`agenthost.agent.web_guard`)
reads the deletion words (:data:`DELETE`, :data:`DELETE_ICON`) to tell whether a task asks for a deletion.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agenthost.agent.actions import Action
from agenthost.agent.page import TEXT_ROLES, Element, Page

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
DELETE = re.compile(r"\b(delete|remove|erase|destroy|discard|cancel (?:subscription|account|order|membership)|"
                     r"close (?:my |your )?account|deactivate|unsubscribe|empty trash|wipe)\b", re.I)
#: words a delete control's name carries beside the verb that name the act, not the thing deleted ("trash
#: delete", "bin", "remove icon")
DELETE_ICON = frozenset({"trash", "bin", "garbage", "rubbish", "wastebasket", "icon", "x", "button"})
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
    return bool(DELETE.search(name)) and not re.search(r"\b(account|profile|data|history|all)\b", name, re.I) \
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
    if DELETE.search(name):
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
