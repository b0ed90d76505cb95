"""The web guard: the rules every policy's decision follows, whoever proposed it.

:class:`WebGuard` puts any policy (ours, the LLM's, a user's agent) behind :func:`guard_decision`, the rules
every action follows: off-site navigation needs a reason in the task (:func:`off_site`, sites by the Public
Suffix List); a click that deletes something needs the task to ask for it (or careful mode's question); a
secret the task states goes only into a field of a secret kind on a site the task names. ``make_policy()``
returns its policy behind it, so every protocol's adapter gets each decision checked once. :class:`WebRules`
holds what one turn is checked against (the task, the page, the task's site, its secrets).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from agenthost import urls
from agenthost.agent.actions import Action, Decision
from agenthost.agent.guards import MAX_TEXT
from agenthost.agent.page import MASK, Element, Page
from agenthost.agent.risk import DELETE, DELETE_ICON, classify_risk
from agenthost.agent.task import TaskFacts, read_task
from agenthost.agent.wording import has_phrase, words

logger = logging.getLogger("agenthost.agent")

#: labels a task states its secrets under (passwords, PINs, card data, one-time codes): the values go only
#: into a field of a secret kind (:meth:`Element.is_secret`) on the task's site
_SECRET_LABELS = (("password", "password"), ("passcode", ""), ("PIN", ""), ("card number", ""), ("CVV", ""),
                  ("CVC", ""), ("security code", ""), ("one-time code", ""))
#: shorter secrets are only matched as a whole typed text (a 3-digit CVV is found in many harmless strings)
MIN_SECRET_IN_TEXT = 4


def off_site(url: str, home: str, facts: TaskFacts) -> bool:
    """Whether ``url`` is on another site than the task's (``home``) and the task gives no reason to go
    there (it names neither the host nor the site's name). Sites by the Public Suffix List."""
    host = urls.host(url)
    if not host or not home or urls.site(host) == urls.site(home):
        return False
    site = urls.site(host)
    name = site.split(".")[0]
    return not (host in facts.low or site in facts.low or (len(name) > 3 and has_phrase(facts.low, name))
                or any(urls.host(u) == host for u in facts.urls))


def home_of(facts: TaskFacts, page: Page, memory: dict[str, Any] | None = None) -> str:
    """The task's site's host: kept in ``memory["home"]`` once known, else the host of the first URL the task
    names, else the page's (the page a task starts on is its site)."""
    known = (memory or {}).get("home")
    if isinstance(known, str) and known:
        return known
    return urls.host(facts.urls[0]) if facts.urls else urls.host(page.url)


def task_secrets(facts: TaskFacts) -> list[str]:
    """The secrets the task states (a password, PIN, card number, security or one-time code), as written."""
    out: list[str] = []
    for label, input_type in _SECRET_LABELS:
        if not has_phrase(facts.low, label.lower()):
            continue  # the task must say it is a secret ("the promo code SPRING5" is no security code)
        value = facts.value_for(label, input_type)
        if value and value in facts.text and value not in out:  # stated, not made up
            out.append(value)
    return out


def _carries(text: str, secret: str) -> bool:
    return text == secret or (len(secret) >= MIN_SECRET_IN_TEXT and secret in text)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


@dataclass
class WebRules:
    """What the web guard checks a turn's actions against: the task, the page, the task's site."""

    facts: TaskFacts
    page: Page
    home: str
    careful: bool = False
    secrets: list[str] = field(default_factory=list)
    #: the sites the task's secrets may go to: those it names (URLs, host names; not e-mail domains), else
    #: its own (the site it started on)
    secret_sites: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, task: str, page: Page, memory: dict[str, Any] | None = None, *, careful: bool = False) -> WebRules:
        facts = read_task(task)
        home = home_of(facts, page, memory)
        sites = {urls.site(h) for h in urls.hosts_in(facts.text)} or ({urls.site(home)} if home else set())
        return cls(facts, page, home, careful, task_secrets(facts), sites)

    def navigation(self, url: str) -> str | None:
        """Why going to ``url`` is refused (None when allowed): another site than the task's and the current
        page's, which the task gives no reason to visit."""
        if urls.same_site(url, self.page.url) or not off_site(url, self.home, self.facts):
            return None
        return f"{urls.host(url) or url[:80]} is another site and the task gives no reason to go there"

    def refusal(self, a: Action) -> str | None:
        """Why ``a`` may not be sent (None when it may)."""
        el = a.resolved
        for secret in self.secrets:
            if not any(_carries(s, secret) for s in _strings(a.args)):
                continue
            if a.tool != "type" or not _carries(str(a.args.get("text", "")), secret):
                return f"{a.tool}: would carry a secret the task states"
            if el is None or not el.is_secret():
                return f"type: a secret the task states goes only into a password or card field, not {_label(el)}"
            if urls.site(urls.host(self.page.url)) not in self.secret_sites:
                return (f"type: a secret the task states goes only to the site the task names, not "
                        f"{urls.host(self.page.url) or 'this page'}")
        if a.tool == "navigate":
            return _prefixed("navigate", self.navigation(str(a.args.get("url", ""))))
        if a.tool == "click" and el is not None and el.role == "link" and el.href:
            return _prefixed("click", self.navigation(urljoin(self.page.url, el.href)))
        if not self.careful and (a.risk or classify_risk(a, self.page)) == "deletion" \
                and not self._asks_to_delete(el.name if el is not None else a.target):
            return f"{a.tool}: {_label(el)} deletes something, and the task does not ask for that"
        return None

    def _asks_to_delete(self, name: str) -> bool:
        """The task asks to delete what ``name`` deletes: it says delete/remove/close... and names the thing."""
        if not (DELETE.search(self.facts.text) or re.search(r"\b(?:[Tt]rash|[Bb]in)\s+(?:the|that|this|it|my|her|his|"
                                                             r"all)\b", self.facts.text)):
            return False  # "trash that email", "bin the draft": asked as well
        rest = words(DELETE.sub(" ", name or "")) - DELETE_ICON
        return not rest or bool(rest & self.facts.words)


