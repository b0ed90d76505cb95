"""agents.json reference store: handler time per call (p50/p99) for search, cart add and checkout, and
DynamoDB round trips per call, in process against moto with the seeded catalog (320 products).

Time spent inside DynamoDB calls (here: moto, in process) is reported separately, so "own" is the
function's own work. Aim for round trips: the rate limit plus the operation itself, no extra reads.
Prints, asserts nothing."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import env, pct  # noqa: E402

os.environ.update(env())
os.environ.update({"AGENTHOST_TABLE": "agenthost-bench", "AGENTHOST_AGENTS_RATE_LIMIT": str(10**9)})
for k in [k for k in os.environ if k.startswith("AWS_ENDPOINT_URL")]:
    del os.environ[k]

N = int(os.environ.get("BENCH_AGENTS_N", "100"))


def run(label, handler, meter, make_event, n=N):
    from infra.local.events import LambdaContext

    for i in range(min(20, n)):
        handler(make_event(i), LambdaContext("bench"))
    total, own, calls, statuses, ops = [], [], [], set(), []
    for i in range(n):
        ev, ctx = make_event(i), LambdaContext("bench")  # a context per invocation: its own deadline
        s0, o0 = meter.seconds, len(meter.ops)
        t = time.perf_counter()
        out = handler(ev, ctx)
        dt = time.perf_counter() - t
        statuses.add(out["statusCode"])
        total.append(dt * 1000)
        own.append((dt - (meter.seconds - s0)) * 1000)
        calls.append(len(meter.ops) - o0)
        ops.extend(meter.ops[o0:])
    print(f"  {label:34} total p50 {pct(total, 50):7.2f} ms  p99 {pct(total, 99):7.2f} ms | own p50 "
          f"{pct(own, 50):6.2f} ms  p99 {pct(own, 99):6.2f} ms | DynamoDB calls/call {sum(calls) / n:.2f} "
          f"(min {min(calls)}, max {max(calls)}) | status {sorted(statuses)}")
    per_call = Counter(ops)
    print(" " * 38 + "per call: " + ", ".join(f"{op} {k / n:.2f}" for op, k in sorted(per_call.items())))


def main() -> None:
    import asyncio
    import hashlib
    import importlib
    import logging

    from moto import mock_aws

    asyncio.set_event_loop(asyncio.new_event_loop())
    with mock_aws():
        from agenthost import aws, config
        from agenthost.items import item_bytes
        from agenthost.store import Store
        from infra.local.events import LambdaContext, http_event
        from infra.local.template import create_table, parse
        from infra.seed import run_all
        from tests.support.usage import DynamoCalls

        config.reset()
        aws.reset()
        create_table(aws.client("dynamodb"), parse(), config.settings().table_name)
        run_all(Store(), log=lambda m: None)
        meter = DynamoCalls().__enter__()  # counted at botocore's edge: the store sends through its own clients
        logging.getLogger().setLevel(logging.WARNING)

        results = {}
        for cache in ("600", "0"):  # 600: the warm-container snapshot stays fresh for the whole run
            os.environ["AGENTHOST_AGENTS_CATALOG_CACHE_S"] = cache
            config.reset()  # settings are read once per process: this app must read the cache setting again
            import agents_api.app as app_module

            app_module = importlib.reload(app_module)
            results[cache] = app_module.handler
        handler = results["600"]
        api = "/.well-known/agents/api"
        h = {"host": "shop.example", "x-forwarded-proto": "https", "user-agent": "bench"}

        def new_session() -> str:
            out = handler(http_event("POST", f"{api}/session", headers=h), LambdaContext("bench"))
            return json.loads(out["body"])["data"]["session_token"]

        items = json.loads(handler(http_event("GET", f"{api}/browse", headers=h, query={"limit": "100",
                                                                                     "in_stock": "true"}),
                                   LambdaContext("bench"))["body"])["data"]["items"]
        ids = [i["id"] for i in items if i["stock"] >= 50]
        words = ["blue mug", "teapot", "matte bowl", "vase", "sage green plate", "crackle"]

        print(f"in-process handler, moto DynamoDB, {N} calls each (fewer where marked) after warm-up "
              "(catalog: 320 products)")
        run("search (warm catalog snapshot)", results["600"], meter,
            lambda i: http_event("GET", f"{api}/search", headers=h, query={"q": words[i % len(words)]}))
        run("search (no catalog cache)", results["0"], meter,
            lambda i: http_event("GET", f"{api}/search", headers=h, query={"q": words[i % len(words)]}), n=5)
        run("detail", handler, meter, lambda i: http_event("GET", f"{api}/detail/{ids[i % len(ids)]}", headers=h))
        def warm() -> None:  # a warm container holds a fresh catalog snapshot
            handler(http_event("GET", f"{api}/browse", headers=h), LambdaContext("bench"))

        token = new_session()
        auth = {**h, "authorization": f"Bearer {token}", "content-type": "application/json"}
        warm()
        run("cart add (one session, 1 line)", handler, meter,
            lambda i: http_event("POST", f"{api}/cart/add", headers=auth,
                                 body=json.dumps({"item_id": ids[0], "quantity": 1})),
            n=40)
        warm()
        run("cart add (fresh session each call)", handler, meter, lambda i: http_event(
            "POST", f"{api}/cart/add", body=json.dumps({"item_id": ids[i % len(ids)], "quantity": 1}),
            headers={**h, "authorization": f"Bearer {new_session()}", "content-type": "application/json"}))
        warm()
        run("cart add with Idempotency-Key", handler, meter, lambda i: http_event(
            "POST", f"{api}/cart/add", body=json.dumps({"item_id": ids[i % len(ids)], "quantity": 1}),
            headers={**h, "authorization": f"Bearer {new_session()}", "content-type": "application/json",
                     "idempotency-key": f"k{i}-{time.time_ns()}"}))
        carts = []
        for n in range(N + 20):
            t = new_session()
            for j in range(3):
                handler(http_event("POST", f"{api}/cart/add", body=json.dumps({"item_id": ids[(n + j) % len(ids)]}),
                                   headers={**h, "authorization": f"Bearer {t}",
                                            "content-type": "application/json"}), LambdaContext("bench"))
            carts.append(t)
        warm()
        run("checkout (3-line cart)", handler, meter, lambda i: http_event(
            "POST", f"{api}/checkout", headers={**h, "authorization": f"Bearer {carts[i]}"}))

        # what each call's rate-limit write costs as a session's calls accumulate in one window
        table, sizes = config.settings().table_name, []
        token = new_session()
        auth = {**h, "authorization": f"Bearer {token}"}
        session_key = {"pk": {"S": f"SESSION#{hashlib.sha256(token.encode()).hexdigest()}"}, "sk": {"S": "META"}}
        for calls in range(1, 121):
            handler(http_event("GET", f"{api}/detail/{ids[calls % len(ids)]}", headers=auth), LambdaContext("bench"))
            if calls in (1, 10, 30, 60, 120):
                raw = aws.client("dynamodb").get_item(TableName=table, Key=session_key).get("Item") or {}
                sizes.append(f"{calls} calls {item_bytes(raw)} B ({-(-item_bytes(raw) // 1024)} WRU)")
        print("session item (rate-limit write of each call) after n calls in one window, no cart: "
              + ", ".join(sizes))
        print("DynamoDB round trips: every API call pays the rate limit (1 UpdateItem: on the session's own item")
        print("  for a live session, which also returns the session and its cart, so no route reads the session;")
        print("  else on the source IP's counter), which carries the call's usage to the table's stream (no counter")
        print("  write of metering's own). Search/browse: 0 more with a warm catalog cache, else 1 Query (moto's")
        print("  Query of 320 items dominates that row). Detail: 1 GetItem. Cart add/update/remove: the cart")
        print("  UpdateItem on the session item (product from the warm catalog snapshot, else GetItem). Checkout:")
        print("  products BatchGetItem (prices re-read), checkout PutItem (+ the signing key once per container).")
        print("  Idempotency-Key (a live session's request) claims the key in the rate-limit write and adds one")
        print("  PutItem, the kept answer. Each rate-limit and cart write also carries its request id (the store")
        print("  may resend a write whose answer was lost), in 30 s slots of 8-character ids: the size line above.")

if __name__ == "__main__":
    main()
