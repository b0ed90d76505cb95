import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest

from agenthost.netguard import Blocked, check_url, guarded_client


def fake_dns(mapping):
    return lambda host, port: mapping[host]


@pytest.mark.parametrize("url,ips,reason", [
    ("http://169.254.169.254/latest/meta-data", ["169.254.169.254"], "metadata"),
    ("http://metadata.internal/", ["fd00:ec2::254"], "metadata"),
    ("http://evil.example/", ["10.1.2.3"], "private"),
    ("http://evil.example/", ["93.184.216.34", "192.168.0.5"], "private"),
    ("http://localhost:8080/", ["127.0.0.1"], "loopback"),
    ("http://x.example/", ["::ffff:127.0.0.1"], "loopback"),
    ("http://x.example/", ["0.0.0.0"], "unspecified"),
    ("http://x.example/", ["100.64.0.1"], "reserved"),
    ("http://x.example/", ["169.254.10.10"], "link-local"),
])
def test_blocks_non_public_after_resolution(url, ips, reason):
    host = url.split("/")[2].split(":")[0]
    with pytest.raises(Blocked) as exc:
        check_url(url, resolver=fake_dns({host: ips}), allow_private=False, allow=())
    assert reason in exc.value.reason


def test_allows_public_and_reports_addresses():
    got = check_url("https://example.com/a?b", resolver=fake_dns({"example.com": ["93.184.216.34"]}),
                    allow_private=False, allow=())
    assert got == ["93.184.216.34"]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "ftp://x/", "http:///nohost", "http://[::1"])
def test_bad_schemes_and_urls(url):
    with pytest.raises(Blocked):
        check_url(url, resolver=fake_dns({}), allow_private=False, allow=())


def test_allow_private_never_allows_metadata():
    check_url("http://127.0.0.1:3000/", allow_private=True, allow=())
    with pytest.raises(Blocked, match="metadata"):
        check_url("http://169.254.169.254/", allow_private=True, allow=())


def test_allow_list_by_host_and_cidr():
    check_url("http://intranet/", resolver=fake_dns({"intranet": ["10.0.0.7"]}), allow_private=False,
              allow=["intranet"])
    check_url("http://other/", resolver=fake_dns({"other": ["10.0.0.8"]}), allow_private=False,
              allow=["10.0.0.0/24"])


def test_unresolvable_host():
    def boom(host, port):
        raise socket.gaierror("nope")
    with pytest.raises(Blocked, match="cannot resolve"):
        check_url("http://no.such.host.invalid/", resolver=boom, allow_private=False, allow=())


def test_guarded_client_checks_redirect_targets():
    class H(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path == "/start":
                self.send_response(302)
                self.send_header("Location", "http://169.254.169.254/latest/meta-data")
                self.end_headers()
            else:
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

        def log_message(self, *a):
            pass

    server = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        with guarded_client(allow=["127.0.0.1"], allow_private=False, follow_redirects=True) as client:
            assert client.get(base + "/plain").text == "ok"
            with pytest.raises(Blocked, match="metadata"):
                client.get(base + "/start")
        with guarded_client(allow_private=False, allow=()) as client, pytest.raises(Blocked, match="loopback"):
            client.get(base + "/plain")
        assert httpx  # the guard wraps a normal httpx client
    finally:
        server.shutdown()
