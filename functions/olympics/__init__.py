"""AI Olympics webhook agent (``specs/ai-olympics-webhook.md``): ``POST /olympics/turn``."""
