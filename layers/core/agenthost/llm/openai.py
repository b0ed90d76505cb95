"""OpenAI-compatible chat completions through httpx (OpenRouter, OpenAI, vLLM, Ollama...)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

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
)

_RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIProvider:
    """``POST {base_url}/chat/completions`` asking for a JSON-schema answer (JSON-object mode as fallback)."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str = "https://api.openai.com/v1",
                 api_key: str | Callable[[], str] = "", max_tokens: int = 1200,
                 transport: httpx.BaseTransport | None = None):
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.max_tokens = max_tokens
        self._transport = transport
        #: False once the server rejected ``json_schema`` (remembered for the warm container)
        self.schema_mode = True
        self._http: httpx.Client | None = None
        self._http_lock = threading.Lock()

    def _key(self) -> str:
        return self._api_key() if callable(self._api_key) else self._api_key

    @property
    def http(self) -> httpx.Client:
        """One client per provider (connections kept alive between turns); timeouts are set per request."""
        if self._http is None:
            with self._http_lock:
                if self._http is None:
                    self._http = httpx.Client(transport=self._transport, timeout=httpx.Timeout(30.0, connect=2.0),
                                              limits=httpx.Limits(max_connections=16, max_keepalive_connections=4))
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                      deadline: Deadline | float) -> tuple[dict[str, Any], Usage]:
        """The answer and the usage of every attempt (an invalid first reply's tokens included); on failure
        the raised :class:`LlmError` carries that usage."""
        return complete_with_retry(deadline, lambda: self._once(messages, schema, deadline))

    def _once(self, messages: list[dict[str, Any]], schema: dict[str, Any],
              deadline: Deadline | float) -> tuple[dict[str, Any], Usage]:
        left = max(remaining(deadline), 0.1)
        timeout = httpx.Timeout(left, connect=min(2.0, left))
        headers = {"Content-Type": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        started = time.monotonic()
        http = self.http
        if self.schema_mode:
            body = self._body(messages, {"type": "json_schema", "json_schema": {
                "name": "response", "schema": schema, "strict": False}})
            resp = self._post(http, body, headers, timeout)
            if resp.status_code in (400, 404, 415, 422) and _rejects_schema(resp):
                self.schema_mode = False
            else:
                return self._read(resp, schema, started)
        hint = {"role": "system", "content": "Answer with one JSON object only, following this JSON schema: "
                + json.dumps(schema, separators=(",", ":"))}
        body = self._body([*messages, hint], {"type": "json_object"})
        left = max(remaining(deadline), 0.1)
        return self._read(self._post(http, body, headers, httpx.Timeout(left, connect=min(2.0, left))), schema,
                          started)

    def _body(self, messages: list[dict[str, Any]], fmt: dict[str, Any]) -> dict[str, Any]:
        return {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens,
                "response_format": fmt}

    def _post(self, http: httpx.Client, body: dict[str, Any], headers: dict[str, str],
              timeout: httpx.Timeout) -> httpx.Response:
        try:
            return http.post(f"{self.base_url}/chat/completions", json=body, headers=headers, timeout=timeout)
        except httpx.TimeoutException:
            raise LlmTimeout("the model did not answer before the deadline") from None
        except httpx.HTTPError as exc:
            raise LlmRetryable(f"cannot reach the model endpoint ({exc.__class__.__name__})") from None

    def _read(self, resp: httpx.Response, schema: dict[str, Any], started: float) -> tuple[dict[str, Any], Usage]:
        if resp.status_code in _RETRYABLE:
            raise LlmRetryable(f"the model endpoint answered {resp.status_code}")
        if resp.status_code >= 400:
            raise LlmError(f"the model endpoint answered {resp.status_code}")
        try:
            data = resp.json()
        except ValueError:
            raise LlmInvalid("the model endpoint returned an unexpected body") from None
        u = data.get("usage") if isinstance(data, dict) else None
        u = u if isinstance(u, dict) else {}
        usage = Usage(input_tokens=int(u.get("prompt_tokens") or 0), output_tokens=int(u.get("completion_tokens") or 0),
                      calls=1, latency_ms=int((time.monotonic() - started) * 1000))
        try:
            try:
                choice = data["choices"][0]["message"]
                content = choice.get("content")
                if not content and choice.get("tool_calls"):
                    content = choice["tool_calls"][0]["function"]["arguments"]
            except (KeyError, IndexError, TypeError, AttributeError):
                raise LlmInvalid("the model endpoint returned an unexpected body") from None
            obj = content if isinstance(content, dict) else parse_json(str(content or ""))
            return check_required(obj, schema), usage
        except LlmInvalid as exc:  # the reply was billed even though it is unusable
            exc.usage = usage
            raise


def _rejects_schema(resp: httpx.Response) -> bool:
    text = resp.text.lower()
    return any(w in text for w in ("response_format", "json_schema", "schema", "not supported", "unsupported"))
