"""``python -m infra.eval_client`` (``make eval-client``): run evaluations from an evaluation server.

Defaults fit the local stack: ``ws://127.0.0.1:3001/local`` and the local ``AGENTHOST_EVALS_SECRET``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid


def redact_url(url: str) -> str:
    """``url`` with the values of secret-looking query parameters (``token``, ``key``, ``secret``...) and
    any password replaced by ``***``, for printing."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
    if not parts.query:
        return urlunsplit(parts)
    secret_names = ("token", "key", "secret", "password", "signature", "auth")
    query = [(k, "***" if any(n in k.lower() for n in secret_names) else v)
             for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit(parts._replace(query=urlencode(query, safe="*")))


def main(argv: list[str] | None = None) -> int:
    from infra.local.defaults import LOCAL_SECRETS, PORTS

    ap = argparse.ArgumentParser(prog="eval-client", description=__doc__)
    ap.add_argument("--url", default=os.environ.get("AGENTHOST_EVALS_URL",
                                                    f"ws://127.0.0.1:{PORTS['AGENTHOST_WS_PORT']}/local"))
    ap.add_argument("--client-id", default=os.environ.get("AGENTHOST_EVALS_CLIENT_ID", str(uuid.uuid4())))
    ap.add_argument("--secret", default=os.environ.get("AGENTHOST_EVALS_SECRET",
                                                       LOCAL_SECRETS["AGENTHOST_EVALS_SECRET"]))
    ap.add_argument("--handshake", choices=["spec", "devtools"], default="spec")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--idle-exit", type=float, default=None, help="exit after N idle seconds")
    ap.add_argument("--serve-pages", type=int, nargs="?", const=8765, default=None, metavar="PORT",
                    help="serve the local suite's pages (infra/eval_client/pages) on 127.0.0.1:PORT (8765, the "
                         "server's default AGENTHOST_EVALS_PAGES_URL) while running")
    args = ap.parse_args(argv)
    if args.serve_pages is not None:
        import functools
        import http.server
        import threading
        from pathlib import Path

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *a: object) -> None:
                pass

        pages = Path(__file__).resolve().parent / "pages"
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", args.serve_pages),
                                                functools.partial(Quiet, directory=str(pages)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        print(f"serving {pages} on http://127.0.0.1:{args.serve_pages}", flush=True)

    from infra.eval_client.client import ClientConfig, EvalClient

    client = EvalClient(ClientConfig(url=args.url, client_id=args.client_id, secret=args.secret,
                                     handshake=args.handshake, max_concurrency=args.concurrency,
                                     idle_exit_s=args.idle_exit))
    print(f"eval-client {args.client_id} -> {redact_url(args.url)}", flush=True)
    try:
        stats = asyncio.run(client.run())
    except KeyboardInterrupt:
        return 130
    print(f"results {stats.results}, errors {stats.errors}, messages sent {stats.sent}, "
          f"received {stats.received}, connects {stats.connects}", flush=True)
    if client.rejected:
        print(f"rejected: {client.rejected}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
