"""FastAPI dependencies of the site's routes: the site serving the request, its store, and the
request's live session.

The routes live in module-level routers (:mod:`agents_api.routes`) shared by every site; the router
that :meth:`agents_api.sdk.AgentsSite.router` builds binds its site to each request it routes
(:func:`bind_site`, a router dependency that runs before the route's own): the routers hold no
site of their own.

The session normally comes from the edge (:mod:`agents_api.edge`): its rate-limit write proves the
session and returns the item, cart included, and leaves it in ``scope[SESSION_SCOPE]``. Only when the
limiter could not run does :func:`live_session` read the session itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

from agenthost.store import Store
from agenthost.webapp import ApiError
from agents_api.sessions import Session, Sessions
from agents_api.site import SiteConfig
from agents_api.wire import token_of

SITE_SCOPE = "agents.site"
#: what the edge learned about the request's session (scope key): a Session, MISSING, INVALID, or absent
#: when the rate limiter failed (routes then read the session themselves)
SESSION_SCOPE = "agents.session"
MISSING, INVALID = "missing", "invalid"
MAX_TOKEN = 512
AUTH_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="agents"'}


def bind_site(site: SiteConfig) -> Callable[[Request], Awaitable[None]]:
    """A router dependency that makes ``site`` the one :func:`current_site` returns for the request."""
    async def bind(request: Request) -> None:
        request.scope[SITE_SCOPE] = site
    return bind


async def current_site(request: Request) -> SiteConfig:
    site: SiteConfig = request.scope[SITE_SCOPE]
    return site


async def request_store(site: Annotated[SiteConfig, Depends(current_site)]) -> Store:
    return site.store()


async def request_sessions(site: Annotated[SiteConfig, Depends(current_site)],
                           store: Annotated[Store, Depends(request_store)]) -> Sessions:
    return Sessions(store, site.limits.session_ttl_s)


def session_gone() -> ApiError:
    return ApiError(401, "invalid or expired session token: create a new session", headers=AUTH_CHALLENGE)


async def live_session(request: Request, site: Annotated[SiteConfig, Depends(current_site)],
                       sessions: Annotated[Sessions, Depends(request_sessions)]) -> Session:
    """The request's live session: normally what the edge's rate-limit write returned (no read); a
    GetItem only when the limiter could not run."""
    known = request.scope.get(SESSION_SCOPE)
    if isinstance(known, Session):
        return known
    token = token_of(request.headers)
    if not token or known == MISSING:
        raise ApiError(401, "missing session token: create one with POST "
                            f"{site.base_path}/session and send Authorization: Bearer <session_token>",
                       headers=AUTH_CHALLENGE)
    found = sessions.load(token) if known != INVALID and len(token) <= MAX_TOKEN else None
    if found is None:
        raise session_gone()
    return found


SiteDep = Annotated[SiteConfig, Depends(current_site)]
StoreDep = Annotated[Store, Depends(request_store)]
SessionsDep = Annotated[Sessions, Depends(request_sessions)]
LiveSession = Annotated[Session, Depends(live_session)]
