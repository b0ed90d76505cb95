"""A browser-extension emulator for the Proxy Server API (``make extension-run``)."""
