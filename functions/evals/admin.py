"""Admin HTTP API of the evaluation server (``/evals/*``, HTTP API events on ``EvalsFunction``).

Every route needs ``x-api-key`` equal to ``AGENTHOST_EVALS_ADMIN_KEY`` (or ``_PARAM``) when one is
configured; deployed without one, the API answers 503 rather than run open.

* ``GET  /evals/clients``: known clients with counts per status and their pass rate
* ``GET  /evals/clients/{id}``: one client and its evaluations (status, progress, results, verdicts)
* ``POST /evals/clients/{id}/run``: trigger all evaluations, or one with ``{"evaluationId": ...}``
* ``GET  /evals/definitions``: loaded definitions and the problems found in them
* ``POST /evals/definitions``: upload one definition (YAML or JSON, either generation); 400 lists errors
* ``GET  /evals/report``: results as JSON (pass rates per category and per client)
* ``GET  /evals/report.html``: the same as an HTML page with a chart

One route is for evaluation clients, not operators, and needs no admin key:

* ``POST /evals/results``: a result too big for a WebSocket frame, sent over HTTP. The body is the JSON-RPC
  response the client would send on its connection; ``X-Evals-Client-Id`` names the client and
  ``X-Evals-Signature: sha256=<hex HMAC-SHA256(secret, body)>`` proves the same secret the connection
  proves (the client file's ``secret_key``, else the server's secret; none needed when neither is set).
"""

from __future__ import annotations

import hmac
import html
import json
from typing import Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse

from agenthost import aws
from agenthost.aws import AwsBadInput
from agenthost.config import settings
from agenthost.items import keys
from agenthost.secrets import secret
from agenthost.store import Store
from agenthost.webapp import ApiError, create_app, make_handler
from evals.common import CLIENT_ID_RE, CLIENT_INDEX_PK, DEFS_PK
from evals.definitions import DefinitionError, load_text, parse_document, plain_document
from evals.runtime import build_server

app = create_app("evals-admin")


def require_key(request: Request) -> None:
    key = secret("AGENTHOST_EVALS_ADMIN_KEY")
    if not key:
        if settings().local:
            return
        raise ApiError(503, "the admin API key is not configured (set AGENTHOST_EVALS_ADMIN_KEY_PARAM)")
    offered = request.headers.get("x-api-key", "")
    if not hmac.compare_digest(offered.encode(), key.encode()):
        raise ApiError(401, "missing or invalid x-api-key")


def _server(request: Request) -> Any:
    return build_server(request.scope.get("aws.context"))


PUBLIC_EVAL_FIELDS = ("evalId", "name", "category", "tool", "status", "attempts", "progress", "statusMessage",
                      "result", "error", "verdict", "passed", "score", "durationMs", "late", "history",
                      "lastOutcome")


def _eval_view(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item.get(k) for k in PUBLIC_EVAL_FIELDS if k in item}


