"""One-time timers through EventBridge Scheduler (``at(...)`` schedules that invoke this function).

No Lambda ever waits for a client: a deadline is recorded in DynamoDB, a one-time schedule invokes the
evaluation function at that moment with ``{"agenthost": "deadline", ...}``, and every read checks
deadlines lazily as well, so a lost timer only delays enforcement until the next message.

Locally the stack serves a Scheduler-compatible endpoint (``AWS_ENDPOINT_URL_SCHEDULER``) that invokes
the target function at the time. Schedules delete themselves after firing (``ActionAfterCompletion``).
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from typing import Any

from agenthost import aws
from agenthost.webapp import logger

_NAME_OK = re.compile(r"[^0-9A-Za-z_.-]")


class Timers:
    """Creates one-time schedules. ``target`` is the function ARN (or name locally)."""

    def __init__(self, target: str, role_arn: str = "", group: str = ""):
        self.target = target
        from agenthost.config import settings

        self.role_arn = role_arn or settings().evals_scheduler_role
        self.group = group or settings().evals_schedule_group
        self.created = 0

    def schedule(self, name: str, at_epoch_s: float, payload: dict[str, Any]) -> bool:
        """Invoke the target with ``payload`` at ``at_epoch_s`` (rounded up to the second). False on failure."""
        when = datetime.fromtimestamp(math.ceil(at_epoch_s), UTC).strftime("%Y-%m-%dT%H:%M:%S")
        kwargs: dict[str, Any] = {
            "Name": _NAME_OK.sub("-", name)[:64],
            "ScheduleExpression": f"at({when})",
            "ScheduleExpressionTimezone": "UTC",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "ActionAfterCompletion": "DELETE",
            "Target": {"Arn": self.target, "RoleArn": self.role_arn or "arn:aws:iam::000000000000:role/local",
                       "Input": json.dumps(payload, separators=(",", ":")),
                       "RetryPolicy": {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 300}},
        }
        if self.group:
            kwargs["GroupName"] = self.group
        try:
            aws.client("scheduler").create_schedule(**kwargs)
            self.created += 1
            return True
        except Exception as exc:  # noqa: BLE001 - deadlines are still enforced lazily on every read
            logger.warning("timer not scheduled; deadline enforced on next read", extra={"error": type(exc).__name__})
            return False


class NoTimers:
    """For tests and tools that drive deadlines themselves. Like Scheduler, it refuses a second schedule under
    a name already used (``refused`` lists them) and creates nothing for it."""

    def __init__(self) -> None:
        self.scheduled: list[tuple[str, float, dict[str, Any]]] = []
        self.refused: list[str] = []
        self.created = 0

    def schedule(self, name: str, at_epoch_s: float, payload: dict[str, Any]) -> bool:
        if any(n == name for n, _, _ in self.scheduled):
            self.refused.append(name)
            return False
        self.scheduled.append((name, at_epoch_s, payload))
        self.created += 1
        return True
