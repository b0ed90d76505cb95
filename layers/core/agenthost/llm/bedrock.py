"""Amazon Bedrock through boto3 ``bedrock-runtime`` Converse, forcing a tool call for a structured answer."""

from __future__ import annotations

import time
from typing import Any

from agenthost.deadline import Deadline
from agenthost.llm.base import (
    LlmError,
    LlmInvalid,
    LlmRetryable,
    LlmTimeout,
    Usage,
    check_required,
    complete_with_retry,
    parse_json,
    remaining,
    split_system,
)

TOOL = "respond"


class BedrockProvider:
    """Converse with ``toolChoice`` forcing the ``respond`` tool whose input schema is the answer schema."""

    name = "bedrock"

    def __init__(self, model: str, *, client: Any = None, endpoint_url: str | None = None, region: str | None = None,
                 max_tokens: int = 1200):
        self.model = model
        self._client = client
        self._endpoint = endpoint_url
        self._region = region
        self.max_tokens = max_tokens

    @property
    def base_url(self) -> str:
        from agenthost.config import settings

        return self._endpoint or f"https://bedrock-runtime.{self._region or settings().region}.amazonaws.com"

    def client(self, read_timeout: float) -> Any:
        """A client whose timeouts fit the time left: one per whole second of read timeout, botocore retries
        off, all from the process's one boto3 session (:func:`agenthost.aws.client` caches them)."""
        if self._client is not None:
            return self._client
        from agenthost import aws

        bucket = max(1, int(read_timeout))
        return aws.client("bedrock-runtime", endpoint_url=self._endpoint, region_name=self._region,
                          connect_timeout=min(2, bucket), read_timeout=bucket, total_max_attempts=1)

    def request(self, messages: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any]:
        system, rest = split_system(messages)
        convo: list[dict[str, Any]] = []
        for m in rest:
            role = "assistant" if m.get("role") == "assistant" else "user"
            text = str(m.get("content", ""))
            if convo and convo[-1]["role"] == role:
                convo[-1]["content"][0]["text"] += "\n\n" + text
            else:
                convo.append({"role": role, "content": [{"text": text}]})
        req: dict[str, Any] = {
            "modelId": self.model,
            "messages": convo,
            "inferenceConfig": {"maxTokens": self.max_tokens, "temperature": 0},
            "toolConfig": {
                "tools": [{"toolSpec": {"name": TOOL, "description": "Give your answer as this tool's input.",
                                        "inputSchema": {"json": schema}}}],
                "toolChoice": {"tool": {"name": TOOL}},
            },
        }
        if system:
            req["system"] = [{"text": system}]
        return req

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                      deadline: Deadline | float) -> tuple[dict[str, Any], Usage]:
        """The answer and the usage of every attempt (an invalid first reply's tokens included); on failure
        the raised :class:`LlmError` carries that usage."""
        req = self.request(messages, schema)
        return complete_with_retry(deadline, lambda: self._once(req, schema, deadline))

    def _once(self, req: dict[str, Any], schema: dict[str, Any],
              deadline: Deadline | float) -> tuple[dict[str, Any], Usage]:
        from agenthost import aws

        started = time.monotonic()
        try:
            resp = self.client(max(remaining(deadline), 0.1)).converse(**req)
        except Exception as exc:
            found = aws.fault(exc, "bedrock-runtime")  # what an AWS error means is decided there
            if found is None:
                raise
            if found.reason == "timeout" and found.status == 0:
                raise LlmTimeout("the model did not answer before the deadline") from None
            if found.retryable:
                raise LlmRetryable(f"Bedrock answered {found.code}" if found.status
                                   else f"cannot reach Bedrock ({found.code})") from None
            raise LlmError(f"Bedrock answered {found.code or 'an error'}") from None
        u = resp.get("usage") or {}
        usage = Usage(input_tokens=int(u.get("inputTokens") or 0), output_tokens=int(u.get("outputTokens") or 0),
                      calls=1, latency_ms=int((time.monotonic() - started) * 1000))
        try:
            content = ((resp.get("output") or {}).get("message") or {}).get("content") or []
            for block in content:
                tool_use = block.get("toolUse")
                if tool_use and isinstance(tool_use.get("input"), dict):
                    return check_required(tool_use["input"], schema), usage
            text = "\n".join(b.get("text", "") for b in content if "text" in b)
            if not text:
                raise LlmInvalid("Bedrock returned neither a tool call nor text")
            obj = parse_json(text)
            return check_required(obj, schema), usage
        except LlmInvalid as exc:  # the reply was billed even though it is unusable
            exc.usage = usage
            raise

