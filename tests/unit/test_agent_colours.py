"""A value is one the task gives, never the rest of a phrase naming a tool ("with the colour wheel", "using the
date selector", "in the search box"); a colour field (``input type=color``, or a field showing a hex value) takes
the colour the task names as the hex value it writes (``agent.colours``, ``agent.task``). Pages written for these
tests: other labels, other colours, other phrasing."""

from __future__ import annotations

import pytest

from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.task import read_task
from tests.support.policy import decide, expect, snapshot_of


def _proxy(task, page):
    return decide(task, page, tools=PROXY_TOOLS)


def _hex_page(label="Swatch", value="4D1E9A", kind="text"):
    return snapshot_of([f"{label}:", {"id": "c", "tag": "input", "type": kind, "hint": label, "value": value},
                        {"id": "ok", "tag": "button", "text": "Apply", "type": "submit"}])


@pytest.mark.parametrize(("task", "label"), [
    ("Choose orange using the colour wheel, then press Apply.", "Colour"),
    ("Pick the arrival day with the date selector and click Next.", "Date"),
    ("Look for hiking boots from the brand dropdown and press Go.", "Brand"),
    ("Find a flight with the departure calendar, then continue.", "Departure"),
])
def test_a_word_naming_a_tool_after_the_label_is_no_value(task, label):
    assert read_task(task).value_for(label) is None


@pytest.mark.parametrize(("task", "label", "value"), [
    ("Enter Lisbon in the destination field and search.", "Destination", "Lisbon"),
    ("Type 2031-04-09 as your renewal date.", "Renewal date", "2031-04-09"),
    ("Nickname: Bramble, then press Save.", "Nickname", "Bramble"),
    ("Sign up with the username kvaris and press Join.", "Username", "kvaris"),
    ("Use voucher code AUTUMN24 at checkout.", "Voucher code", "AUTUMN24"),
    ("Set the tint to plum using the palette.", "Tint", "plum"),
])
def test_values_the_task_gives_are_still_read(task, label, value):
    assert read_task(task).value_for(label) == value


def test_a_colour_named_in_the_task_goes_into_a_colour_field_as_its_hex():
    """A field showing a bare upper-case hex value under a colour label gets the named colour the same way; the
    page's own Apply button follows."""
    page = _hex_page("Background colour", "4D1E9A")
    d = _proxy("Pick teal with the colour wheel and press Apply.", page)
    expect(d, typed={"c": "008080"}, clicked=["ok"], last="ok", by_ref=True)


def test_a_colour_input_gets_the_hex_with_its_hash():
    page = _hex_page("Ink", "#000000", kind="color")
    expect(_proxy("Ink: orange. Then click Apply.", page), typed={"c": "#ffa500"}, clicked=["ok"], by_ref=True)
    # a two-word colour name, and a hex value the task writes itself
    expect(_proxy("Make the ink light green with the picker, then Apply.", page), typed={"c": "#90ee90"},
           by_ref=True, clicked=["ok"])
    expect(_proxy("Enter #1f2e3d in the ink field and press Apply.", page), typed={"c": "#1f2e3d"}, by_ref=True,
           clicked=["ok"])


def test_a_field_showing_a_hex_value_with_a_hash_is_a_colour_field_whatever_its_label():
    page = _hex_page("Highlight", "#aa00cc")
    expect(_proxy("Choose gold with the highlight selector and press Apply.", page), typed={"c": "#ffd700"},
           by_ref=True, clicked=["ok"])


def test_no_colour_named_nothing_typed_and_the_form_not_sent():
    """The colour is only shown as a swatch the snapshot cannot read: no tool word is typed as the colour, the
    form is not sent with it unchanged, and the agent does not claim success."""
    page = _hex_page("Background colour", "4D1E9A")
    d = _proxy("Pick the colour of the sample with the colour wheel and press Apply.", page)
    expect(d, typed={}, not_clicked=["ok"], by_ref=True)
    assert d.done and d.success is False


def test_a_word_that_is_no_colour_is_never_typed_into_a_colour_field():
    page = _hex_page("Shade", "#123456", kind="color")
    d = _proxy("Shade: sunset, then press Apply.", page)
    expect(d, typed={}, not_clicked=["ok"], by_ref=True)


def test_a_colour_word_in_a_plain_text_field_is_typed_as_written():
    page = snapshot_of(["Nickname:", {"id": "n", "tag": "input", "type": "text", "hint": "Nickname", "value": ""},
                        {"id": "ok", "tag": "button", "text": "Save", "type": "submit"}])
    expect(_proxy("Nickname: Olive, then press Save.", page), typed={"n": "Olive"}, by_ref=True)


def test_a_number_field_showing_digits_is_no_colour_field():
    page = snapshot_of(["Account:", {"id": "a", "tag": "input", "type": "text", "hint": "Account", "value": "123456"},
                        {"id": "ok", "tag": "button", "text": "Save", "type": "submit"}])
    expect(_proxy("Account: 654321, then press Save.", page), typed={"a": "654321"}, by_ref=True)
