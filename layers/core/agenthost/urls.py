"""URLs as the agent and the protocols compare them: a URL's host, its origin, and the site a host belongs to.

The one place these are computed (the web agent's off-site rule and its LLM policy's navigation check,
careful mode's trusted sites, the AI Olympics task key, the agents.json client's discovery).

* :func:`host` - the lower-case host name of a URL ("" when it has none or cannot be parsed);
* :func:`origin` - ``scheme://host[:port]`` in lower case, user info dropped ("" without scheme or host);
* :func:`hosts_in` - the host names a text names: the hosts of its URLs and bare host names
  (``mail.example.com``), not the domain of an e-mail address (an address is no reason to trust a site);
* :func:`site` - the registrable part of a host by the Public Suffix List (``login.shop.example.co.uk`` ->
  ``example.co.uk``; ``a.github.io`` and ``evil.github.io`` are two sites, as are two ``*.herokuapp.com``
  apps, because the list names ``github.io`` and ``herokuapp.com`` as suffixes under which anyone may
  register). IP addresses, single labels (``localhost``) and hosts that are suffixes themselves are their
  own site; a name under a suffix the list does not know (``shop.test``) counts its last label as the suffix.

The list is the ``publicsuffixlist`` package's snapshot, shipped in the layer with it (pinned in
``layers/core/requirements.txt``; a newer snapshot comes with a newer pin): nothing is fetched at run time.
It is loaded on the first :func:`site` call (about 60 ms), not at import, so cold starts that never compare
sites do not pay for it.
"""

from __future__ import annotations

import ipaddress
import re
from functools import cache
from typing import Any
from urllib.parse import urlsplit


def host(url: str) -> str:
    """The lower-case host name of ``url``, without brackets for IPv6; "" when there is none."""
    try:
        return (urlsplit(url or "").hostname or "").lower()
    except ValueError:
        return ""


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` in lower case (user info dropped); "" without a scheme or host."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return ""
    netloc = parts.netloc.rpartition("@")[2].lower()
    if not parts.scheme or not netloc:
        return ""
    return f"{parts.scheme.lower()}://{netloc}"


#: a host name in text: dot-separated labels ending in a letters-only label, not part of an e-mail address
_HOST_IN_TEXT = re.compile(r"(?<![\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![\w-]|\.\w)", re.I)


_URL_IN_TEXT = re.compile(r"\bhttps?://[^\s\"'<>)]+", re.I)


def hosts_in(text: str) -> list[str]:
    """The host names ``text`` names, lower case, once each: its URLs' hosts (IP addresses and ``localhost``
    too) first, then bare host names (see the module docstring)."""
    out: list[str] = []
    found = [host(u.rstrip(".,;")) for u in _URL_IN_TEXT.findall(text or "")]
    found += [m.group(1).lower() for m in _HOST_IN_TEXT.finditer(_URL_IN_TEXT.sub(" ", text or ""))
              if _known_suffix(m.group(1).lower())]
    for name in found:
        if name and name not in out:
            out.append(name)
    return out


@cache
def _suffixes() -> Any:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()  # the package's own snapshot of the list: no fetch


#: top-level names reserved for tests and examples (RFC 2606, RFC 6761): hosts, though on no public list
_RESERVED_TLDS = frozenset({"test", "example", "invalid", "localhost", "local"})


def _known_suffix(name: str) -> bool:
    """Whether a bare name written in text ends in a real public suffix (``shop.example.com``), not a word
    pair like a user name ``dana.novak`` or a file name ``notes.txt`` whose last part is no top-level domain."""
    tld = name.rsplit(".", 1)[-1]
    return tld in _RESERVED_TLDS or _suffixes().publicsuffix(name, accept_unknown=False) is not None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def site(host_name: str) -> str:
    """The site ``host_name`` belongs to: its registrable domain by the Public Suffix List, or the host itself
    when it is an IP address, a single label or a public suffix."""
    name = (host_name or "").strip().lower().strip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if not name or "." not in name or _is_ip(name):
        return name
    return str(_suffixes().privatesuffix(name) or name)


def same_site(a: str, b: str) -> bool:
    """Whether the URLs ``a`` and ``b`` are on one site (False when either has no host)."""
    ha, hb = host(a), host(b)
    return bool(ha and hb) and site(ha) == site(hb)
