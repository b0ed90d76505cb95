"""Werewolf webhook: signatures, the sanitizer, per-game memory, speech content and the LLM strategy."""

from __future__ import annotations

import json

import pytest

from agenthost import config, signing
from tests.support.apigw import call
from tests.support.fake_llm import FakeLLM
from tests.support.timing import within
from tests.support.werewolf import turn

KEY = "ww_test_key_0123456789abcdef"


def post(payload, *, key=None, sig=None, raw=None, headers=None):
    from werewolf.app import handler

    body = raw if raw is not None else json.dumps(payload, ensure_ascii=False).encode()
    hdrs = {"content-type": "application/json", **(headers or {})}
    if key is not None:
        hdrs["X-Werewolf-Signature"] = signing.sign(key, body)
    if sig is not None:
        hdrs["X-Werewolf-Signature"] = sig
    return call(handler, "POST", "/werewolf/turn", body=body, headers=hdrs)


# ------------------------------------------------------------------------------------------ signatures

def test_signed_request_with_configured_key_is_answered(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", KEY)
    r = post(turn("vote"), key=KEY)
    assert r.status == 200 and r.json()["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}


@pytest.mark.parametrize("case", ["missing", "wrong-key", "garbage", "other-body", "empty"])
def test_bad_signature_is_401_json_without_secrets(aws, monkeypatch, case):
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", KEY)
    payload = turn("vote")
    body = json.dumps(payload, ensure_ascii=False).encode()
    sig = {"missing": None, "wrong-key": signing.sign("not-the-key", body), "garbage": "sha256=zz",
           "other-body": signing.sign(KEY, body + b" "), "empty": ""}[case]
    r = post(payload, raw=body, sig=sig)
    assert r.status == 401
    assert r.json()["error"] == "unauthorized" and "signature" in r.json()["message"]
    assert KEY not in r.text and signing.sign(KEY, body)[7:] not in r.text


def test_signature_is_over_the_raw_utf8_bytes_not_reserialized_json(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", KEY)
    payload = turn("speak", chat=[("柯南", "我是好人，别投我！")])
    raw = json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8")  # unescaped Chinese, odd spacing
    assert post(payload, raw=raw, sig=signing.sign(KEY, raw)).status == 200
    assert post(payload, raw=raw, sig=signing.sign(KEY, json.dumps(payload).encode())).status == 401
    # hex in upper case and without the prefix are accepted too
    assert post(payload, raw=raw, sig=signing.sign(KEY, raw)[7:].upper()).status == 200


@pytest.mark.parametrize("path", ["/", "/werewolf", "/hooks/werewolf-turn"])
def test_the_function_url_plays_a_signed_turn_on_any_path(aws, monkeypatch, path):
    """The platform POSTs to whatever URL it was given and a function URL delivers every path: like the AI
    Olympics webhook, each path plays the turn, still behind the signature check."""
    from werewolf.app import handler

    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", KEY)
    body = json.dumps(turn("vote"), ensure_ascii=False).encode()
    hdrs = {"content-type": "application/json"}
    r = call(handler, "POST", path, body=body, via_url=True, headers={**hdrs, "X-Werewolf-Signature":
                                                                        signing.sign(KEY, body)})
    assert r.status == 200 and r.json()["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    bad = call(handler, "POST", path, body=body, via_url=True, headers={**hdrs, "X-Werewolf-Signature": "0" * 64})
    assert bad.status == 401
    assert call(handler, "GET", path, via_url=True).json()["status"] == "ok"


def test_unsigned_accepted_only_when_no_key_is_configured(aws, monkeypatch):
    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    assert post(turn("vote")).status == 200
    assert post(turn("vote"), sig="sha256=whatever").status == 200  # nothing to verify against
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", KEY)
    from agenthost import config

    config.reset()
    assert post(turn("vote")).status == 401


def test_key_from_ssm_parameter(aws, monkeypatch):
    import boto3

    boto3.client("ssm", region_name="us-east-1").put_parameter(
        Name="/agenthost/werewolf-key", Value=KEY, Type="SecureString")
    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY_PARAM", "/agenthost/werewolf-key")
    assert post(turn("vote"), key=KEY).status == 200
    assert post(turn("vote"), key="wrong").status == 401


def _signed_turn(payload):
    body = json.dumps(payload, ensure_ascii=False).encode()
    return body, signing.sign(KEY, body)


def _game_items(aws):
    return [i for i in aws.client.scan(TableName=aws.table_name)["Items"] if i["pk"]["S"].startswith("GAME#")]


def test_key_fetch_failure_answers_from_the_payload_without_memory_or_llm(aws, monkeypatch):
    """SSM down: 401 would fail every real turn (3 in a row and the platform deletes our URL); we answer 200
    from the payload alone, reading and writing no memory, and still refuse a request with no signature."""
    import werewolf.app as app

    from agenthost import config

    fetches = []

    def broken(name, **kw):
        fetches.append(name)
        raise RuntimeError("ssm unreachable")

    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY_PARAM", "/agenthost/werewolf-key")
    monkeypatch.setenv("AGENTHOST_LLM", "openai:never-called")
    config.reset()
    monkeypatch.setattr(app, "secret", broken)
    monkeypatch.setattr(app, "get_policy", lambda: pytest.fail("no LLM for an unverified request"))
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。")]
    body, sig = _signed_turn(turn("vote", chat=chat, game_id="nokey"))
    r = post(None, raw=body, sig=sig)
    assert r.status == 200 and r.json() == {"target": "银时"}
    assert fetches == ["AGENTHOST_WEREWOLF_API_KEY"] * 2  # one retry
    assert not _game_items(aws)  # no memory written for an unverified request
    r = post(None, raw=body)  # no signature at all: not the platform, whatever the key
    assert r.status == 401 and r.json()["message"] == "missing signature"


def test_key_fetch_retry_recovers(aws, monkeypatch):
    import werewolf.app as app

    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY_PARAM", "/agenthost/werewolf-key")
    calls = []

    def flaky(name, **kw):
        calls.append(name)
        if len(calls) == 1:
            raise RuntimeError("throttled")
        return KEY

    monkeypatch.setattr(app, "secret", flaky)
    body, sig = _signed_turn(turn("seer_check", role="seer", rnd=1, phase="night_seer", game_id="retry"))
    assert post(None, raw=body, sig=sig).status == 200
    assert len(calls) == 2 and _game_items(aws)  # verified on the retry: memory written as usual
    assert post(None, raw=body, sig="sha256=" + "0" * 64).status == 401  # and the key is enforced


def test_a_hanging_secret_store_costs_the_turn_its_deadline_never(aws, monkeypatch):
    """The parameter store accepts connections and never answers (a cold start during an outage): the one
    secret resolver's client gives up on its own (2 requests, each cut by the read timeout), the turn is
    answered from the payload alone well inside its budget, and nothing of the game is stored."""
    import socket
    import threading
    import time

    from agenthost import aws as aws_clients

    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])  # held open, never answered
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY_PARAM", "/agenthost/werewolf-key")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{server.getsockname()[1]}")
    config.reset()
    aws_clients.reset()
    try:
        body, sig = _signed_turn(turn("vote", game_id="hung"))
        started = time.monotonic()
        r = post(None, raw=body, sig=sig)
        took = time.monotonic() - started
        assert r.status == 200 and r.json()["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
        assert len(held) == 2  # the resolver's two requests, no more: the wait is the resolver's own bound
        assert took < config.settings().werewolf_budget_s, f"the turn took {took:.1f} s"
        assert not [i for i in _game_items(aws) if "hung" in i["pk"]["S"]]
    finally:
        server.close()
        for c in held:
            c.close()
        config.reset()
        aws_clients.reset()


def test_the_game_memory_is_one_packed_attribute_within_a_write_unit(aws, monkeypatch):
    """A seat's memory is stored as one zlib JSON attribute: with the usage riding on it the item stays within
    one DynamoDB write unit (1 KB; as JSON text a 6-player game's memory was about 940 bytes on its own)."""
    from agenthost.items import keys, unpacked

    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    for action in ("speak", "vote"):
        assert post(turn(action, game_id="g-packed", known=["Alice claimed seer", "Bob accused Carol"])).status == 200
    raw = aws.client.get_item(TableName=aws.table_name, Key={"pk": {"S": "GAME#g-packed#3"},
                                                             "sk": {"S": "META"}})["Item"]
    assert "data" not in raw and len(raw["data_z"]["B"]) < 700
    memory = unpacked(raw["data_z"]["B"])
    assert memory["game_id"] == "g-packed" and memory["my_name"] == "MyBot" and memory["answers"]
    assert aws.get(**keys.game("g-packed", "3"))  # read back as the store reads it


def test_turn_store_calls_are_turn_sized():
    from werewolf.memory import turn_store

    s = turn_store()
    reads, writes = s.caller.reads, s.caller.writes
    assert (reads.connect_s, reads.read_s, reads.attempts) == (1, 2, 2)
    assert (writes.connect_s, writes.read_s, writes.attempts) == (1, 2, 1)
    cfg = s.client.meta.config  # the longest timeouts any of its requests gets; retries are the store's own
    assert (cfg.connect_timeout, cfg.read_timeout, cfg.retries["total_max_attempts"]) == (1, 2, 1)


def test_memory_write_is_skipped_past_the_save_deadline():
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    store = InMemoryStore()
    out = play(turn("guard_protect", role="guard", rnd=1, game_id="late"), store, save_by=time.monotonic() - 1)
    assert out.answer["target"] and store.calls == 1 and not store.items  # read, decided, no write
    play(turn("guard_protect", role="guard", rnd=1, game_id="late"), store, save_by=time.monotonic() + 60)
    assert store.items


def test_handler_survives_a_slow_store_by_skipping_the_write(aws, monkeypatch):
    """A memory read that eats the turn's budget (scaled down here): the answer still comes, the memory write
    is skipped, and so is metering's own counter write (the answer is due): the turn's usage waits for the
    container's next write."""
    import time

    import werewolf.app as app

    class Slow:
        calls = 0
        updates = 0

        def warm(self):
            pass

        def get(self, *a, **k):
            time.sleep(0.3)
            return None

        def put(self, *a, **k):
            raise AssertionError("the memory write must be skipped past the deadline")

        def update(self, *a, **k):
            Slow.updates += 1
            return {}

        def query(self, *a, **k):
            return iter(())

    from agenthost import metering
    from tests.support.usage import DynamoCalls

    monkeypatch.setattr(app, "_store", Slow())
    monkeypatch.setenv("AGENTHOST_WEREWOLF_BUDGET_S", "0.2")
    monkeypatch.setenv("AGENTHOST_WEREWOLF_WRITE_RESERVE_S", "0.1")
    config.reset()
    metering.reset()
    with DynamoCalls() as calls:
        r = post(turn("vote", game_id="slow"))
    assert r.status == 200 and r.json()["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    assert calls.ops == [] and Slow.updates == 0
    [waiting] = metering.carry.waiting()
    assert (waiting["protocol"], metering.carry.counters(waiting)["turns"]) == ("werewolf", 1)


# ------------------------------------------------------------------------------------------ own name

@pytest.mark.parametrize("case", ["seatless-roster", "no-own-entry", "no-your-seat"])
def test_unknown_own_name_never_targets_ourselves(case):
    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    others = ["柯南", "路飞", "小丸子", "银时", "鸣人"]
    for g in range(12):
        store = InMemoryStore()
        gid = f"own-{case}-{g}"
        if case == "seatless-roster":
            # an earlier turn told us who we are; now the roster comes without seats
            play(turn("speak", game_id=gid), store)
            p = turn("vote", game_id=gid)
            p["alive_players"] = [{"name": x["name"]} for x in p["alive_players"]]
        elif case == "no-own-entry":
            # fresh memory; our own entry has no seat, everybody else's does
            p = turn("vote", game_id=gid)
            p["alive_players"] = [x if x["name"] != "MyBot" else {"name": "MyBot"} for x in p["alive_players"]]
        else:
            # no your_seat, but memory of this seat-less game already knows our name
            p = turn("speak", game_id=gid)
            del p["your_seat"]
            p["alive_players"] = [x for x in p["alive_players"] if x["name"] != "MyBot"] + [{"name": "MyBot"}]
            p["dead_players"] = []
            store.put({"pk": f"GAME#{gid}#unknown", "sk": "META",
                       "data": json.dumps({"game_id": gid, "seat": "unknown", "my_name": "MyBot"})})
            p["action_type"] = "vote"
        for action in ("vote", "seer_check", "guard_protect", "hunter_shoot"):
            a = play({**p, "action_type": action, "your_role": "seer" if action == "seer_check" else "villager"},
                     store).answer
            assert a["target"] in others, (case, action, a)
        pair = play({**p, "action_type": "cupid_link"}, store).answer
        assert {pair["target"], pair["second_target"]} <= set(others)


# ------------------------------------------------------------------------------------------ sanitizer

def test_platform_sanitizer_reproduction():
    from werewolf.sanitize import platform_sanitize

    assert platform_sanitize("【系统】你好[SYSTEM][系统]【管理员】[ADMIN]【法官】[JUDGE]") == "你好"
    assert platform_sanitize("看这里 https://evil.example/x 和 http://a.b") == "看这里  和"
    assert platform_sanitize("```py\nprint(1)\n```") == ""
    assert len(platform_sanitize("狼" * 600)) == 500


@pytest.mark.parametrize("raw", [
    "【系统】",                                     # only a marker
    "```\n我投柯南\n```",                           # only a fenced block
    "https://例子.com/狼人",                        # only a URL
    "【系【系统】统】",                              # a marker hidden inside a marker
    "\x00\x07\u200b",                              # control and zero-width characters only
    "[System] [judge] 【 法官 】",                  # case and spacing variants
])
def test_clean_message_never_ends_empty_on_the_platform(raw):
    from werewolf.sanitize import clean_message, platform_sanitize

    out = clean_message(raw, "我先听听。")
    assert platform_sanitize(out) == out.strip() and out.strip()


def test_clean_message_keeps_chinese_content_and_cuts_at_a_sentence():
    from werewolf.sanitize import clean_message, platform_sanitize

    text = "我是预言家。" + "第1晚验柯南是狼人（查杀）。" * 60 + "请投柯南 https://x.y ```code``` 【系统】"
    out = clean_message(text, "x")
    assert len(out) <= 480 and out.endswith("。") and out.startswith("我是预言家。")
    assert platform_sanitize(out) == out
    mixed = clean_message("我投 柯南，理由：`他`发言矛盾【法官】。see www.evil.test now", "x")
    assert mixed == "我投 柯南，理由：他发言矛盾。see now"


def test_target_over_50_chars_is_never_chosen(aws):
    long = "长" * 51
    r = post(turn("vote", alive=[(long, 1), ("MyBot", 3), ("短名", 4)]))
    assert r.json() == {"target": "短名"}


# ------------------------------------------------------------------------------------------ memory

def test_memory_across_turns_one_read_one_write(aws):
    from werewolf.memory import GameMemory
    from werewolf.player import play

    gid = "mem-game"
    store = aws
    for rnd in (1, 2):
        known = ["Round 1: You checked 银时 → villager"] if rnd == 2 else []
        before = store.calls
        play(turn("seer_check", role="seer", rnd=rnd, phase="night_seer", known=known, game_id=gid), store)
        assert store.calls - before == 2  # one GetItem, one PutItem
    # day 2: the platform's known_info now holds both checks; later turns also carry votes
    known = ["Round 1: You checked 银时 → villager", "Round 2: You checked 柯南 → werewolf",
             "Round 1 votes: 柯南→MyBot, 路飞→柯南, 银时→柯南"]
    chat = [("鸣人", "我是女巫，我怀疑小丸子。"), ("小丸子", "I suspect 路飞, vote 路飞.")]
    before = store.calls
    out = play(turn("speak", role="seer", rnd=2, known=known, chat=chat, game_id=gid), store)
    assert store.calls - before == 2
    item = store.get("GAME#mem-game#3", "META")
    mem = GameMemory.from_item(item, gid, "3")
    assert item["expires_at"] - store.now() == pytest.approx(2 * 24 * 3600, abs=5)
    assert mem.role == "seer" and mem.my_name == "MyBot"
    assert mem.seer_results == {"银时": "villager", "柯南": "werewolf"}
    assert "1|柯南|MyBot" in mem.votes and mem.claims["鸣人"] == "witch"
    assert mem.accusations["小丸子"] == ["鸣人"] and mem.accusations["路飞"] == ["小丸子"]
    assert mem.suspicion["柯南"] > 0 and mem.suspicion["银时"] < 0
    assert "柯南" in out.answer["message"] and "银时" in out.answer["message"]
    # a retried identical turn changes nothing and writes nothing
    before = store.calls
    play(turn("speak", role="seer", rnd=2, known=known, chat=chat, game_id=gid), store)
    assert store.calls - before == 1
    assert GameMemory.from_item(store.get("GAME#mem-game#3", "META"), gid, "3").seer_results == mem.seer_results


def test_guard_and_witch_history_survive_turns(aws):
    from werewolf.player import play

    store = aws
    a1 = play(turn("guard_protect", role="guard", rnd=1, game_id="g-h"), store).answer["target"]
    a2 = play(turn("guard_protect", role="guard", rnd=2, game_id="g-h"), store).answer["target"]
    assert a1 != a2
    extra = {"wolfVictimName": "柯南", "wolfVictimId": "i", "hasSavePotion": True, "hasPoisonPotion": True}
    assert play(turn("witch_decide", role="witch", rnd=1, extra=extra, game_id="w-h"), store).answer == {
        "witch_action": "save"}
    # an old engine that omits the potion flags: our memory knows the save is spent
    extra2 = {"wolfVictimName": "路飞", "wolfVictimId": "j"}
    assert play(turn("witch_decide", role="witch", rnd=2, extra=extra2, game_id="w-h"), store).answer == {
        "witch_action": "none"}


def test_store_outage_still_answers(monkeypatch):
    from werewolf.player import play

    class Broken:
        def get(self, *a, **k):
            raise RuntimeError("dynamodb down")

        def put(self, *a, **k):
            raise RuntimeError("dynamodb down")

    out = play(turn("vote", game_id="x"), Broken())
    assert out.answer["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}


# ------------------------------------------------------------------------------------------ speech

def test_villager_speech_consolidates_on_the_seers_wolf():
    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。今天我投银时，好人请集中投银时。")]
    out = play(turn("speak", chat=chat), InMemoryStore())
    msg = out.answer["message"]
    assert msg.startswith("我是村民。") and "我相信预言家柯南" in msg and "我投银时" in msg
    assert msg.index("预言家柯南", msg.index("我怀疑银时")) > 0  # the reason cites the seer
    assert play(turn("vote", chat=chat), InMemoryStore()).answer == {"target": "银时"}


def test_a_second_seer_claim_against_a_known_good_player_is_a_wolf_but_the_vote_stays_the_villages():
    """We know 路飞 lies (he calls us a wolf), but the village sees two seer claims contesting each other and votes
    neither: we vote with the village (alone, our vote on him would only split it). A villager who knows nothing
    votes us (the contested claimant's "wolf"), so our vote goes to the next name of the same ranking."""
    from werewolf.knowledge import build_view
    from werewolf.memory import GameMemory, InMemoryStore
    from werewolf.models import WerewolfTurn
    from werewolf.player import play

    chat = [("柯南", "我是预言家。第1晚验银时是好人（金水）。"),
            ("路飞", "我是预言家。第1晚验MyBot是狼人（查杀）。今天我投MyBot。")]
    payload = turn("vote", chat=chat)
    view = build_view(WerewolfTurn.lenient(payload), GameMemory(game_id="game-1", seat="3"))
    assert "路飞" in view.known_wolves and view.trusted_seer == "柯南"
    ours = play(payload, InMemoryStore()).answer["target"]
    other = play(turn("vote", chat=chat, seat=4), InMemoryStore()).answer["target"]  # 小丸子, told nothing
    assert other == "MyBot" and ours not in ("柯南", "路飞")


def test_wolf_speech_never_exposes_teammates():
    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    mates = {"teammates": [{"name": "路飞", "seat": 2, "role": "werewolf", "alive": True}]}
    chat = [("柯南", "我怀疑路飞，投路飞。"), ("鸣人", "我也投路飞。")]
    for g in range(6):
        out = play(turn("speak", role="werewolf", extra=mates, chat=chat, game_id=f"ws{g}"), InMemoryStore())
        assert "投路飞" not in out.answer["message"] and "我是村民" in out.answer["message"]
        vote = play(turn("vote", role="werewolf", extra=mates, chat=chat, game_id=f"ws{g}"), InMemoryStore())
        assert vote.answer["target"] not in ("路飞", "MyBot")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_personalities_differ_beyond_opener_and_closer_and_stay_readable(lang):
    """Each personality phrases claims, votes, rallies and reasons its own way (not only the first and last
    phrase), and what it says still reads back as the same claim, check, accusation and vote declaration."""
    from werewolf.knowledge import build_view
    from werewolf.memory import GameMemory, InMemoryStore
    from werewolf.models import WerewolfTurn
    from werewolf.player import play
    from werewolf.speech import STYLES, Say
    from werewolf.talk import seer_keeps_quiet

    # two checks: a seer whose one living check is a wolf may name him without claiming (seer_steers)
    known = ["Round 1: You checked 小丸子 → villager", "Round 2: You checked 银时 → werewolf"]

    def must_claim(gid: str) -> bool:  # the village's consensus is not already 银时 (else the seer keeps quiet)
        seen = build_view(WerewolfTurn.lenient(turn("speak", role="seer", known=known, game_id=gid)),
                          GameMemory(game_id=gid, seat="3"))
        return not seer_keeps_quiet(seen)

    bodies = {}
    for style in ("calm", "aggressive", "friendly"):
        say = Say(lang=lang, style=style)
        gid = next(g for g in (f"{style}-{i}" for i in range(20)) if must_claim(g))
        seer = play(turn("speak", role="seer", known=known, game_id=gid), InMemoryStore(), say=say).answer["message"]
        opener, closer = STYLES[lang][style]
        body = seer.removeprefix(opener).removesuffix(closer)
        quiet = play(turn("speak", game_id=f"q-{style}"), InMemoryStore(), say=say).answer["message"]
        bodies[style] = (body, quiet.removeprefix(opener).removesuffix(closer))
        # another of our agents hears it: seer claim, the check, the vote declaration, the accusation
        heard = turn("vote", seat=1, chat=[("MyBot", seer)], game_id=f"h-{style}")
        view = build_view(WerewolfTurn.lenient(heard), GameMemory(game_id=f"h-{style}", seat="1"))
        assert view.trusted_seer == "MyBot", (style, seer)
        assert view.memory.claimed_checks["MyBot"] == {"小丸子": "villager", "银时": "werewolf"}, (style, seer)
        assert view.declared_votes == {"MyBot": "银时"} and "MyBot" in view.memory.accusations["银时"], (style, seer)
    for a, b in (("calm", "aggressive"), ("calm", "friendly"), ("aggressive", "friendly")):
        assert bodies[a][0] != bodies[b][0] and bodies[a][1] != bodies[b][1], (a, b, bodies)


# ------------------------------------------------------------------------------------------ LLM strategy

@pytest.fixture
def fake():
    with FakeLLM() as f:
        yield f


def llm_policy(fake, margin=0.3):
    from werewolf.llm_strategy import LlmPolicy

    from agenthost.llm.openai import OpenAIProvider

    return LlmPolicy(OpenAIProvider("m", base_url=fake.base_url), margin_s=margin)


def test_llm_answer_is_used_when_valid(fake):
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    fake.reply({"message": "我是村民。我观察到鸣人发言前后矛盾，今天我投鸣人。"})
    out = play(turn("speak"), InMemoryStore(), policy=llm_policy(fake), deadline=time.monotonic() + 10)
    assert out.source == "llm" and "鸣人" in out.answer["message"]
    prompt = fake.requests[0]["messages"][1]["content"]
    assert "deterministic_suggestion" in prompt and "CHAT-" in prompt


@pytest.mark.parametrize("reply", [
    {"target": "MyBot"},                # ourselves
    {"target": "小明"},                 # not a player
    {"target": "路飞 "},                # fine after trim -> accepted (checked below)
    {"message": "vote"},                # wrong shape for a vote
    "not json",
])
def test_llm_invalid_answers_are_replaced(fake, reply):
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    fake.reply(reply)
    out = play(turn("vote"), InMemoryStore(), policy=llm_policy(fake), deadline=time.monotonic() + 10)
    assert out.answer["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    if reply == {"target": "路飞 "}:
        assert out.source == "llm" and out.answer == {"target": "路飞"}
    else:
        assert out.source == "deterministic"


def test_llm_wolf_cannot_kill_a_teammate_or_guard_repeat(fake):
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    mates = {"teammates": [{"name": "路飞", "seat": 2, "role": "werewolf", "alive": True}]}
    fake.reply({"target": "路飞", "message": "刀路飞"})
    out = play(turn("choose_kill_target", role="werewolf", extra=mates, phase="night_werewolf"), InMemoryStore(),
               policy=llm_policy(fake), deadline=time.monotonic() + 10)
    assert out.source == "deterministic" and out.answer["target"] != "路飞"
    store = InMemoryStore()
    first = play(turn("guard_protect", role="guard", rnd=1, game_id="gg"), store).answer["target"]
    fake.reply({"target": first})
    out = play(turn("guard_protect", role="guard", rnd=2, game_id="gg"), store, policy=llm_policy(fake),
               deadline=time.monotonic() + 10)
    assert out.source == "deterministic" and out.answer["target"] != first


def test_llm_dreamweaver_cannot_repeat_last_nights_pair(fake):
    """The engine skips a dreamweaver check naming last night's pair: such an LLM answer is replaced."""
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    store = InMemoryStore()
    first = play(turn("dreamweaver_check", role="dreamweaver", rnd=1, game_id="dw", phase="night_dreamweaver"),
                 store).answer
    fake.reply({"target": first["second_target"], "second_target": first["target"]})
    out = play(turn("dreamweaver_check", role="dreamweaver", rnd=2, game_id="dw", phase="night_dreamweaver"),
               store, policy=llm_policy(fake), deadline=time.monotonic() + 10)
    pair = {out.answer["target"], out.answer["second_target"]}
    assert out.source == "deterministic" and len(pair) == 2 and pair != {first["target"], first["second_target"]}


def test_slow_llm_falls_back_within_the_deadline(fake):
    import time

    from werewolf.memory import InMemoryStore
    from werewolf.player import play

    hang_s = 30.0  # a model that never answers in time
    fake.reply({"target": "柯南"}, delay=hang_s)
    started = time.monotonic()
    out = play(turn("vote"), InMemoryStore(), policy=llm_policy(fake), deadline=started + 2.0)
    assert time.monotonic() - started < within(2.0, before=hang_s) and out.source == "deterministic"


def test_handler_uses_the_configured_llm(aws, fake, monkeypatch):
    from agenthost import config, llm

    monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "sk-test")
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "true")  # the fake model listens on loopback
    config.reset()
    llm.reset()
    fake.reply({"target": "小丸子"})
    try:
        assert post(turn("vote")).json() == {"target": "小丸子"}
        fake.reply(status=500)
        fake.reply(status=500)
        assert post(turn("vote")).json()["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    finally:
        llm.reset()


def test_handler_turn_is_one_read_and_one_write_with_its_usage(aws, rollup):
    """One memory read and one write: the memory when the turn changed it (the usage rides on it), else
    metering's own usage item. The rollup counts both turns."""
    from agenthost import metering
    from tests.support.usage import DynamoCalls

    with DynamoCalls() as calls:
        r = post(turn("seer_check", role="seer", rnd=1, phase="night_seer", game_id="rt"))
        assert r.status == 200 and calls.ops == ["GetItem", "PutItem"]
        calls.ops.clear()
        again = post(turn("seer_check", role="seer", rnd=1, phase="night_seer", game_id="rt"))
        assert again.status == 200 and calls.ops == ["GetItem", "PutItem"]  # nothing new: the turn's usage item
    rollup()
    item = aws.get(**metering.usage_key(metering.day_of(__import__("time").time()), "werewolf", "werewolf"))
    assert (item["turns"], item["ddb_calls"]) == (2, 4)
    assert aws.get("GAME#rt#3", "META") is not None
