"""The site's capabilities as FastAPI routers, one module per group: ``catalog`` (search, browse,
detail), ``session`` (create, end), ``cart`` (add, view, update, remove), ``checkout`` (the handoff and
the human's checkout page) and ``contact``. Paths are relative to the site's base path; the site, its
store and the session come from :mod:`agents_api.deps`."""
