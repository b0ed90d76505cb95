"""Retries say what they do: ``total_max_attempts`` is the number of requests sent for one call, and a
browser invocation (it runs actions) is sent at most once, even when its answer is late."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agenthost import aws
from tests.support.timing import settled


class Endpoint:
    """A loopback AWS endpoint that counts requests; each answers a 500 or, with ``delay``, answers late."""

    def __init__(self, delay: float = 0.0):
        self.requests = 0
        self.delay = delay
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    outer.requests += 1
                if outer.delay:
                    time.sleep(outer.delay)
                body = json.dumps({"__type": "InternalServerError", "message": "try later"}).encode()
                try:
                    self.send_response(500)
                    self.send_header("content-type", "application/x-amz-json-1.0")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up waiting
                    pass

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    made = []

    def make(delay=0.0):
        made.append(Endpoint(delay))
        return made[-1]

    yield make
    for e in made:
        e.close()


@pytest.mark.parametrize("total", [1, 2])
def test_total_max_attempts_is_the_number_of_requests_sent(endpoint, total):
    ep = endpoint()
    ddb = aws.client("dynamodb", endpoint_url=ep.url, total_max_attempts=total)
    with pytest.raises(Exception, match="InternalServerError"):
        ddb.get_item(TableName="t", Key={"pk": {"S": "a"}})
    assert ep.requests == total


def test_botocores_retry_count_is_refused_rather_than_read_two_ways():
    with pytest.raises(TypeError, match="total_max_attempts"):
        aws.client("dynamodb", max_attempts=1)


def test_a_browser_action_is_never_resent_after_a_read_timeout(endpoint, monkeypatch):
    from agenthost.browser import Browser, BrowserError

    ep = endpoint(delay=2.5)  # the function is still clicking when the client stops waiting
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", ep.url)
    aws.reset()
    with pytest.raises(BrowserError):
        Browser("BrowserFunction", read_timeout=1).run("s1", [{"tool": "click", "element": "Pay now"}])
    # the endpoint counts on its own thread, which a loaded machine may run after the client gave up; a resent
    # request would have been sent a whole read timeout before the client raised
    assert settled(lambda: ep.requests, lambda n: n >= 1) == 1


def test_the_clients_that_cut_a_turn_are_sized_as_their_docs_say():
    from agenthost import secrets
    from agenthost.llm.bedrock import BedrockProvider

    secrets_client = aws.client("ssm", connect_timeout=secrets.SECRET_CONNECT_TIMEOUT_S,
                                read_timeout=secrets.SECRET_READ_TIMEOUT_S,
                                total_max_attempts=secrets.SECRET_TOTAL_ATTEMPTS)
    assert secrets_client.meta.config.retries["total_max_attempts"] == 2  # "2 attempts"
    bedrock = BedrockProvider("m", endpoint_url="http://127.0.0.1:9").client(3.0)
    assert bedrock.meta.config.retries["total_max_attempts"] == 1  # retries off: one request per attempt
