"""The local arena: plays the AI Olympics platform's role against a webhook (local stack or deployed).

It serves task pages, drives real Chromium, sends requests signed exactly like the platform, executes the
returned actions with the platform's element resolution, and reads each page's own completion marker.
"""
