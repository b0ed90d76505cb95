"""Careful mode's approvals and the sites a run trusts with credentials (used by :mod:`runs.engine`).

An approval covers one transaction: the same category, site, tool, element (role and name), place (URL
path or form) and at most the amount shown when it was approved. It is used up once the approved action
has been executed (an action reported as failed may be retried under it), unused ones lapse after
:data:`APPROVAL_STEPS` steps, and anything else risky asks again. Credentials ask only on a site the run
did not start on and the task does not name (or the user approved before).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from agenthost import urls
from runs.brain import Brain, Risk, StepContext, ToolCall

#: an approval not used within this many steps lapses (the user approved what the page showed then)
APPROVAL_STEPS = 10
MAX_SITES = 50


def task_sites(task: str, start_url: str | None) -> list[str]:
    """The sites credentials may go to without asking from the start: those the task names, and the start
    URL's (the first page's is added by :func:`trust_first_page`); the domain of an e-mail address in the task
    is no such site."""
    sites = sorted({urls.site(h) for h in urls.hosts_in(task)})[:MAX_SITES]
    if start_url and urls.host(start_url):
        sites = sorted(set(sites) | {urls.site(urls.host(start_url))})
    return sites


def trust_first_page(meta: dict[str, Any], url: str) -> None:
    """The site the run starts on is the user's choice: credentials may go there without asking."""
    if not meta.get("seeded"):
        meta["seeded"] = True
        if urls.host(url):
            meta["sites"] = sorted(set(meta.get("sites") or []) | {urls.site(urls.host(url))})


def trust_site(meta: dict[str, Any], site_domain: str) -> None:
    """The user approved credentials on this site: trusted for the rest of the run."""
    meta["sites"] = (list(meta.get("sites") or []) + [urls.site(site_domain)])[-MAX_SITES:]


def settle_approvals(meta: dict[str, Any]) -> None:
    """Use up approvals whose action has been executed (kept when it was reported as failed, so a
    retry of the same step is not asked twice); let unused ones lapse after APPROVAL_STEPS steps."""
    approvals = meta.get("approvals") or []
    if not approvals:
        return
    outcome = {e.get("step"): e.get("ok") for e in meta.get("recent", [])}
    n = int(meta["current_step"])
    kept = []
    for a in approvals:
        spent = a.get("spent")
        if spent is not None:
            if outcome.get(spent) is False:
                a["spent"] = None
            else:
                continue
        if n - int(a.get("granted", n)) <= APPROVAL_STEPS:
            kept.append(a)
    meta["approvals"] = kept


def unapproved_risk(meta: dict[str, Any], brain: Brain, decision: ToolCall, ctx: StepContext,
                    n: int) -> tuple[Risk, dict[str, str]] | None:
    """The risk of ``decision`` and what an approval of it would cover, when the user must be asked; None
    when it is not risky, is credentials for a trusted site, or an unused approval covers it (which this
    step then spends)."""
    risk = brain.assess(decision, ctx)
    if risk is None:
        return None
    key = approval_key(risk, decision, ctx.snapshot.url)
    if key["category"] == "credential" and urls.site(key["domain"]) in (meta.get("sites") or []):
        return None  # credentials for a site this run started on, or the user trusts
    i = matching_approval(meta.get("approvals") or [], key, risk.amount)
    if i is not None:
        meta["approvals"][i]["spent"] = n  # used up once this step's action succeeded
        return None
    return risk, key


def approval_key(risk: Risk, decision: ToolCall, url: str) -> dict[str, str]:
    """What an approval of this risky action covers (besides the amount)."""
    path = urlsplit(url).path if url else ""
    return {"category": str(risk.category or "risky"), "domain": (risk.domain or urls.host(url)).lower(),
            "tool": decision.tool, "element": risk.element or f"{decision.tool}:{decision.target}".lower(),
            "place": risk.place or (path or "/").lower()}


def matching_approval(approvals: list[dict[str, Any]], key: dict[str, str], amount: float | None) -> int | None:
    """The index of an unused approval of this very transaction, for at most the approved amount (a
    grown amount, or an amount where none was shown before, asks again)."""
    for i, a in enumerate(approvals):
        if a.get("spent") is not None or any(a.get(k) != v for k, v in key.items()):
            continue
        approved = a.get("amount")
        if amount is None or (approved is not None and amount <= float(approved) + 0.005):
            return i
    return None


def question(risk: Risk, decision: ToolCall) -> str:
    summary = (risk.summary or "").strip().rstrip(".")
    if not summary:
        what = str(risk.category or "risky").replace("_", " ")
        summary = f"about to {decision.tool} {decision.target}".rstrip() + f" ({what})"
    amount = f" Amount: {risk.amount_text or risk.amount}." if risk.amount is not None or risk.amount_text else ""
    return f"⚠️ Careful mode: {summary}.{amount} Proceed?"