def _client_summary(meta: dict[str, Any], evals: list[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for e in evals:
        counts[str(e.get("status"))] = counts.get(str(e.get("status")), 0) + 1
    judged = [e for e in evals if e.get("status") in ("completed", "failed", "timeout")]
    passed = sum(1 for e in judged if e.get("passed"))
    return {"clientId": meta.get("clientId"), "name": meta.get("name", ""),
            "connected": bool(meta.get("connectionId")), "ready": bool(meta.get("ready")),
            "maxConcurrency": meta.get("maxConcurrency"), "inflight": meta.get("inflight", 0),
            "evaluations": len(evals), "byStatus": counts, "finished": len(judged), "passed": passed,
            "passRate": round(passed / len(judged), 4) if judged else None}


def _clients(server: Any) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    out = []
    for idx in server.store.query(CLIENT_INDEX_PK):
        meta, evals = server.load(str(idx["sk"]))
        if meta is not None:
            out.append((meta, evals))
    return out


@app.get("/evals/clients", dependencies=[Depends(require_key)])
def list_clients(request: Request) -> dict[str, Any]:
    server = _server(request)
    return {"clients": [_client_summary(m, e) for m, e in _clients(server)]}


@app.get("/evals/clients/{client_id}", dependencies=[Depends(require_key)])
def get_client(client_id: str, request: Request) -> dict[str, Any]:
    server = _server(request)
    meta, evals = server.load(client_id)
    if meta is None:
        raise ApiError(404, f"unknown client {client_id}")
    return {**_client_summary(meta, evals), "evaluations": [_eval_view(e) for e in evals]}


@app.post("/evals/clients/{client_id}/run", dependencies=[Depends(require_key)])
async def run_client(client_id: str, request: Request) -> dict[str, Any]:
    raw = await request.body()
    eval_id = None
    if raw.strip():
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise ApiError(400, f"body must be JSON: {exc}") from None
        eval_id = body.get("evaluationId") if isinstance(body, dict) else None
        if eval_id is not None and not isinstance(eval_id, str):
            raise ApiError(400, "evaluationId must be a string")
    server = _server(request)
    try:
        count = server.trigger(client_id, eval_id)
    except LookupError as exc:
        raise ApiError(404, str(exc)) from None
    meta, evals = server.load(client_id)
    return {"clientId": client_id, "triggered": count, "connected": bool(meta and meta.get("connectionId")),
            "running": sum(1 for e in evals if e.get("status") == "running")}


@app.get("/evals/definitions", dependencies=[Depends(require_key)])
def list_definitions(request: Request) -> dict[str, Any]:
    cat = _server(request).catalog(None)
    return {"evaluations": [{"id": e.id, "name": e.name, "category": e.category, "tool": e.tool,
                             "enabled": e.enabled} for e in cat.evaluations.values()],
            "clients": [{"id": c.client.id, "evaluations": [e.id for e in c.evaluations]}
                        for c in cat.clients.values()],
            "errors": cat.errors}


@app.post("/evals/definitions", status_code=201, dependencies=[Depends(require_key)])
async def upload_definition(request: Request) -> dict[str, Any]:
    raw = (await request.body()).decode("utf-8", "replace")
    category = request.query_params.get("category", "default")
    try:
        if "json" in request.headers.get("content-type", ""):
            try:
                doc = plain_document(json.loads(raw), "upload")
            except ValueError as exc:
                if isinstance(exc, DefinitionError):
                    raise
                raise DefinitionError([f"upload: invalid JSON: {exc}"]) from None
        else:
            doc = load_text(raw, "upload")
        cat = parse_document(doc, "upload", category)
    except DefinitionError as exc:
        raise ApiError(400, "invalid definition: " + "; ".join(exc.errors)) from None
    if cat.clients:
        cid = next(iter(cat.clients))
        _store_definition({"pk": DEFS_PK, "sk": f"CLIENTFILE#{cid}", "doc": doc, "category": category})
        return {"stored": "client", "clientId": cid, "evaluations": [e.id for e in cat.clients[cid].evaluations]}
    eid = next(iter(cat.evaluations))
    _store_definition({"pk": DEFS_PK, "sk": f"DEF#{eid}", "doc": doc, "category": category})
    return {"stored": "evaluation", "id": eid, "category": cat.evaluations[eid].category}


def _store_definition(item: dict[str, Any]) -> None:
    """One write; a definition DynamoDB refuses as given (over its 400 KB item size) is the uploader's 400."""
    try:
        Store().put(item)
    except AwsBadInput as exc:
        detail = (aws.error_message(exc) or exc.code)[:200]
        raise ApiError(400, f"invalid definition: it cannot be stored ({detail})") from None


def build_report(server: Any) -> dict[str, Any]:
    cats: dict[str, dict[str, Any]] = {}
    clients = []
    for meta, evals in _clients(server):
        clients.append(_client_summary(meta, evals))
        for e in evals:
            c = cats.setdefault(str(e.get("category", "default")),
                                {"category": str(e.get("category", "default")), "total": 0, "finished": 0,
                                 "passed": 0, "timeouts": 0, "errors": 0})
            c["total"] += 1
            if e.get("status") in ("completed", "failed", "timeout"):
                c["finished"] += 1
                c["passed"] += 1 if e.get("passed") else 0
                c["timeouts"] += 1 if e.get("status") == "timeout" else 0
                c["errors"] += 1 if e.get("status") == "failed" else 0
    for c in cats.values():
        c["passRate"] = round(c["passed"] / c["finished"], 4) if c["finished"] else None
    finished = sum(c["finished"] for c in cats.values())
    passed = sum(c["passed"] for c in cats.values())
    return {"categories": sorted(cats.values(), key=lambda c: c["category"]), "clients": clients,
            "finished": finished, "passed": passed, "passRate": round(passed / finished, 4) if finished else None}


@app.get("/evals/report", dependencies=[Depends(require_key)])
def report(request: Request) -> dict[str, Any]:
    return build_report(_server(request))


def render_html(rep: dict[str, Any]) -> str:
    rows, bars = [], []
    width = 360
    for i, c in enumerate(rep["categories"]):
        rate = c["passRate"] or 0.0
        name = html.escape(c["category"])
        rows.append(f"<tr><td>{name}</td><td>{c['total']}</td><td>{c['finished']}</td><td>{c['passed']}</td>"
                    f"<td>{c['timeouts']}</td><td>{'-' if c['passRate'] is None else f'{rate:.0%}'}</td></tr>")
        y = 10 + i * 28
        bars.append(f'<text x="0" y="{y + 15}" font-size="12">{name}</text>'
                    f'<rect x="160" y="{y}" width="{width}" height="20" fill="#eee"/>'
                    f'<rect x="160" y="{y}" width="{int(width * rate)}" height="20" fill="#2a7"/>'
                    f'<text x="{165 + width}" y="{y + 15}" font-size="12">{rate:.0%}</text>')
    height = 20 + 28 * max(1, len(rep["categories"]))
    total = "-" if rep["passRate"] is None else f"{rep['passRate']:.0%}"
    client_rows = "".join(
        f"<tr><td>{html.escape(str(c['clientId']))}</td><td>{c['evaluations']}</td><td>{c['finished']}</td>"
        f"<td>{c['passed']}</td><td>{'-' if c['passRate'] is None else format(c['passRate'], '.0%')}</td></tr>"
        for c in rep["clients"])
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>agenthost evaluations</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;
padding:4px 8px}}</style></head><body>
<h1>Evaluation results</h1><p>Overall pass rate: <b>{total}</b> ({rep['passed']} of {rep['finished']} finished)</p>
<h2>Pass rate per category</h2>
<svg role="img" aria-label="pass rate per category" width="{width + 220}" height="{height}">{''.join(bars)}</svg>
<table><tr><th>category</th><th>evaluations</th><th>finished</th><th>passed</th><th>timeouts</th><th>pass rate</th>
</tr>{''.join(rows)}</table>
<h2>Clients</h2><table><tr><th>client</th><th>evaluations</th><th>finished</th><th>passed</th><th>pass rate</th></tr>
{client_rows}</table></body></html>"""


@app.get("/evals/report.html", response_class=HTMLResponse, dependencies=[Depends(require_key)])
def report_html(request: Request) -> HTMLResponse:
    return HTMLResponse(render_html(build_report(_server(request))))


@app.post("/evals/results")
async def upload_result(request: Request) -> dict[str, Any]:
    """A client's result over HTTP, recorded as if it had come over its WebSocket connection."""
    from agenthost import signing

    raw = await request.body()
    client_id = request.headers.get("x-evals-client-id", "")
    if not CLIENT_ID_RE.match(client_id):
        raise ApiError(400, "X-Evals-Client-Id must name the client (letters, digits and . _ : -)")
    server = _server(request)
    key = server.client_secret(client_id)
    if key:
        try:
            signing.verify_request(key, raw, request.headers.get("x-evals-signature"), window_s=None)
        except signing.SignatureError as exc:
            raise ApiError(401, f"X-Evals-Signature: {exc.reason}") from None
    try:
        body = json.loads(raw)
    except ValueError:
        raise ApiError(400, "the body is not JSON") from None
    try:
        return server.upload_result(client_id, body)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    except LookupError as exc:
        raise ApiError(404, str(exc)) from None


http_handler = make_handler(app)

__all__ = ["app", "http_handler", "keys"]
