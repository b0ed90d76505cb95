"""One root for every exception agenthost defines, and a small hierarchy by what the caller can do about it.

::

    AgentHostError
    ├── BadInput       the input cannot be used as given: send something else (a body too deep or too
    │                  large, an invalid evaluation definition, a cart line over its bound, a full cart)
    ├── Unauthorized   the request failed authentication (a bad or missing webhook signature)
    ├── Forbidden      understood, and refused by policy (a URL the network guard blocks)
    ├── NotFound       it is not there, or no longer (a session, a cart line, a WebSocket connection, a secret)
    ├── Conflict       another write came first (a refused conditional write, an idempotency claim in use)
    ├── Upstream       another service answered with an error or not at all (the LLM, an agents.json
    │   │              site, the browser function, a fetched document)
    │   └── Unavailable    ... and trying again later may help (a timeout, a throttle, a 5xx, a key
    │                      that could not be fetched in time, a connection gone mid-send, a missing engine)
    ├── Declined       code asked for an answer gave none that can be used (a plugin, a skill)
    ├── ActionError    a browser action could not be carried out on the page (the message says why)
    └── ApiError       an answer with its own HTTP status, in the app's error shape (``agenthost.webapp``)

The classes here carry no behaviour: each protocol keeps answering in its own error shape, decided where the
error is caught (a webhook still answers 200 with its idle reply, the agents.json site its envelope, the
Proxy API its JSON error). The hierarchy lets a caller catch by kind (``except errors.Unavailable``) and lets
one test prove that every exception defined under ``layers/`` and ``functions/`` descends from
:class:`AgentHostError`. Classes that were already a ``ValueError``/``LookupError``/``TimeoutError`` stay one
as well, so existing ``except`` clauses catch what they caught before.
"""

from __future__ import annotations


class AgentHostError(Exception):
    """The root of every exception agenthost defines."""


class BadInput(AgentHostError):
    """The input cannot be used as given."""


class Unauthorized(AgentHostError):
    """The request failed authentication."""


class Forbidden(AgentHostError):
    """Understood, and refused by policy."""


class NotFound(AgentHostError):
    """It is not there, or no longer."""


class Conflict(AgentHostError):
    """Another write came first."""


class Upstream(AgentHostError):
    """Another service answered with an error or not at all."""


class Unavailable(Upstream):
    """A dependency failed in a way that trying again later may fix."""


class Declined(AgentHostError):
    """Code asked for an answer gave none that can be used."""
