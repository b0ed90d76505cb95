"""Adversarial counts (prints, asserts nothing): fuzzed requests per route with their 5xx, and signature
attempts on both webhooks with the wrong acceptances.

1. Fuzz: every route of the security suite's catalog (``tests/security/routes.py``: both webhooks through the
   HTTP API and their function URLs, the Proxy API, the agents.json site, the evaluation admin API, /usage),
   in process on moto's DynamoDB, with seeded random bodies: nested far past the depth limit, wide, random
   JSON, numbers out of DynamoDB's range, malformed and truncated JSON, random bytes, YAML. Webhook bodies
   are signed like the platform's. Counted per route: requests, answers by status class, 5xx (a handler
   that raises counts as a 5xx). Aim: 0 of >= 10,000.
2. Signatures: forged, tampered, wrong-key, missing, stale and replayed requests to the AI Olympics and
   Werewolf webhooks (a fresh timestamp header on a captured body, a header that disagrees with the body),
   each must be answered 401; valid requests replayed within the window must get the stored answer with
   no second memory write. Aim: 0 wrong acceptances of >= 1,000 attempts.
3. Unsigned headers: valid AI Olympics turns, each answered once, then resent byte for byte with the
   headers the signature does not cover changed (``X-AI-Olympics-Agent-Id`` to other ids or none,
   ``X-AI-Olympics-Test``, a timestamp header still within its 5 s of the body's). Counted: resends, fresh
   decisions (the policy asked again), new task items, turns metered to an id the resender chose. Aim: 0.
4. Masking sweep: Proxy API runs whose scripted policy types a random password (symbols included) and a
   card number into secret fields, on pages that echo them in a random spelling (as typed, URL-encoded,
   form-encoded, HTML-escaped) in every field a snapshot has, with tool results that repeat them, card
   numbers in several groupings beside other digit runs, and a finish that quotes everything. Counted:
   secrets planted, then found in any field of the step answers and GET (the tool the extension must run
   aside), and in any attribute of any stored item (the snapshot unpacked; the task, stored as given,
   aside). Aim: 0 and 0.
5. Database faults, at the deployed budgets: every route that touches DynamoDB (``tests/security/outages.py``)
   called once while DynamoDB hangs (accepts connections, never answers), drops every connection, throttles,
   fails (500), refuses connections, or has lost its table. Printed per route: the answer's status, the time
   it took and the route's budget, and what is wrong with the answer if anything. Aim: the webhooks a valid
   200 turn within 20 s, every other route 503 with ``Retry-After`` in its shape within its budget.

Options: ``--per-route N`` (fuzzed requests per route, default 520), ``--signatures N`` (attempts, default
1,200), ``--header-replays N`` (signed turns resent, default 60), ``--masking-runs N`` (default 40),
``--outages MODES`` (comma-separated, default all: ``hung,dropped,throttled,failing,unreachable,missing table``;
``none`` skips them), ``--seed N``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env  # noqa: E402

sys.path[:0] = [str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")]
os.environ.update(env())
os.environ.update({"AGENTHOST_TABLE": "agenthost-bench-security", "AGENTHOST_LLM": "none",
                   "POWERTOOLS_LOG_LEVEL": "CRITICAL"})

SCALARS = [None, True, False, 0, -1, 1e308, -1e308, 10**40, 1.5e-320, "", "x", "p1", "\u0000", "\ud800",
           "[[[[", "]]]}", '"', "\\", "NaN", "<script>", "../../etc/passwd", "a" * 300]


def random_json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 5 or roll < 0.4:
        return rng.choice(SCALARS)
    if roll < 0.7:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    keys = ["task", "mode", "snapshot", "item_id", "quantity", "evaluationId", "id", "client", "type",
            "game_id", "your_seat", "action_type", "pageState", "timestamp", "agentId", "q", "k"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 6))}


def nested(depth: int, kinds: str) -> str:
    opens = "".join('{"k":' if kinds[i % len(kinds)] == "{" else "[" for i in range(depth))
    closes = "".join("}" if kinds[i % len(kinds)] == "{" else "]" for i in reversed(range(depth)))
    return opens + "1" + closes


def fuzz_body(rng: random.Random, yaml_route: bool) -> tuple[str, str]:
    """(kind, body) of one fuzzed request."""
    kind = rng.choice(["deep", "deep", "wide", "json", "json", "numbers", "malformed", "bytes", "yaml"])
    if kind == "deep":
        depth = rng.choice([65, 100, 1000, 2000, 5000, rng.randint(65, 8000)])
        if yaml_route and rng.random() < 0.5:
            return kind, "{k: " * depth + "1" + "}" * depth
        return kind, nested(depth, rng.choice(["[", "{", "[{"]))
    if kind == "wide":
        item = json.dumps(random_json(rng, 4))
        n = rng.randint(100, 4000)
        return kind, "[" + ",".join([item] * n) + "]" if rng.random() < 0.5 else \
            json.dumps({f"k{i}": json.loads(item) for i in range(n)})
    if kind == "json":
        return kind, json.dumps(random_json(rng))
    if kind == "numbers":
        big = rng.choice(["1e308", "-1e999", "1" * 60, "1e-400", "NaN", "Infinity", "-0", "1.0e+126"])
        return kind, f'{{"quantity": {big}, "maxSteps": {big}, "item_id": "p1", "task": "t", "progress": {big}}}'
    if kind == "malformed":
        text = json.dumps(random_json(rng))
        return kind, text[: rng.randint(0, max(0, len(text) - 1))] + rng.choice(["", "}", "]]", ",", '"'])
    if kind == "bytes":
        return kind, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300))).decode("latin-1")
    return kind, "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, rng.randint(2, 120))) + "  " * 120 + "x: 1"


def fuzz(per_route: int, seed: int) -> int:
    from tests.security.routes import ROUTES

    rng = random.Random(seed)
    total = fives = 0
    print(f"{'route':34} {'requests':>8} {'2xx':>6} {'4xx':>6} {'5xx':>4}  statuses")
    for route in ROUTES:
        statuses: Counter[int] = Counter()
        failures: list[str] = []
        for _ in range(per_route):
            kind, body = fuzz_body(rng, route.content_type == "application/yaml")
            try:
                status = route.send(body).status
            except Exception as exc:  # noqa: BLE001 - a handler that raises is a 5xx
                status = 599
                failures.append(f"{kind}: {type(exc).__name__}")
            if status >= 500 and len(failures) < 3:
                failures.append(f"{kind}: {status} {body[:80]!r}")
            statuses[status] += 1
        n5 = sum(c for s, c in statuses.items() if s >= 500)
        total += per_route
        fives += n5
        print(f"{route.name:34} {per_route:8d} {sum(c for s, c in statuses.items() if s < 300):6d} "
              f"{sum(c for s, c in statuses.items() if 400 <= s < 500):6d} {n5:4d}  "
              + " ".join(f"{s}:{c}" for s, c in sorted(statuses.items())))
        for f in failures[:3]:
            print(f"    5xx: {f}")
    print(f"fuzzed requests: {total}, 5xx: {fives} (aim 0 of >= 10,000)")
    return fives


def signatures(attempts: int, seed: int) -> int:
    import olympics.app as olympics_app
    import werewolf.app as werewolf_app

    from agenthost import signing
    from tests.security.routes import OLYMPICS_SECRET, WEREWOLF_KEY
    from tests.support.apigw import call
    from tests.support.olympics import turn_body
    from tests.support.usage import DynamoCalls
    from tests.support.werewolf import turn as ww_turn

    rng = random.Random(seed)
    tried: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    replays = replay_same = second_writes = 0

    def olympics(raw: bytes, headers: dict[str, str]) -> Any:
        return call(olympics_app.handler, "POST", "/olympics/turn", body=raw, headers=headers)

    def werewolf(raw: bytes, headers: dict[str, str]) -> Any:
        return call(werewolf_app.handler, "POST", "/werewolf/turn", body=raw.decode(), headers=headers)

    def o_headers(raw: bytes, ts: int, secret: str = OLYMPICS_SECRET) -> dict[str, str]:
        return {"content-type": "application/json", "X-AI-Olympics-Signature": signing.sign(secret, raw),
                "X-AI-Olympics-Timestamp": str(ts), "X-AI-Olympics-Agent-Id": "a-1"}

    kinds = ["o:forged", "o:tampered", "o:wrong-secret", "o:missing", "o:stale", "o:fresh-header-old-body",
             "o:disagreeing-header", "o:no-timestamp", "w:forged", "w:tampered", "w:wrong-key", "w:missing",
             "w:malformed-header", "o:replay", "w:replay"]
    for i in range(attempts):
        kind = kinds[i % len(kinds)]
        now = int(time.time() * 1000)
        if kind.startswith("o:"):
            body = turn_body(rng.randint(1, 9), prompt=f"Type the name Ada {i} and send.", agent_id="a-1",
                             tree='- textbox "Name"\n- button "Send"', ts_ms=now)
            raw = json.dumps(body).encode()
            headers = o_headers(raw, now)
            if kind == "o:replay":
                first = olympics(raw, headers)
                with DynamoCalls() as calls:
                    second = olympics(raw, headers)
                replays += 1
                replay_same += int(first.status == second.status == 200 and first.body == second.body)
                second_writes += sum(pk.startswith("TASK#") for pk in calls.written)
                continue
            if kind == "o:forged":
                headers["X-AI-Olympics-Signature"] = "sha256=" + hashlib.sha256(os.urandom(8)).hexdigest()
            elif kind == "o:tampered":
                raw = raw.replace(b"Ada", b"Eve", 1)
            elif kind == "o:wrong-secret":
                headers = o_headers(raw, now, "whs_" + os.urandom(16).hex())
            elif kind == "o:missing":
                del headers["X-AI-Olympics-Signature"]
            elif kind == "o:stale":
                old = now - rng.randint(301, 86_400) * 1000
                body["timestamp"] = old
                raw = json.dumps(body).encode()
                headers = o_headers(raw, old)
            elif kind == "o:fresh-header-old-body":
                body["timestamp"] = now - rng.randint(301, 86_400) * 1000
                raw = json.dumps(body).encode()
                headers = o_headers(raw, now)
            elif kind == "o:disagreeing-header":
                headers["X-AI-Olympics-Timestamp"] = str(now + rng.choice([-1, 1]) * rng.randint(6, 299) * 1000)
            elif kind == "o:no-timestamp":
                del body["timestamp"]
                raw = json.dumps(body).encode()
                headers = o_headers(raw, now)
                del headers["X-AI-Olympics-Timestamp"]
            status = olympics(raw, headers).status
        else:
            raw = json.dumps(ww_turn("vote", rnd=rng.randint(1, 5), game_id=f"g-{i}")).encode()
            headers = {"content-type": "application/json", "X-Werewolf-Signature": signing.sign(WEREWOLF_KEY, raw)}
            if kind == "w:replay":
                first = werewolf(raw, headers)
                with DynamoCalls() as calls:
                    second = werewolf(raw, headers)
                replays += 1
                replay_same += int(first.status == second.status == 200 and first.body == second.body)
                second_writes += sum(pk.startswith("GAME#") for pk in calls.written)
                continue
            if kind == "w:forged":
                headers["X-Werewolf-Signature"] = "sha256=" + hashlib.sha256(os.urandom(8)).hexdigest()
            elif kind == "w:tampered":
                raw = raw.replace(b"vote", b"voto", 1)
            elif kind == "w:wrong-key":
                headers["X-Werewolf-Signature"] = signing.sign("ww_" + os.urandom(8).hex(), raw)
            elif kind == "w:missing":
                del headers["X-Werewolf-Signature"]
            elif kind == "w:malformed-header":
                headers["X-Werewolf-Signature"] = rng.choice(["", "sha256=", "md5=abc", "sha256=" + "z" * 64])
            status = werewolf(raw, headers).status
        tried[kind] += 1
        if status != 401:
            wrong[kind] += 1
    total = sum(tried.values())
    for kind in kinds:
        if kind in tried:
            print(f"  {kind:26} attempts {tried[kind]:4d}  wrongly accepted {wrong[kind]}")
    print(f"signature attempts: {total}, wrongly accepted: {sum(wrong.values())} (aim 0 of >= 1,000); "
          f"valid bodies replayed within the window: {replays}, answered with the stored answer: {replay_same}, "
          f"second memory writes: {second_writes}")
    return sum(wrong.values())


def header_replays(bodies: int, seed: int) -> int:
    """Signed AI Olympics turns resent with altered unsigned headers; returns the fresh decisions."""
    import olympics.app as olympics_app
    from olympics import agent_adapter

    from agenthost import signing
    from agenthost.store import Store
    from tests.security.routes import OLYMPICS_SECRET
    from tests.support.apigw import call
    from tests.support.olympics import turn_body

    rng = random.Random(seed)
    store = Store()
    decisions = [0]
    real = agent_adapter.deterministic

    def counted(inp: Any) -> Any:
        decisions[0] += 1
        return real(inp)

    def items(prefix: str) -> list[dict[str, Any]]:
        pages = store.client.get_paginator("scan").paginate(TableName=store.table_name)
        return [i for page in pages for i in page["Items"] if i["pk"]["S"].startswith(prefix)]

    variants = ["other-id", "no-id", "empty-id", "case-id", "test-header", "shifted-timestamp"]
    def metered() -> set[str]:
        return {i["sk"]["S"].split("#")[0] for i in items("USAGE#")}

    resent = fresh = 0
    tasks_before = len(items("TASK#"))
    metered_before = metered()  # (the fuzz before meters the agentId its signed bodies name)
    agent_adapter.deterministic = counted  # type: ignore[assignment]
    try:
        for i in range(bodies):
            now = int(time.time() * 1000)
            body = turn_body(rng.randint(1, 9), prompt=f"Type the name Grace {i} and send.", agent_id="hdr-1",
                             tree='- textbox "Name"\n- button "Send"', ts_ms=now)
            raw = json.dumps(body).encode()
            headers = {"content-type": "application/json",
                       "X-AI-Olympics-Signature": signing.sign(OLYMPICS_SECRET, raw),
                       "X-AI-Olympics-Timestamp": str(now), "X-AI-Olympics-Agent-Id": "hdr-1"}
            call(olympics_app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
            before = decisions[0]
            for variant in variants:
                altered = dict(headers)
                if variant == "other-id":
                    altered["X-AI-Olympics-Agent-Id"] = f"replayer-{rng.randint(0, 10**6)}"
                elif variant == "no-id":
                    del altered["X-AI-Olympics-Agent-Id"]
                elif variant == "empty-id":
                    altered["X-AI-Olympics-Agent-Id"] = ""
                elif variant == "case-id":
                    altered["X-AI-Olympics-Agent-Id"] = "HDR-1"
                elif variant == "test-header":
                    altered["X-AI-Olympics-Test"] = "true"
                else:
                    altered["X-AI-Olympics-Timestamp"] = str(now + rng.randint(-4000, 4000))
                call(olympics_app.handler, "POST", "/olympics/turn", body=raw, headers=altered)
                resent += 1
            fresh += decisions[0] - before
    finally:
        agent_adapter.deterministic = real  # type: ignore[assignment]
    new_tasks = len(items("TASK#")) - tasks_before - bodies
    chosen = metered() - metered_before - {"hdr-1"}
    print(f"signed turns resent with altered unsigned headers: {resent} ({len(variants)} kinds), fresh decisions: "
          f"{fresh}, extra task items: {new_tasks}, ids a resender chose that were metered: {len(chosen)} (aim 0)")
    return fresh


def masking_sweep(runs: int, seed: int) -> int:
    """Proxy API runs that type secrets onto pages echoing them; returns the secrets found afterwards."""
    import html
    import string
    from urllib.parse import quote, quote_plus

    import runs.app as runs_app
    from runs.brain import ToolCall
    from runs.models import unpack_snapshot

    from agenthost.store import Store
    from tests.security.routes import RUNS_KEY
    from tests.support.apigw import call
    from tests.unit.runs_support import ScriptedBrain

    rng = random.Random(seed)
    headers = {"x-api-key": RUNS_KEY}
    store = Store()

    def luhn_card(prefix: str, length: int) -> str:
        digits = [int(c) for c in prefix] + [rng.randint(0, 9) for _ in range(length - len(prefix) - 1)]
        total = sum((d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 == 0 else d
                    for i, d in enumerate(reversed(digits)))
        return "".join(map(str, digits)) + str((10 - total % 10) % 10)

    def grouped(card: str) -> str:
        sep = rng.choice([" ", "-", "\u00a0", ""])
        sizes = [4, 6, 5] if len(card) == 15 else [4] * (len(card) // 4) + ([len(card) % 4] if len(card) % 4 else [])
        out, at = [], 0
        for n in sizes:
            out.append(card[at:at + n])
            at += n
        return sep.join(out)

    def spell(secret: str) -> str:
        return rng.choice([secret, quote(secret, safe=""), quote_plus(secret), html.escape(secret)])

    def page(url: str, secret: str, cards: list[str], ts: int) -> dict[str, Any]:
        e = [spell(secret) for _ in range(9)]
        shown = " ".join(f"{rng.choice(['Card2', 'Row 3', 'ref 12', 'x'])} {c}" for c in cards)
        return {"url": f"{url}?a={e[0]}", "title": f"Hi {e[1]}", "timestamp": ts,
                "visibleText": f"Your secret: {e[2]}\n{shown}\nOrder {rng.randint(10**11, 10**12 - 1)}",
                "elements": [
                    {"id": "agent-1", "tag": "input", "type": "password", "name": "password"},
                    {"id": "agent-2", "tag": "input", "type": "text", "name": "cardnumber"},
                    {"id": "agent-3", "tag": "a", "text": f"Hello {e[3]}", "href": f"/p?x={e[4]}"},
                    {"id": "agent-4", "tag": "button", "text": "Go", "ariaLabel": f"Go {e[5]}"},
                    {"id": "agent-5", "tag": "input", "type": "text", "name": "hint", "placeholder": e[6],
                     "value": e[7], "label": f"{shown}"},
                    {"id": "agent-6", "tag": "select", "name": "s", "options": [e[8], "other"]}]}

    planted = found_returned = found_stored = 0
    where: Counter[str] = Counter()
    real = runs_app._brain
    try:
        for i in range(runs):
            alphabet = string.ascii_letters + string.digits + "!#%*+-_=?&<>\"' "
            password = "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 20))).strip() + "Q1"
            card = luhn_card(rng.choice(["4", "51", "37", "6011"]), rng.choice([15, 16, 16, 19]))
            shown = [luhn_card("4", 16), luhn_card("5", 16)]
            plan = iter([ToolCall("type", {"id": "agent-1", "text": password}, thinking=f"type {password}"),
                         ToolCall("type", {"id": "agent-2", "text": grouped(card)}, thinking=f"card {card}"),
                         ToolCall("finish", {}, text=f"done {password} {card} {' '.join(shown)}")])
            runs_app._brain = ScriptedBrain(choose=lambda ctx, plan=plan: next(plan))
            r = call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": f"Sign up {i}"},
                     headers=headers)
            rid = r.json()["runId"]
            answers = []
            for n, secret in enumerate(("nothing-yet", password, card)):
                cards = [grouped(c) for c in shown] + ([grouped(card)] if n == 2 else [])
                result = {"success": True, "message": f"typed {spell(secret)}"} if n else None
                body = {"snapshot": page(f"https://s{i}.test/p{n}", secret, cards, n + 1),
                        **({"lastActionResult": result} if result else {})}
                answer = call(runs_app.handler, "POST", f"/agent/run/{rid}/step", json_body=body, headers=headers)
                planted += 11
                answers.append({k: v for k, v in answer.json().items() if k != "tool"})
            state = call(runs_app.handler, "GET", f"/agent/run/{rid}", headers=headers).json()
            items = list(store.query(f"RUN#{rid}"))
            for item in items:
                item.pop("task", None)
                if item.get("snap_z") is not None:
                    item["snap_z"] = unpack_snapshot(item["snap_z"])
            returned = json.dumps([answers, state], ensure_ascii=False)
            kept = json.dumps(items, default=str, ensure_ascii=False)
            secrets = {password, quote(password, safe=""), quote_plus(password), html.escape(password), card,
                       *shown}
            secrets = {x for x in secrets if len(x) >= 4}
            for x in secrets:
                if x in returned:
                    found_returned += 1
                    where["returned"] += 1
                if x in kept:
                    found_stored += 1
                    where["stored"] += 1
    finally:
        runs_app._brain = real
    print(f"masking sweep: {runs} runs, {planted} echoes of typed secrets planted (plus card numbers in 4 "
          f"groupings), secrets found in returned fields: {found_returned}, in stored attributes: {found_stored} "
          "(aim 0 and 0)")
    return found_returned + found_stored


def database_faults(modes: list[str]) -> None:
    from agenthost.config import settings
    from tests.security.outages import PROBES, outage, wrong

    print("\ndatabase faults (deployed budgets; each route called once)")
    print(f"  {'outage':<14}{'route':<38}{'status':>6}{'took':>8}{'budget':>8}  verdict")
    for mode in modes:
        late = wrong_answers = 0
        with tempfile.TemporaryDirectory() as defs, outage(mode, defs):
            for probe in PROBES:
                budget = float(getattr(settings(), probe.budget))
                started = time.monotonic()
                try:
                    r = probe.send()
                    status, why = r.status, wrong(probe, r)
                except Exception as exc:  # noqa: BLE001 - a handler that raises is what this run looks for
                    status, why = 0, f"raised {type(exc).__name__}"
                took = time.monotonic() - started
                late += took > budget
                wrong_answers += why is not None
                verdict = why or ("ok" if took <= budget else "late")
                print(f"  {mode:<14}{probe.name:<38}{status:>6}{took:>7.1f}s{budget:>7.0f}s  {verdict}")
        print(f"  {mode}: {wrong_answers} wrong answers, {late} past their budget, of {len(PROBES)} routes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-route", type=int, default=520)
    parser.add_argument("--signatures", type=int, default=1200)
    parser.add_argument("--header-replays", type=int, default=60)
    parser.add_argument("--masking-runs", type=int, default=40)
    parser.add_argument("--outages", default="hung,dropped,throttled,failing,unreachable,missing table")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    from tests.security.routes import in_process

    started = time.monotonic()
    with tempfile.TemporaryDirectory() as defs, in_process(defs):
        fuzz(args.per_route, args.seed)
        signatures(args.signatures, args.seed)
        header_replays(args.header_replays, args.seed)
        masking_sweep(args.masking_runs, args.seed)
    if args.outages.strip() != "none":
        database_faults([m.strip() for m in args.outages.split(",") if m.strip()])
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
