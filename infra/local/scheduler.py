"""EventBridge Scheduler, locally: one-time ``at(...)`` schedules that invoke a local function.

Served on the Lambda port (``AWS_ENDPOINT_URL_SCHEDULER`` points there), so functions use the normal
boto3 ``scheduler`` client: ``create_schedule`` (``POST /schedules/{name}``), ``get_schedule``,
``delete_schedule``. At the time, the target (a function ARN or name) is invoked asynchronously with the
target's ``Input`` as the event, like the real service. ``rate``/``cron`` expressions are refused.
Schedules with ``ActionAfterCompletion: DELETE`` disappear after firing.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from calendar import timegm
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

AT_RE = re.compile(r"^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$")


class LocalScheduler:
    def __init__(self, runtime: Any, log: Callable[[str], None] = print):
        self.runtime = runtime
        self.log = log
        self.schedules: dict[str, dict[str, Any]] = {}
        self.handles: dict[str, asyncio.TimerHandle] = {}
        self.fired = 0

    def _fire(self, name: str) -> None:
        sched = self.schedules.get(name)
        self.handles.pop(name, None)
        if sched is None:
            return
        target = sched["Target"]
        try:
            event = json.loads(target.get("Input") or "{}")
        except ValueError:
            event = {}
        try:
            self.runtime.invoke_async(target["Arn"], event)
            self.fired += 1
        except Exception as exc:  # noqa: BLE001 - a bad target is logged like Scheduler's DLQ would record it
            self.log(f"  schedule {name}: target failed: {exc}")
        if sched.get("ActionAfterCompletion") == "DELETE":
            self.schedules.pop(name, None)

    def create(self, name: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
        m = AT_RE.match(str(body.get("ScheduleExpression", "")))
        if not m:
            return 400, {"Message": "only one-time at(yyyy-mm-ddThh:mm:ss) schedules are supported locally"}, \
                "ValidationException"
        if name in self.schedules:
            return 409, {"Message": f"Schedule {name} already exists."}, "ConflictException"
        if not isinstance(body.get("Target"), dict) or not body["Target"].get("Arn"):
            return 400, {"Message": "Target.Arn is required"}, "ValidationException"
        try:
            self.runtime.resolve(body["Target"]["Arn"])
        except LookupError as exc:
            return 400, {"Message": str(exc)}, "ValidationException"
        when = timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
        self.schedules[name] = body
        loop = asyncio.get_running_loop()
        self.handles[name] = loop.call_later(max(0.0, when - time.time()), self._fire, name)
        return 200, {"ScheduleArn": f"arn:aws:scheduler:us-east-1:123456789012:schedule/default/{name}"}, ""

    def delete(self, name: str) -> tuple[int, dict[str, Any], str]:
        if self.schedules.pop(name, None) is None:
            return 404, {"Message": f"Schedule {name} does not exist."}, "ResourceNotFoundException"
        handle = self.handles.pop(name, None)
        if handle is not None:
            handle.cancel()
        return 200, {}, ""

    def get(self, name: str) -> tuple[int, dict[str, Any], str]:
        sched = self.schedules.get(name)
        if sched is None:
            return 404, {"Message": f"Schedule {name} does not exist."}, "ResourceNotFoundException"
        return 200, {"Name": name, "State": "ENABLED", **sched}, ""

    def handle(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, Any], str]:
        """``path`` is ``/schedules/{name}``; returns (status, document, error type)."""
        name = unquote(path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1])
        if method == "POST":
            try:
                doc = json.loads(body or b"{}")
            except ValueError:
                return 400, {"Message": "invalid JSON"}, "ValidationException"
            return self.create(name, doc)
        if method == "DELETE":
            return self.delete(name)
        if method == "GET":
            return self.get(name)
        return 405, {"Message": "method not allowed"}, "ValidationException"
