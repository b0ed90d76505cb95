"""Call a Lambda handler with the same API Gateway events the local gateway builds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from infra.local.events import LambdaContext, function_url_event, http_event, http_response


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode()


def call(handler: Any, method: str, path: str, *, json_body: Any = None, body: bytes | str | None = None,
         headers: dict[str, str] | None = None, query: str | dict | None = None,
         path_parameters: dict[str, str] | None = None, function_name: str = "test-fn",
         via_url: bool = False) -> Response:
    """``via_url``: the event a Lambda function URL delivers instead of the HTTP API's."""
    hdrs = dict(headers or {})
    if json_body is not None:
        body = json.dumps(json_body)
        hdrs.setdefault("content-type", "application/json")
    event = (function_url_event(method, path, body=body, headers=hdrs, query=query) if via_url else
             http_event(method, path, body=body, headers=hdrs, query=query, path_parameters=path_parameters))
    status, out_headers, out = http_response(handler(event, LambdaContext(function_name)))
    return Response(status, {k: v for k, v in out_headers}, out)
