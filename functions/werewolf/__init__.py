"""Werewolf Arena webhook player (``specs/werewolf-arena-webhook.md``)."""
