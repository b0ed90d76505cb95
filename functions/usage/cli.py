"""``make usage``: print the usage report as a table.

By default it asks ``GET /usage`` of the local stack (``make dev``); ``--url`` points it at a deployed
API (with ``--api-key`` or ``AGENTHOST_USAGE_API_KEY``); ``--direct`` reads the table itself with the
current AWS credentials (``AGENTHOST_TABLE``, ``AGENTHOST_DYNAMODB_ENDPOINT`` for a local endpoint).

    make usage USAGE_ARGS="--agent my-agent --from 2026-11-01 --to 2026-11-22"
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, date, datetime, timedelta
from typing import Any

COLUMNS = [
    ("date", "date", "<"), ("agent", "agent", "<"), ("protocol", "protocol", "<"), ("turns", "turns", ">"),
    ("errors", "err", ">"), ("llm_calls", "llm", ">"), ("tokens_in", "tok in", ">"),
    ("tokens_out", "tok out", ">"), ("fallback_rate", "fallback", ">"), ("budget_fallbacks", "budget fb", ">"),
    ("avg_duration_ms", "avg ms", ">"), ("ddb_calls", "ddb", ">"),
    ("infra_usd_per_million_turns", "$/1M turns", ">"), ("infra", "infra $", ">"), ("llm", "llm $", ">"),
    ("total", "total $", ">"),
]


def _cell(row: dict[str, Any], key: str) -> str:
    if key in ("infra", "llm", "total"):
        return f"{row['cost'][key]:.6f}"
    value = row.get(key, "")
    if key == "fallback_rate":
        return f"{float(value) * 100:.1f}%"
    if key == "infra_usd_per_million_turns":
        return f"{float(value):.4f}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def render(report: dict[str, Any]) -> str:
    """The report as a fixed-width table: rows, per-protocol totals, grand total."""
    body = [[_cell(r, k) for k, _, _ in COLUMNS] for r in report["rows"]]
    proto = [[_cell({**t, "date": "total", "agent": "*"}, k) for k, _, _ in COLUMNS]
             for t in report.get("by_protocol", [])]
    total = [_cell({**report["totals"], "date": "total", "agent": "*", "protocol": "*"}, k) for k, _, _ in COLUMNS]
    header = [h for _, h, _ in COLUMNS]
    table = [header, *body, *proto, total]
    widths = [max(len(r[i]) for r in table) for i in range(len(COLUMNS))]

    def line(cells: list[str]) -> str:
        return "  ".join(f"{c:{a}{w}}" for c, (_, _, a), w in zip(cells, COLUMNS, widths, strict=True))

    rule = "  ".join("-" * w for w in widths)
    out = [f"usage {report['from']} .. {report['to']}"
           + "".join(f"  {k}={v}" for k, v in report.get("filters", {}).items() if v), line(header), rule]
    out += [line(r) for r in body]
    if body:
        out.append(rule)
    out += [line(r) for r in proto]
    out.append(line(total))
    src = report.get("prices", {}).get("source")
    if src:
        out.append(f"prices: {src}")
    return "\n".join(out)


def _fetch(url: str, params: dict[str, str], api_key: str) -> dict[str, Any]:
    import httpx

    headers = {"x-api-key": api_key} if api_key else {}
    try:
        resp = httpx.get(url, params=params, headers=headers, timeout=30)
    except httpx.HTTPError as exc:
        raise SystemExit(f"cannot reach {url} ({exc.__class__.__name__}); is `make dev` running?") from None
    if resp.status_code != 200:
        try:
            message = resp.json().get("message", resp.text)
        except ValueError:
            message = resp.text
        raise SystemExit(f"GET {url} answered {resp.status_code}: {message}")
    return resp.json()


def _direct(params: dict[str, str]) -> dict[str, Any]:
    from agenthost.config import settings

    endpoint = settings().dynamodb_endpoint
    if endpoint:
        os.environ.setdefault("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
    from agenthost.pricing import prices
    from agenthost.store import Store
    from usage.report import build, collect

    end = date.fromisoformat(params["to"]) if params.get("to") else datetime.now(UTC).date()
    start = date.fromisoformat(params["from"]) if params.get("from") else end - timedelta(days=6)
    report = build(collect(Store(), start, end, agent=params.get("agent"), protocol=params.get("protocol")),
                   prices())
    return {"from": start.isoformat(), "to": end.isoformat(),
            "filters": {"agent": params.get("agent"), "protocol": params.get("protocol")}, **report,
            "prices": {"source": prices().table.get("_source", "")}}


def main(argv: list[str] | None = None) -> int:
    from agenthost.config import raw, settings

    cfg = settings()
    ap = argparse.ArgumentParser(prog="make usage", description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default=cfg.usage_url or f"http://127.0.0.1:{cfg.http_port}/usage")
    ap.add_argument("--api-key", default=raw("AGENTHOST_USAGE_API_KEY"))
    ap.add_argument("--agent")
    ap.add_argument("--protocol")
    ap.add_argument("--from", dest="from_", metavar="YYYY-MM-DD")
    ap.add_argument("--to", metavar="YYYY-MM-DD")
    ap.add_argument("--direct", action="store_true", help="read the table directly instead of GET /usage")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    params = {k: v for k, v in {"agent": args.agent, "protocol": args.protocol, "from": args.from_,
                                "to": args.to}.items() if v}
    try:
        report = _direct(params) if args.direct else _fetch(args.url, params, args.api_key)
    except ValueError as exc:
        print(f"usage: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
