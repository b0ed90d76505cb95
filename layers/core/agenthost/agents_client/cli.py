"""The command line: ``python -m agenthost.agents_client SITE COMMAND`` tries an agents.json site by hand
(discover, search, browse, detail, add, cart, buy, or any capability with ``call``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import httpx

from agenthost.agents_client.client import AgentsClient
from agenthost.agents_client.site import AgentsApiError
from agenthost.netguard import Blocked


def main(argv: list[str] | None = None, http: httpx.Client | None = None) -> int:
    """Run one command; 0 on success, 1 when the site refused, 2 when the outbound guard refused the URL."""
    args = _parser().parse_args(argv)
    client = AgentsClient(args.site, http=http, token=args.session, pace=not args.no_pace)
    try:
        print(json.dumps(_run(client, args), indent=2, ensure_ascii=False))
        if client.token and args.keep:
            print(f"session token (reuse with --session): {client.token}", file=sys.stderr)
        return 0
    except AgentsApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Blocked as exc:
        print(f"error: {blocked_message(exc)}", file=sys.stderr)
        return 2
    finally:
        if client.token and not args.keep and not args.session:
            try:
                client.end_session()
            except (AgentsApiError, Blocked):
                pass
        client.close()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agenthost.agents_client",
                                     description="Try an agents.json site by hand.")
    parser.add_argument("site", help="site URL (or its agents.json URL)")
    parser.add_argument("--session", help="reuse this session token")
    parser.add_argument("--keep", action="store_true", help="do not end the session at exit")
    parser.add_argument("--no-pace", action="store_true",
                        help="do not pace requests to the site's declared requests_per_minute")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("discover", help="print the capabilities")
    p = sub.add_parser("search")
    p.add_argument("q")
    p.add_argument("--limit", type=int)
    p = sub.add_parser("browse")
    p.add_argument("--page", type=int, default=1)
    p.add_argument("--limit", type=int)
    p.add_argument("--category")
    p = sub.add_parser("detail")
    p.add_argument("id")
    p = sub.add_parser("add", help="add to cart (then shows the cart)")
    p.add_argument("id")
    p.add_argument("quantity", type=int, nargs="?", default=1)
    sub.add_parser("cart")
    p = sub.add_parser("buy", help="add ITEM, then print the checkout URL for you to open")
    p.add_argument("id")
    p.add_argument("quantity", type=int, nargs="?", default=1)
    p = sub.add_parser("call", help="call any capability with JSON params")
    p.add_argument("capability")
    p.add_argument("params", nargs="?", default="{}")
    return parser


def _run(client: AgentsClient, args: argparse.Namespace) -> Any:
    """What command ``args.command`` prints."""
    if args.command == "discover":
        s = client.site
        return {"site": s.name, "source": s.source, "requests_per_minute": s.requests_per_minute,
                "capabilities": {c.name: f"{c.method} {c.endpoint}" + (" [session]" if c.requires_session else "")
                                 for c in s.capabilities.values()}}
    if args.command == "search":
        return client.search(args.q, args.limit)
    if args.command == "browse":
        return client.browse(args.page, args.limit, args.category)
    if args.command == "detail":
        return client.detail(args.id)
    if args.command == "add":
        client.add_to_cart(args.id, args.quantity)
        return client.view_cart()
    if args.command == "cart":
        return client.view_cart()
    if args.command == "buy":
        client.add_to_cart(args.id, args.quantity)
        handoff = client.checkout()
        return {"cart": client.view_cart(), "checkout_url": handoff.url,
                "note": "open this URL yourself to review and confirm; the agent does not follow it"}
    return client.call(args.capability, json.loads(args.params))


def blocked_message(exc: Blocked) -> str:
    """One line for a URL the outbound guard refused, naming the setting that would allow it."""
    if "metadata" in exc.reason:
        hint = "cloud metadata endpoints are refused unless listed in AGENTHOST_NETGUARD_ALLOW"
    elif exc.reason.startswith("address "):
        hint = ("to allow private and loopback sites set AGENTHOST_NETGUARD_ALLOW_PRIVATE=true, or list the "
                "host in AGENTHOST_NETGUARD_ALLOW")
    else:
        hint = "check the site URL"
    return f"{exc.url} refused: {exc.reason} ({hint})"
