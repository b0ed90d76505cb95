"""The Werewolf Arena webhook contract, per action type and per mode, through the Lambda handler.

Payloads come from two sources: every payload the rules simulator sends in full random games of all 8
modes, and hand-built edge cases (stale rosters, last words while still listed alive, witch with no
victim, an enchanted guard, malformed state). Each answer is checked with the simulator's strict
validator against the true alive set (not the payload's roster)."""

from __future__ import annotations

import json

import pytest

from infra.werewolf_sim import validate
from infra.werewolf_sim.engine import MODES
from tests.support.apigw import call
from tests.support.werewolf import ROSTER, covering_payloads, mode_actions, turn

ACTIONS = {"speak", "speak_rebuttal", "vote", "choose_kill_target", "seer_check", "witch_decide",
           "guard_protect", "cupid_link", "dreamweaver_check", "enchant_target", "knight_speak",
           "hunter_shoot", "wolf_king_revenge", "last_words"}


def answer(payload) -> dict:
    from werewolf.app import handler

    r = call(handler, "POST", "/werewolf/turn", body=json.dumps(payload, ensure_ascii=False).encode(),
             headers={"content-type": "application/json"})
    assert r.status == 200, r.text
    return r.json()


@pytest.mark.parametrize("mode", list(MODES))
def test_every_action_type_of_a_mode_gets_a_valid_answer(aws, mode):
    """Real payloads of every action type the mode can ask for (a few of each, from as many seeded games as
    it takes), each answer checked against the true alive set, the teammates, the witch's potions and the
    guard's last target."""
    payloads = covering_payloads(mode)
    seen = set()
    for p, truly_alive in payloads:
        mates = {t["name"] for t in p["extra_context"].get("teammates", [])}
        me = next(x["name"] for x in p["alive_players"] + p["dead_players"] if x["seat"] == p["your_seat"])
        a = answer(p)
        problems = validate.check(p["action_type"], a, truly_alive - {me}, strict=True, teammates=mates,
                                  witch=p["extra_context"] if p["action_type"] == "witch_decide" else None)
        assert not problems, (p["action_type"], a, problems)
        seen.add(p["action_type"])
    assert seen == mode_actions(mode), f"{mode}: never asked {sorted(mode_actions(mode) - seen)}"


def test_all_fourteen_action_types_are_covered_by_the_modes():
    assert set().union(*(mode_actions(m) for m in MODES)) == ACTIONS
    assert mode_actions("classic-6p") == {"speak", "speak_rebuttal", "vote", "choose_kill_target", "seer_check",
                                          "last_words"}


def test_spec_example_seer_speaks_with_content(aws):
    p = turn("speak", role="seer",
             known=["Round 1: You checked 路飞 → villager", "Round 2: You checked 银时 → werewolf"],
             chat=[("【系统】", "天亮了，昨晚小丸子被杀害了。"), ("柯南", "我觉得5号很可疑，他昨天发言矛盾。")],
             alive=[("柯南", 1), ("路飞", 2), ("MyBot", 3), ("银时", 5)], dead=[("小丸子", 4)])
    msg = answer(p)["message"]
    assert "预言家" in msg and "银时" in msg and "狼" in msg and "路飞" in msg and "投银时" in msg
    assert answer({**p, "action_type": "vote"}) == {"target": "银时"}


def test_last_words_while_still_listed_alive(aws):
    p = turn("last_words", role="seer", phase="day_vote", known=["Round 1: You checked 银时 → werewolf"],
             chat=[("【系统】", "MyBot被投票出局。")])
    a = answer(p)
    assert set(a) == {"message"} and "遗言" in a["message"] and "银时" in a["message"]


def test_stale_roster_after_knight_flip_is_never_targeted(aws):
    # 银时 died in the knight's duel, but the roster still lists them alive
    chat = [("【系统】", "骑士路飞翻牌决斗银时，银时是狼人，银时出局。")]
    for action in ("vote", "seer_check", "choose_kill_target", "guard_protect", "hunter_shoot"):
        for g in range(5):
            a = answer(turn(action, role="seer" if action == "seer_check" else "villager", chat=chat,
                            phase="day_vote", game_id=f"stale-{action}-{g}"))
            assert a["target"] in {"柯南", "路飞", "小丸子", "鸣人"}, (action, a)


