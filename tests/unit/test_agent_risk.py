"""Risk classes for careful mode: what an action really commits to, judged by the element, its own form and
the URL - the cases and the look-alike non-cases."""

from __future__ import annotations

import pytest

from agenthost.agent import Action
from agenthost.agent import page as pages
from agenthost.agent.aria import from_aria
from agenthost.agent.guards import check_actions
from agenthost.agent.risk import RISKS, classify_risk
from agenthost.agent.snapshot import from_snapshot


def risk_aria(tree: str, tool: str, element: str = "", url: str = "https://shop.test/", **args) -> str | None:
    page = from_aria(tree, url=url, title="")
    action = Action(tool, {"element": element, **args} if element else dict(args))
    if element:
        action = check_actions([action], page).actions[0]
    return classify_risk(action, page)


def navigate(url: str) -> str | None:
    return classify_risk(Action("navigate", {"url": url}), from_aria("- paragraph: hi", url="https://shop.test/"))


def snapshot(elements: list[dict], url: str = "https://shop.test/account") -> pages.Page:
    return from_snapshot({"url": url, "title": "", "elements": elements})


def risk_snap(page: pages.Page, tool: str, ref: str = "", **args) -> str | None:
    el = page.by_ref(ref) if ref else None
    return classify_risk(Action(tool, {"element": ref, **args} if ref else dict(args), resolved=el), page)


def test_the_categories_the_runs_engine_uses_plus_account():
    assert RISKS == ("payment", "deletion", "send", "credential", "account")


@pytest.mark.parametrize("name", ["Change password", "Update email address", "Disable two-factor authentication",
                                  "Turn off 2FA", "Security settings", "Sign out of all devices",
                                  "Regenerate API key", "Reset recovery codes"])
def test_account_and_security_changes_are_account(name):
    assert risk_aria(f'- button "{name}"', "click", name) == "account"


def test_deleting_the_account_stays_deletion():
    assert risk_aria('- button "Delete account"', "click", "Delete account") == "deletion"
    assert risk_aria('- button "Close my account"', "click", "Close my account") == "deletion"


def test_a_security_form_submit_and_its_password_fields_are_account_and_a_login_is_credential():
    change = """- form "Security":
  - textbox "Current password"
  - textbox "New password"
  - button "Save"
- form "Profile":
  - textbox "Display name"
  - button "Save profile\""""
    assert risk_aria(change, "click", "Save") == "account"
    assert risk_aria(change, "type", "New password", text="x") == "account"
    assert risk_aria(change, "click", "Save profile") is None  # its own form has no security fields
    login = '- textbox "Username"\n- textbox "Password"\n- button "Sign in"'
    assert risk_aria(login, "type", "Password", text="x") == "credential"
    assert risk_aria(login, "click", "Sign in") == "credential"
    toggle = '- switch "Two-factor authentication" [checked]\n- button "Done"'
    assert risk_aria(toggle, "click", "Two-factor authentication") == "account"


@pytest.mark.parametrize("name,kind", [("Proceed to checkout", "button"), ("Checkout", "link"),
                                       ("Go to checkout", "button"), ("Continue to payment", "button"),
                                       ("View cart", "link")])
def test_the_way_to_the_checkout_is_not_a_payment(name, kind):
    tree = f'- {kind} "{name}"' + ('\n  - /url: /checkout' if kind == "link" else "")
    assert risk_aria(tree, "click", name, url="https://shop.test/cart") is None
    assert navigate("https://shop.test/checkout") is None


@pytest.mark.parametrize("name", ["Place order", "Pay now", "Buy now", "Complete purchase", "Confirm and pay",
                                  "Subscribe for $9.99/month", "Checkout and pay"])
def test_committing_to_pay_is_payment(name):
    assert risk_aria(f'- button "{name}"', "click", name) == "payment"
    assert navigate("https://shop.test/payment?order=1") == "payment"


def test_removing_a_cart_line_and_subscribing_to_a_newsletter_are_not_payments_or_deletions():
    cart = """- heading "Your cart" [level=1]
- listitem:
  - text: Earl Grey x 1
  - button "Remove"
- listitem:
  - text: Rooibos x 1
  - button "Remove Rooibos from cart"
- button "Proceed to checkout\""""
    assert risk_aria(cart, "click", "Remove Rooibos from cart", url="https://shop.test/cart") is None
    assert risk_aria(cart, "click", "Remove", url="https://shop.test/cart") is None
    news = '- textbox "Email"\n- button "Subscribe"'
    assert risk_aria(news, "click", "Subscribe") is None
    # a real deletion elsewhere still is one
    assert risk_aria('- button "Remove photo"', "click", "Remove photo", url="https://pics.test/album") == "deletion"


def test_submit_and_enter_are_judged_by_the_element_s_own_form():
    page = snapshot([
        {"id": "agent-1", "tag": "input", "label": "Search", "form": "search"},
        {"id": "agent-2", "tag": "button", "text": "Go", "type": "submit", "form": "search"},
        {"id": "agent-3", "tag": "input", "label": "Card number", "form": "pay", "autocomplete": "cc-number"},
        {"id": "agent-4", "tag": "input", "label": "CVC", "form": "pay"},
        {"id": "agent-5", "tag": "button", "text": "", "ariaLabel": "→", "type": "submit", "form": "pay"},
    ], url="https://shop.test/checkout")
    assert risk_snap(page, "click", "agent-2") is None  # searching on a page that also holds a card form
    assert risk_snap(page, "press", "agent-1", key="Enter") is None
    assert risk_snap(page, "press", "agent-4", key="Enter") == "payment"
    assert risk_snap(page, "submit", form="pay") == "payment" and risk_snap(page, "submit", form="search") is None
    assert risk_snap(page, "click", "agent-5") == "payment"  # an icon-only submit inside the payment form
    assert risk_snap(page, "type", "agent-3", text="4111") == "payment"
    assert risk_snap(page, "type", "agent-1", text="tea") is None


def test_without_form_information_the_page_is_the_form():
    page = from_aria('- textbox "Card number"\n- button "Continue"\n- button "›"')
    assert classify_risk(check_actions([Action("click", {"element": "Continue"})], page).actions[0], page) == "payment"
    icon = Action("click", {"element": "›"}, resolved=page.elements[2])
    assert classify_risk(icon, page) == "payment"
    assert risk_aria('- textbox "Message"\n- button "Send message"', "click", "Send message") == "send"
    assert risk_aria('- link "Help":\n  - /url: /help', "click", "Help") is None