def _label(el: Element | None) -> str:
    return repr(el.label or el.role) if el is not None else "an element"


def _prefixed(tool: str, why: str | None) -> str | None:
    return f"{tool}: {why}" if why else None


def guard_decision(decision: Decision, task: str, page: Page, memory: dict[str, Any] | None = None, *,
                   careful: bool = False) -> list[str]:
    """Apply the web guard's rules to ``decision`` in place; returns why actions were refused.

    Whichever policy decided (ours, the LLM's, a user's agent), its actions keep the prefix the rules allow:
    off-site navigation (a navigate, or a click on a link to another site) needs a reason in the task; a
    click that deletes something needs the task to ask for it (careful mode asks the user instead); a
    secret the task states goes only into a field of a secret kind on a site the task names (its own site
    when it names none), and into no other argument. The task's secrets are masked in the decision's
    reasoning and result, and the task's site is kept in ``decision.memory["home"]``."""
    rules = WebRules.of(task, page, memory if memory is not None else decision.memory, careful=careful)
    refused: list[str] = []
    kept: list[Action] = []
    for a in decision.actions:
        why = rules.refusal(a)
        if why is not None:
            refused.append(why)
            break  # the rest of a batch counted on this one
        kept.append(a)
    decision.actions = kept
    for secret in sorted(rules.secrets, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_IN_TEXT:
            decision.thinking = (decision.thinking or "").replace(secret, MASK)
            decision.result = decision.result.replace(secret, MASK) if decision.result else decision.result
    if rules.home:
        decision.memory = dict(decision.memory or {})
        decision.memory.setdefault("home", rules.home)
    return refused


class WebGuard:
    """Any policy behind the web guard: every decision it makes goes through :func:`guard_decision` once;
    when the rules leave it nothing to do, ``fallback`` (our deterministic policy) decides instead, checked
    the same way (``source`` ``<policy>+guard``; logged, and metered as the fallback ``guard``)."""

    def __init__(self, policy: Any, fallback: Any = None):
        self.policy = policy
        self.fallback = fallback

    @property
    def name(self) -> str:
        return str(getattr(self.policy, "name", "policy"))

    def decide(self, task: str, page: Page, history: Any = (), memory: dict[str, Any] | None = None,
               tools: Any = None, deadline: Any = None, **options: Any) -> Decision:
        careful = bool(options.get("careful"))
        d = self.policy.decide(task, page, history, memory, tools, deadline, **options)
        refused = guard_decision(d, task, page, memory, careful=careful)
        if not refused:
            return d
        logger.warning("web guard refused an action: %s", refused[0][:300],
                       extra={"guard_refused": len(refused), "source": d.source})
        if d.actions or d.done or d.stop or self.fallback is None:
            d.thinking = f"{d.thinking or ''} [guard: {refused[0]}]".strip()[:MAX_TEXT]
            return d
        from agenthost import metering

        metering.current().fallback("guard")
        f = self.fallback.decide(task, page, history, memory, tools, deadline,
                                 **{k: v for k, v in options.items() if k in ("careful", "avoid")})
        guard_decision(f, task, page, memory, careful=careful)
        f.source = f"{d.source}+guard"
        f.thinking = f"{f.thinking or ''} [guard: {refused[0]}]".strip()[:MAX_TEXT]
        return f
