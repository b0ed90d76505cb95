"""A loopback TCP endpoint that stands where DynamoDB should be and fails the way a real one can.

Modes (each a real socket on 127.0.0.1; botocore talks to it over HTTP as it would to DynamoDB):

* ``hung``: accepts every connection and never answers (reads nothing, holds it open);
* ``dropped``: reads the request's headers, then closes the connection without a word;
* ``throttled``: answers every request with DynamoDB's ``ProvisionedThroughputExceededException`` (400);
* ``failing``: answers every request with DynamoDB's ``InternalServerError`` (500);
* ``unreachable``: nothing listens at the address: the port is held by a socket that never listens, so every
  connection is refused (a port bound and released could be taken by another test's server meanwhile).

``connections`` counts the connections accepted, ``requests`` the requests answered or dropped. The
endpoint accepts on its own thread, so a client may give up on a connection the kernel completed before
that thread has counted it (on a loaded machine, seconds later): read it with ``tests.support.timing.settled``.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

_ERRORS = {
    "throttled": (400, "ProvisionedThroughputExceededException", "The level of configured provisioned throughput "
                  "for the table was exceeded."),
    "failing": (500, "InternalServerError", "Internal server error"),
}
MODES = ("hung", "dropped", "throttled", "failing", "unreachable")


class FaultyDynamo:
    def __init__(self, mode: str):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.connections = 0
        self.requests = 0
        self._held: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        if mode == "unreachable":
            self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.server.bind(("127.0.0.1", 0))  # held, never listening: connections are refused
            self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
            return
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self.connections += 1
                self._held.append(conn)
            if self.mode != "hung":  # hung: held open, never read, never answered
                threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                head, body_len = self._read_head(conn)
                if head is None:
                    return
                with self._lock:
                    self.requests += 1
                if self.mode == "dropped":
                    conn.close()
                    return
                self._read_body(conn, body_len)
                status, code, message = _ERRORS[self.mode]
                body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}",
                                   "message": message}).encode()
                reason = "Bad Request" if status == 400 else "Internal Server Error"
                conn.sendall(f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/x-amz-json-1.0\r\n"
                             f"x-amzn-requestid: test\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body)
        except OSError:
            return

    @staticmethod
    def _read_head(conn: socket.socket) -> tuple[bytes | None, int]:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None, 0
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip() or 0)
        return head, max(0, length - len(rest))

    @staticmethod
    def _read_body(conn: socket.socket, length: int) -> None:
        while length > 0:
            chunk = conn.recv(min(length, 65536))
            if not chunk:
                return
            length -= len(chunk)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            held, self._held = self._held, []
        try:
            self.server.close()
        except OSError:
            pass
        for conn in held:
            try:
                conn.close()
            except OSError:
                pass

    def __enter__(self) -> FaultyDynamo:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
