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

#: task -> reason, for tasks no path can express
NEITHER: dict[str, str] = {}
#: task -> reason, for tasks only the AI Olympics path cannot express
NOT_OLYMPICS: dict[str, str] = {}
#: task -> reason, for tasks only the Proxy API path cannot express
NOT_PROXY: dict[str, str] = {}


def why_not(task: str, path: str) -> str:
    """Why ``path`` cannot express ``task``; "" when it can."""
    if task in NEITHER:
        return NEITHER[task]
    table = NOT_OLYMPICS if path == "olympics" else NOT_PROXY
    return table.get(task, "")