def test_dead_list_wins_over_alive_list(aws):
    p = turn("vote", alive=ROSTER_WITH_DUP, dead=[("银时", 5)])
    for g in range(6):
        assert answer({**p, "game_id": f"dup-{g}"})["target"] != "银时"


ROSTER_WITH_DUP = [("柯南", 1), ("路飞", 2), ("MyBot", 3), ("银时", 5)]


def test_witch_with_no_victim_never_saves(aws):
    extra = {"wolfVictimName": None, "wolfVictimId": None, "hasSavePotion": True, "hasPoisonPotion": True}
    a = answer(turn("witch_decide", role="witch", phase="night_witch", rnd=1, extra=extra))
    assert a["witch_action"] in ("none", "poison") and a["witch_action"] != "save"


def test_witch_saves_night_one_including_herself(aws):
    for victim in ("柯南", "MyBot"):
        extra = {"wolfVictimName": victim, "wolfVictimId": "x1", "hasSavePotion": True, "hasPoisonPotion": True}
        a = answer(turn("witch_decide", role="witch", phase="night_witch", rnd=1, extra=extra, game_id=victim))
        assert a == {"witch_action": "save"}


def test_witch_without_potions_answers_none(aws):
    extra = {"wolfVictimName": "柯南", "wolfVictimId": "x1", "hasSavePotion": False, "hasPoisonPotion": False}
    a = answer(turn("witch_decide", role="witch", phase="night_witch", rnd=3, extra=extra,
                    known=["Round 1 votes: 柯南→MyBot"]))
    assert a == {"witch_action": "none"}


def test_witch_poisons_a_seer_exposed_wolf(aws):
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。今天我投银时。")]
    extra = {"wolfVictimName": None, "wolfVictimId": None, "hasSavePotion": False, "hasPoisonPotion": True}
    a = answer(turn("witch_decide", role="witch", phase="night_witch", rnd=2, extra=extra, chat=chat))
    assert a == {"witch_action": "poison", "target": "银时"}


def test_witch_poisons_once_only_two_players_are_not_vouched_for(aws):
    """Every victim the wolves chose is good: the witch poisons when the rest is down to two players."""
    def night(rnd, victim, save, alive, dead=()):
        extra = {"wolfVictimName": victim, "wolfVictimId": "v", "hasSavePotion": save, "hasPoisonPotion": True}
        return answer(turn("witch_decide", role="witch", phase="night_witch", rnd=rnd, extra=extra, alive=alive,
                           dead=list(dead), game_id="witch-pool"))

    assert night(1, "柯南", True, ROSTER) == {"witch_action": "save"}
    # 路飞 is the victim and dies: 小丸子, 银时, 鸣人 are unknown (three): no poison yet
    assert night(2, "路飞", False, ROSTER) == {"witch_action": "none"}
    alive = [x for x in ROSTER if x[0] != "路飞"]
    a = night(3, "小丸子", False, alive, dead=[("路飞", 2)])  # 柯南 and 小丸子 vouched for: 银时, 鸣人 left
    assert a["witch_action"] == "poison" and a["target"] in ("银时", "鸣人")


def test_guard_never_repeats_with_only_an_internal_last_protected_id(aws):
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。")]
    targets = []
    for rnd in (2, 3, 4, 5):
        # lastProtectedId is an internal id we cannot map: our own memory of the last pick decides
        a = answer(turn("guard_protect", role="guard", phase="night_guard", rnd=rnd, chat=chat,
                        extra={"lastProtectedId": "f3a9c2"}, game_id="guard-game"))
        targets.append(a["target"])
    assert targets[0] == "柯南"  # protects the claimed seer first
    assert all(a != b for a, b in zip(targets, targets[1:], strict=False))
    assert "MyBot" not in targets


