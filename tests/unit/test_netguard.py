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
    assert check_url("http://127.0.0.1:3000/", allow_private=True, allow=()) == ["127.0.0.1"]
    with pytest.raises(Blocked, match="metadata"):
        check_url("http://169.254.169.254/", allow_private=True, allow=())


def test_allow_list_by_host_and_cidr():
    dns = fake_dns({"intranet": ["10.0.0.7"], "other": ["10.0.0.8"], "elsewhere": ["10.0.1.9"]})
    assert check_url("http://intranet/", resolver=dns, allow_private=False, allow=["intranet"]) == ["10.0.0.7"]
    assert check_url("http://other/", resolver=dns, allow_private=False, allow=["10.0.0.0/24"]) == ["10.0.0.8"]
    with pytest.raises(Blocked, match="private"):  # outside the listed host and range
        check_url("http://elsewhere/", resolver=dns, allow_private=False, allow=["intranet", "10.0.0.0/24"])


def test_unresolvable_host():
    def boom(host, port):
        raise socket.gaierror("nope")
    with pytest.raises(Blocked, match="cannot resolve"):
        check_url("http://no.such.host.invalid/", resolver=boom, allow_private=False, allow=())


def test_guarded_client_checks_redirect_targets():
    served: list[str] = []

    class H(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            served.append(self.path)
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
            assert isinstance(client, httpx.Client)  # callers use it as the httpx client it is
            assert client.get(base + "/plain").text == "ok"
            with pytest.raises(Blocked, match="metadata"):
                client.get(base + "/start")
        assert served == ["/plain", "/start"]
        with guarded_client(allow_private=False, allow=()) as client, pytest.raises(Blocked, match="loopback"):
            client.get(base + "/plain")
        assert served == ["/plain", "/start"]  # the refused request never reached the server
    finally:
        server.shutdown()


class _Recorder(BaseHTTPRequestHandler):
    hosts: list[str] = []

    def do_GET(self):  # noqa: N802
        type(self).hosts.append(self.headers.get("Host", ""))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *a):
        pass


def _serve(host, port=0, wrap=None):
    server = HTTPServer((host, port), type("H", (_Recorder,), {"hosts": []}))
    if wrap is not None:
        server.socket = wrap(server.socket)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _pair():
    """Servers on 127.0.0.1 and 127.0.0.2 with the same port (one URL, two possible addresses)."""
    for _ in range(50):
        good = _serve("127.0.0.1")
        try:
            return good, _serve("127.0.0.2", good.server_port)
        except OSError:
            good.shutdown()
            good.server_close()
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


def test_guarded_client_connects_to_the_address_it_checked():
    """DNS rebinding: the name answers an allowed address to one lookup and a blocked one to the next.
    The connection only ever goes to an address a check approved; Host stays the URL's name."""
    _assert_connections_pinned()


def _assert_connections_pinned() -> None:
    good, canary = _pair()
    port = good.server_port
    try:
        answers = {"stable.test": [["127.0.0.1"]], "rebind.test": [["127.0.0.1"], ["127.0.0.2"]]}
        calls = []

        def resolver(host, _port):
            calls.append(host)
            seq = answers[host]
            return seq[(calls.count(host) - 1) % len(seq)]

        with guarded_client(resolver=resolver, allow=["127.0.0.1"], allow_private=False) as client:
            # a name the system resolver does not know: the connection used the checked answer
            assert client.get(f"http://stable.test:{port}/a").text == "ok"
            assert good.RequestHandlerClass.hosts[-1] == f"stable.test:{port}"
            # the request check sees 127.0.0.1; the connection's own check sees 127.0.0.2 and refuses
            with pytest.raises(Blocked, match="127.0.0.2 is loopback"):
                client.get(f"http://rebind.test:{port}/b")
        assert canary.RequestHandlerClass.hosts == []
    finally:
        good.shutdown()
        canary.shutdown()


def test_guarded_client_keeps_tls_sni_and_certificate_checks(tmp_path):
    import ssl
    import subprocess

    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=tls.rebind.test", "-addext", "subjectAltName=DNS:tls.rebind.test"],
                   check=True, capture_output=True)
    seen = []
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(str(cert), str(key))
    server_ctx.sni_callback = lambda sock, name, ctx: seen.append(name)
    server = _serve("127.0.0.1", wrap=lambda sock: server_ctx.wrap_socket(sock, server_side=True))
    try:
        client_ctx = ssl.create_default_context(cafile=str(cert))
        url = f"https://tls.rebind.test:{server.server_port}/"
        with guarded_client(resolver=lambda h, p: ["127.0.0.1"], allow=["127.0.0.1"], allow_private=False,
                            verify=client_ctx) as client:
            assert client.get(url).text == "ok"
        assert seen == ["tls.rebind.test"]
        assert server.RequestHandlerClass.hosts == [f"tls.rebind.test:{server.server_port}"]
    finally:
        server.shutdown()


def test_the_pinning_survives_an_httpx_that_keeps_its_pool_elsewhere(monkeypatch):
    """An httpx upgrade may rename or rebuild what ``HTTPTransport`` keeps inside (its connection pool is
    private). The guard is built on httpx's public transport interface, so such a change cannot route a
    connection around the check: here every ``HTTPTransport`` keeps its pool under another name, and the
    guarded client still connects only to the address its check approved."""
    real_init = httpx.HTTPTransport.__init__

    def init_elsewhere(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.__dict__["_moved_pool"] = self.__dict__.pop("_pool")

    def handle_elsewhere(self, request):
        self.__dict__["_pool"] = self.__dict__["_moved_pool"]  # it reads its own pool, whatever was set on it
        try:
            return real_handle(self, request)
        finally:
            self.__dict__.pop("_pool", None)

    real_handle = httpx.HTTPTransport.handle_request
    monkeypatch.setattr(httpx.HTTPTransport, "__init__", init_elsewhere)
    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", handle_elsewhere)
    _assert_connections_pinned()


def test_guarded_client_maps_transport_errors_to_httpx_errors():
    """Callers catch httpx's own exceptions: a refused connection and a read timeout arrive as those."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    with guarded_client(allow=["127.0.0.1"], allow_private=False) as client, pytest.raises(httpx.ConnectError):
        client.get(f"http://127.0.0.1:{closed}/")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts (the kernel's backlog) and never answers
    try:
        with guarded_client(allow=["127.0.0.1"], allow_private=False, timeout=0.3) as client, \
                pytest.raises(httpx.ReadTimeout):
            client.get(f"http://127.0.0.1:{listener.getsockname()[1]}/")
    finally:
        listener.close()
