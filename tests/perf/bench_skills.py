"""Skills: recognition + solve time per skill through ``agenthost.skills.solve`` (aim: well under 5 ms for every
skill but chess), ordinary page text that is no problem, the word list's one-time load, and chess timed
apart (engine start, exact mate in one, engine searches bounded by a deadline). Also the LLM prompt's growth
from listing the skills. Prints, asserts nothing."""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import env, pct, timed_ms  # noqa: E402

os.environ.update(env())
os.environ["AGENTHOST_NETGUARD_ALLOW_PRIVATE"] = "true"  # the JSON API below listens on loopback

from agenthost.skills import chess, json_api, solve, tools, words  # noqa: E402

TABLE = [["Product", "Category", "Price", "Stock"]] + [
    [f"Item {i}", ["Fruit", "Tools", "Books"][i % 3], f"${i * 1.25:.2f}", str(i * 7 % 50)] for i in range(1, 201)]

CASES: list[tuple[str, str, dict | None]] = [
    ("arithmetic", "What is 17 × 3?", None),
    ("arithmetic", "What is 15% of 240, rounded to 2 decimal places?", None),
    ("sequence", "Next number: 2, 4, 8, 16, ?", None),
    ("sequence", "Find the missing number: 1, 4, ?, 16, 25, 36", None),
    ("words", "Unscramble the letters: L P E P A", None),
    ("words", "Complete the word: e_e_hant", None),
    ("table", "What is the total stock of the Fruit category? (200 rows)", {"tables": [TABLE]}),
    ("table", "Which product has the highest price? (200 rows)", {"tables": [TABLE]}),
    ("writing", "Write at least 150 words about renewable energy", None),
    ("writing", "Write between 300 and 320 characters about trains", None),
]
ORDINARY = ["Welcome back, Ann", "Score: 0 Correct 1/10", "Showing 1 - 10 of 50 results", "Add to cart",
            "Question 3 of 10", "Please enter your email address to continue"]
FEN_MATE = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
FEN_MIDDLE = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8"




def line(label: str, ms: list[float], extra: str = "") -> None:
    print(f"  {label:<58} p50 {statistics.median(ms):7.3f} ms  p99 {pct(ms, 99):7.3f} ms{extra}")


def main() -> None:
    t = time.perf_counter()
    words.is_word("warm")
    print(f"word list load (once per container): {(time.perf_counter() - t) * 1000:.0f} ms")
    print("recognition + solve (warm), per skill:")
    for skill, question, context in CASES:
        q = question.replace(" (200 rows)", "")
        found = solve(q, context=context)
        got = found.skill if found else None
        ms = timed_ms(lambda q=q, c=context: solve(q, context=c), 200)
        line(f"{skill}: {question[:48]}", ms, "" if got == skill else f"  (answered by {got})")

    class Api(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            import json

            body = json.dumps({"items": [{"name": r[0], "category": r[1], "price": float(r[2][1:]), "stock": int(r[3])}
                                         for r in TABLE[1:]]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/api/items"
    q = f"Using the API at {url}, what is the total stock of the Fruit category?"

    def fetch_and_solve():
        json_api._cache.clear()  # measure the fetch, not the 20 s reuse
        return solve(q)

    line("json_api: GET 200 records on loopback + total (fetch included)", timed_ms(fetch_and_solve, 50))
    line("json_api: the same question again (document reused)", timed_ms(lambda: solve(q), 50))
    server.shutdown()

    ms = timed_ms(lambda: [solve(text) for text in ORDINARY], 200)
    line(f"no problem: {len(ORDINARY)} ordinary page lines, all skills tried", ms)

    print("chess (timed apart):")
    path = chess.engine_path()
    print(f"  engine: {path or 'none found'}")
    line("mate in one, exact (no engine)", timed_ms(lambda: solve(f"White to move: {FEN_MATE}"), 50))
    if path:
        chess.close()
        t = time.perf_counter()
        chess.warm()
        print(f"  engine start (once per container): {(time.perf_counter() - t) * 1000:.0f} ms")
        for budget in (0.5, 1.0, 2.5):
            def run(budget=budget):
                return solve(f"White to move. Best move? {FEN_MIDDLE}", deadline=time.monotonic() + budget)
            ms = timed_ms(run, 3)
            found = run()
            line(f"engine search, turn deadline {budget:.1f} s (margin {chess.MARGIN_S} s)", ms,
                 f"  -> {found.answer if found else None}")
        chess.close()

    from agenthost.agent.llm_policy import SKILL_RULE, render_skills

    print(f"LLM prompt growth from listing the {len(tools())} skills: {len(render_skills(tools())) + len(SKILL_RULE)}"
          " chars")


if __name__ == "__main__":
    main()