def test_enchanted_guard_in_nightmare_games(aws):
    """nightmare-12p with the enchantress enchanting the guard every night: from night 2 on the guard's pick
    protects nobody (the wolves, scripted to kill that pick, succeed), yet our guard, answering through the
    handler, still never repeats its last pick (the strict validator checks every answer too)."""
    from infra.werewolf_sim.engine import Game
    from infra.werewolf_sim.players import HandlerPlayer

    agent = HandlerPlayer(None)
    void_kills = guarded_night1 = 0
    for seed in range(1, 9):
        game = Game("nightmare-12p", seed)
        guard = next(p for p in game.players if p.role == "guard")

        def enchant(p, guard=guard):
            return {"target": guard.name}, None

        def wolf(p, game=game):
            pick = game.by_name(game.guard_pick) if game.guard_pick else None
            if pick and pick.alive and pick.role not in ("werewolf", "white_wolf", "wolf_king", "enchantress"):
                return {"target": pick.name, "message": f"今晚刀{pick.name}。"}, None
            return game.bots[p["your_seat"]](p)

        def witch(p):
            return {"witch_action": "none"}, None

        actors = {guard.seat: agent}
        for p in game.players:
            if p.role == "enchantress":
                actors[p.seat] = enchant
            elif p.role == "werewolf":
                actors[p.seat] = wolf
            elif p.role == "witch":
                actors[p.seat] = witch
        game.actors = actors
        res = game.run()
        mine = [c for c in res.calls if c.seat == guard.seat]
        assert mine and all(c.valid for c in mine), [c.problems for c in mine if not c.valid]
        picks = [n["guard_pick"] for n in game.night_log if n["guard_pick"]]
        assert all(a != b for a, b in zip(picks, picks[1:], strict=False)), picks
        for night in game.night_log:
            if not night["guard_pick"]:
                continue
            if night["enchanted"] is None:  # night 1, or the enchantress died: the pick is protected
                assert night["protected"] == night["guard_pick"], night
                if night["victim"] == night["guard_pick"]:
                    assert night["victim"] not in night["deaths"]
                    guarded_night1 += night["round"] == 1
                continue
            assert night["round"] > 1 and night["enchanted"] == guard.name and night["protected"] is None, night
            if night["victim"] == night["guard_pick"] and night["victim"] not in night["dream"]:
                assert night["victim"] in night["deaths"], night  # the enchanted guard's pick died
                void_kills += 1
    assert void_kills >= 3 and guarded_night1 >= 3, (void_kills, guarded_night1)


def test_wolves_never_target_teammates_and_follow_the_first_call(aws):
    mates = {"teammates": [{"name": "路飞", "seat": 2, "role": "werewolf", "alive": True}]}
    for g in range(8):
        a = answer(turn("choose_kill_target", role="werewolf", phase="night_werewolf", rnd=1, extra=mates,
                        game_id=f"wolf-{g}"))
        assert a["target"] not in ("路飞", "MyBot") and a["message"]
    chat = [("路飞", "今晚刀柯南，大家统一。")]
    a = answer(turn("choose_kill_target", role="werewolf", phase="night_werewolf", rnd=1, extra=mates, chat=chat))
    assert a["target"] == "柯南"


def test_wolves_kill_the_claimed_seer(aws):
    mates = {"teammates": [{"name": "路飞", "seat": 2, "role": "werewolf", "alive": True}]}
    chat = [("鸣人", "我是预言家。第1晚验路飞是狼人（查杀）。今天我投路飞。")]
    a = answer(turn("choose_kill_target", role="werewolf", phase="night_werewolf", rnd=2, extra=mates,
                    chat=chat, game_id="kill-seer"))
    assert a["target"] in ("柯南", "小丸子", "银时", "鸣人")
    # the wolf chat at night holds only tonight's messages: the claim is remembered from the day
    answer(turn("speak", role="werewolf", extra=mates, chat=chat, game_id="kill-seer2"))
    a = answer(turn("choose_kill_target", role="werewolf", phase="night_werewolf", rnd=2, extra=mates,
                    game_id="kill-seer2"))
    assert a["target"] == "鸣人"


