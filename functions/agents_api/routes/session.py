"""Session capabilities: create (the answer is the token, never recorded) and end."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from agents_api import models
from agents_api.deps import LiveSession, SessionsDep, SiteDep
from agents_api.discovery import capabilities
from agents_api.wire import body, iso, ok

router = APIRouter()


@router.post("/session", summary="session create", status_code=201)
async def session_create(request: Request, site: SiteDep, sessions: SessionsDep) -> Response:
    await body(request)  # an empty or JSON object body is fine; anything else is a 400
    token, exp = sessions.create({"user_agent": request.headers.get("user-agent", "")[:200]})
    caps = [c.name for c in capabilities(site, "")]
    return ok(models.SessionCreated(session_token=token, expires_at=iso(exp), capabilities=caps), 201)


@router.delete("/session", summary="session delete")
async def session_delete(sessions: SessionsDep, session: LiveSession) -> Response:
    sessions.end(session)
    return ok(models.SessionEnded())
