"""agenthost.urls: hosts, origins and sites by the Public Suffix List, computed in one place."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from agenthost import urls

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("a", "b"), [
    ("a.github.io", "evil.github.io"),                 # anyone may register under github.io
    ("shop-one.herokuapp.com", "shop-two.herokuapp.com"),
    ("alice.blogspot.com", "mallory.blogspot.com"),
    ("one.s3.amazonaws.com", "two.s3.amazonaws.com"),
    ("a.pages.dev", "b.pages.dev"),
    ("bank.co.uk", "evil.co.uk"),
    ("shop.com.au", "shop.net.au"),
    ("city.kawasaki.jp", "other.kawasaki.jp"),         # a wildcard rule with an exception
])
def test_hosts_under_a_public_suffix_are_different_sites(a, b):
    assert urls.site(a) != urls.site(b)
    assert urls.site("login." + a) == urls.site(a)


@pytest.mark.parametrize(("host", "site"), [
    ("login.shop.test", "shop.test"), ("a.b.co.uk", "b.co.uk"), ("www.amazon.co.jp", "amazon.co.jp"),
    ("mail.example.com", "example.com"), ("deep.a.github.io", "a.github.io"), ("WWW.Example.COM.", "example.com"),
    ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("localhost", "localhost"),
    ("github.io", "github.io"), ("", ""),
])
def test_site_is_the_registrable_domain_or_the_host_itself(host, site):
    assert urls.site(host) == site


def test_host_and_origin():
    assert urls.host("HTTPS://User:pw@Shop.Example.com:8443/a?b#c") == "shop.example.com"
    assert urls.host("http://[::1]:3000/") == "::1"
    assert urls.host("not a url") == "" and urls.host("http://[::1/") == ""
    assert urls.origin("HTTPS://User:pw@Shop.Example.com:8443/a?b#c") == "https://shop.example.com:8443"
    assert urls.origin("http://[::1]:3000/x") == "http://[::1]:3000"
    assert urls.origin("/relative/path") == "" and urls.origin("") == "" and urls.origin("http://[::1/") == ""
    assert urls.same_site("https://a.github.io/x", "https://a.github.io/y")
    assert not urls.same_site("https://a.github.io/", "https://evil.github.io/")
    assert not urls.same_site("", "https://a.test/")


def test_the_list_is_the_shipped_snapshot_never_fetched(monkeypatch):
    """The list comes with the package in the layer: loading it opens no connection."""
    def no_network(*_a, **_k):
        raise AssertionError("the Public Suffix List was fetched")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    urls._suffixes.cache_clear()
    assert urls.site("x.y.herokuapp.com") == "y.herokuapp.com"
    pinned = (ROOT / "layers/core/requirements.txt").read_text()
    assert re.search(r"^publicsuffixlist==[\d.]+$", pinned, re.M)


def test_host_origin_and_site_are_computed_only_here():
    """No other module keeps its own copy of host/origin/site (grep for the old names and shapes)."""
    copies = re.compile(r"^\s*def (_?host_of|_host|_?origin|_?site_of|registrable\w*)\s*\(", re.M)
    found = []
    for folder in ("functions", "layers/core/agenthost", "infra"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "urls.py" and path.parent.name == "agenthost":
                continue
            found += [f"{path.relative_to(ROOT)}: {m.group(0).strip()}" for m in copies.finditer(path.read_text())]
    assert found == []


def test_a_bare_name_counts_as_a_host_only_when_it_ends_in_a_real_suffix():
    """A user name or a file name written with a dot is no site the task names (so a login on the task's own
    site still takes the task's password)."""
    text = "Sign in as dana.novak, read notes.txt, then visit shop.example.com, news.test and a.b.co.uk"
    assert urls.hosts_in(text) == ["shop.example.com", "news.test", "a.b.co.uk"]