def test_knight_flips_on_a_sure_wolf_with_message(aws):
    # two exposed wolves: the village votes out one, the knight duels the other (never one the vote takes anyway)
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。第2晚验路飞是狼人（查杀）。今天我投银时。")]
    a = answer(turn("knight_speak", role="knight", chat=chat, rnd=3))
    assert a["flip"] is True and a["target"] == "路飞" and validate.sanitize(a["message"])
    a = answer(turn("knight_speak", role="knight", game_id="no-info"))
    assert set(a) == {"message"}


def test_pairs_are_distinct_alive_non_self(aws):
    for action in ("cupid_link", "dreamweaver_check"):
        a = answer(turn(action, role="cupid" if action == "cupid_link" else "dreamweaver", phase="night", rnd=1))
        assert a["target"] != a["second_target"]
        assert {a["target"], a["second_target"]} <= {"柯南", "路飞", "小丸子", "银时", "鸣人"}


@pytest.mark.parametrize("bad", [
    {}, {"action_type": "vote"}, {"action_type": "vote", "alive_players": []},
    {"action_type": "launch_rocket", "alive_players": [{"name": "A", "seat": 1}, {"name": "B", "seat": 2}]},
    {"action_type": "speak", "alive_players": "nope", "chat_history": 5, "known_info": {"x": 1}},
    {"action_type": "vote", "your_seat": "x", "alive_players": [{"seat": 1}, {"name": None}, 7, "柯南"]},
    {"action_type": "witch_decide", "extra_context": []},
    {"action_type": "cupid_link", "alive_players": [{"name": "A", "seat": 1}], "your_seat": 2},
])
def test_malformed_state_still_gets_200_and_an_object(aws, bad):
    a = answer(bad)
    assert isinstance(a, dict) and a
    if bad.get("action_type") == "witch_decide":
        assert a == {"witch_action": "none"}
    if bad.get("action_type") == "vote" and isinstance(bad.get("alive_players"), list):
        names = [p.get("name") if isinstance(p, dict) else p for p in bad["alive_players"]]
        if "柯南" in names:
            assert a["target"] == "柯南"


def test_non_json_body_answers_200_with_a_message(aws):
    from werewolf.app import handler

    r = call(handler, "POST", "/werewolf/turn", body=b"\xff not json", headers={"content-type": "application/json"})
    assert r.status == 200 and r.json()["message"]


def test_get_is_not_a_turn_but_answers_200_and_other_methods_405(aws):
    from werewolf.app import handler

    r = call(handler, "GET", "/werewolf/turn")
    assert r.status == 200 and r.json()["status"] == "ok" and "POST" in r.json()["message"]
    assert call(handler, "HEAD", "/werewolf/turn").status == 200
    r = call(handler, "PUT", "/werewolf/turn", body=b"{}", headers={"content-type": "application/json"})
    assert r.status == 405 and r.json()["error"] == "method_not_allowed"
    assert not aws.client.scan(TableName=aws.table_name)["Items"]  # nothing was played or stored


def test_a_turn_over_one_megabyte_is_played(aws):
    """A late game's chat can pass 1 MB (more with escaped JSON): still a turn, still a valid answer."""
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。今天我投银时。")]
    chat += [(n, "我觉得场上有点乱，" * 50) for _ in range(300) for n in ("路飞", "小丸子", "鸣人")]
    p = turn("vote", chat=chat, game_id="big")
    body = json.dumps(p).encode()  # \u-escaped: about 6 bytes per Chinese character
    assert len(body) > 1_500_000
    from werewolf.app import handler

    r = call(handler, "POST", "/werewolf/turn", body=body, headers={"content-type": "application/json"})
    assert r.status == 200 and r.json() == {"target": "银时"}


def test_english_and_personality(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_WEREWOLF_LANGUAGE", "en")
    monkeypatch.setenv("AGENTHOST_WEREWOLF_PERSONALITY", "aggressive")
    # two checks: a seer whose only news is a wolf the village already votes keeps quiet
    a = answer(turn("speak", role="seer", known=["Round 1: You checked 银时 → werewolf",
                                                 "Round 2: You checked 鸣人 → villager"]))
    assert "I am the seer" in a["message"] and "I vote 银时" in a["message"] and "Straight to it" in a["message"]
