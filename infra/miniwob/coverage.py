"""Which MiniWoB++ tasks each protocol path can express, and why the others cannot.

A path can express a task when a solution exists using only what that path's platform shows the agent and
the actions it executes: the AI Olympics runner shows an ARIA snapshot and resolves an element by its
accessible name (buttons, links, then the first element with that text; text boxes by name, label or
placeholder); the Proxy API's extension shows an element snapshot and acts on element ids. Neither offers
a pointer at coordinates, a drag, or the pixels of a canvas.
"""

from __future__ import annotations

#: reasons shared by several tasks
PIXELS = "needs pixels the snapshot does not show (shapes, colours or positions drawn on a canvas/SVG)"
DRAG = "needs a drag or a pointer at coordinates (no such action on the path)"
SELECT_TEXT = "needs text selected with the pointer (no such action on the path)"
HOVER = "needs the pointer kept over a moving or hidden target (no such action on the path)"
#: the AI Olympics runner's name resolution (agenthost.agent.address says which element a name reaches)
REPEATED = ("the target's only name is text the task sentence above it repeats: the runner's text match finds "
            "the sentence first")
UNNAMED_BOX = "a text box the task needs is not the page's first and has no name, label or placeholder"
UNNAMED = "the controls to click have no accessible name (icons, cards, cells)"
ALIKE = "the control to click shares its name with others before it (one per row or item): the runner takes the first"
NO_KEYS = "a slider moves by dragging or arrow keys; the runner has neither"
SVG_MENU = "the items are drawn inside an SVG image without roles or names"
MULTI_SELECT = ("the options sit in a multi-select list with no name or label (the runner's select finds only "
                "comboboxes by name and controls by label) and the task sentence above repeats each option's name (a "
                "click by text finds the sentence first)")
BOX_SCROLL = ("needs one text area scrolled to its end: the runner's scroll moves the page, and it has no key press "
              "to send to the text area")
NUMBER_BOX = ("the answer goes into a number box with no name, label or placeholder: the runner finds a box to type "
              "in by the text box role, a label or a placeholder")

BARE_CELLS = ("the board's free cells are bare boxes a script listens on (no role, text, tabindex, pointer cursor or "
              "image): no element snapshot lists them and the ARIA tree shows nothing of the board, so no move can "
              "be made; a marked cell shows its X or O only as an image its class sets")

#: task -> reason, for tasks no path can express
NEITHER: dict[str, str] = {
    **dict.fromkeys(("bisect-angle", "circle-center", "click-color", "click-shades", "click-shape", "count-shape",
                     "count-sides", "find-midpoint", "grid-coordinate", "identify-shape", "right-angle",
                     "visual-addition", "number-checkboxes", "simon-says"), PIXELS),
    **dict.fromkeys(("chase-circle", "drag-box", "drag-circle", "drag-cube", "drag-items", "drag-items-grid",
                     "drag-shapes", "drag-shapes-2", "drag-single-shape", "drag-sort-numbers", "draw-circle",
                     "draw-line", "resize-textarea", "moving-items"), DRAG),
    **dict.fromkeys(("highlight-text", "highlight-text-2", "text-editor"), SELECT_TEXT),
    **dict.fromkeys(("hover-shape", "hot-cold"), HOVER),
    "daily-calendar": ("an event is made by pressing on one half-hour of the day, moving to another and releasing "
                       "(a drag); the half-hours are unnamed cells no snapshot lists"),
    "tic-tac-toe": BARE_CELLS,
    "ascending-numbers": ("the numbers are SVG text, covered by unnamed shapes after the first click: the order is "
                          "kept by position only"),
}
#: task -> reason, for tasks only the AI Olympics path cannot express
NOT_OLYMPICS: dict[str, str] = {
    **dict.fromkeys(("click-option", "click-checkboxes", "click-checkboxes-large", "click-checkboxes-soft",
                     "click-checkboxes-transfer", "click-link", "click-collapsible-2", "click-collapsible-2-nodelay",
                     "click-tab-2", "click-tab-2-easy", "click-tab-2-medium", "click-tab-2-hard", "click-menu",
                     "click-menu-2", "navigate-tree", "email-inbox", "email-inbox-delete", "email-inbox-forward",
                     "email-inbox-forward-nl", "email-inbox-forward-nl-turk", "email-inbox-important",
                     "email-inbox-nl-turk", "email-inbox-noscroll", "email-inbox-reply", "email-inbox-star-reply",
                     "social-media", "social-media-all", "social-media-some"), REPEATED),
    **dict.fromkeys(("enter-password", "login-user", "login-user-popup", "focus-text-2", "copy-paste",
                     "copy-paste-2", "form-sequence-2", "read-table-2", "scroll-text", "book-flight",
                     "book-flight-nodelay", "multi-layouts", "multi-orderings"), UNNAMED_BOX),
    **dict.fromkeys(("click-widget", "find-greatest"), UNNAMED),
    **dict.fromkeys(("odd-or-even", "buy-ticket", "order-food"), ALIKE),
    **dict.fromkeys(("use-slider", "use-slider-2", "form-sequence"), NO_KEYS),
    **dict.fromkeys(("click-pie", "click-pie-nodelay"), SVG_MENU),
    "guess-number": NUMBER_BOX,
    "scroll-text-2": BOX_SCROLL,
    "click-scroll-list": MULTI_SELECT,
}
#: task -> reason, for tasks only the Proxy API path cannot express
NOT_PROXY: dict[str, str] = {
    **dict.fromkeys(("click-pie", "click-pie-nodelay"), SVG_MENU),
}


def why_not(task: str, path: str) -> str:
    """Why ``path`` cannot express ``task``; "" when it can."""
    if task in NEITHER:
        return NEITHER[task]
    table = NOT_OLYMPICS if path == "olympics" else NOT_PROXY
    return table.get(task, "")
