"""The ``contact`` capability: a message to the shop, stored as one item (no session needed)."""

from __future__ import annotations

import hashlib
import time

from fastapi import APIRouter, Request
from fastapi.responses import Response

from agents_api import models
from agents_api.deps import SiteDep, StoreDep
from agents_api.wire import body, ok, validate

router = APIRouter()


@router.post("/contact", summary="contact")
async def contact(request: Request, site: SiteDep, store: StoreDep) -> Response:
    message = validate(models.Contact, await body(request))
    digest = hashlib.sha256(f"{time.time_ns()}{message.email}{id(request)}".encode()).hexdigest()[:24]
    store.put({"pk": f"CONTACT#{digest}", "sk": "META", **message.model_dump(exclude_none=True),
               "received_at": store.now(), "site": site.info.name}, if_absent=True)
    return ok(models.ContactSent())
