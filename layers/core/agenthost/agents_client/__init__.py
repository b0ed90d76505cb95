"""Client for sites that speak the agents.json Interaction API (discovery, sessions, calls, checkout handoff).

Discovery reads ``/.well-known/agents.json`` (falling back to ``/.well-known/agents.txt``), resolves
relative endpoints against the document's URL, and keeps each capability's method, endpoint and whether
it needs a session. Calls then follow the spec's rules:

* a session is created on first need, renewed once when the site answers 401, and ended on request;
* 429 waits ``Retry-After`` seconds (exponential 1/2/4 s when absent) and retries, up to ``max_retries``;
* 5xx and network errors back off exponentially, up to ``max_retries`` (3) retries; POSTs carry one
  ``Idempotency-Key`` across their retries so a retry never adds twice; a 409 (the site is still running
  the first request with that key) is retried once after ``Retry-After`` (1 s when absent);
* requests are paced to the site's ``rate_limit.requests_per_minute`` (the spec's SHOULD): never more than
  that many in any 60 s, waiting for the oldest to leave the window (``pace=False`` turns this off);
* 400 and 404 are never retried: :class:`AgentsApiError` carries the site's message;
* checkout returns a :class:`Handoff` with the URL for the human; the client never follows it.

Outbound requests go through :func:`agenthost.netguard.guarded_client` unless an ``httpx.Client`` is
given. Example::

    >>> from agenthost.agents_client import AgentsClient
    >>> with AgentsClient("https://shop.example") as shop:  # doctest: +SKIP
    ...     mug = shop.search("blue mug", limit=1)[0]
    ...     shop.add_to_cart(mug["id"], 2)
    ...     print(shop.checkout().url)          # give this to the human

Command line: ``python -m agenthost.agents_client https://shop.example search "blue mug"``.

Modules: ``site`` (the description: :class:`Site`, :class:`Capability`, errors, agents.txt parsing),
``client`` (:class:`AgentsClient`: HTTP, sessions, retries, pacing), ``cli`` (the command line).
"""

from agenthost.agents_client.client import USER_AGENT, AgentsClient
from agenthost.agents_client.site import (
    BASE_PATH,
    AgentsApiError,
    Capability,
    DiscoveryError,
    Handoff,
    Site,
    parse_agents_txt,
)

__all__ = ["BASE_PATH", "USER_AGENT", "AgentsApiError", "AgentsClient", "Capability", "DiscoveryError", "Handoff",
           "Site", "parse_agents_txt"]
