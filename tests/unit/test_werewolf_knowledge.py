"""Werewolf knowledge: what one turn's view makes of the roster, the judge's lines and the chat."""

from __future__ import annotations

from werewolf.knowledge import build_view
from werewolf.memory import GameMemory
from werewolf.models import WerewolfTurn

from tests.support.werewolf import ROSTER, turn

SYS = "系统"


def view(payload, mem=None):
    return build_view(WerewolfTurn.lenient(payload), mem or GameMemory(game_id=payload["game_id"], seat="3"))


def test_vote_declarations_count_from_the_last_daybreak_even_when_the_chat_was_read_before():
    day1 = [(SYS, "天亮了，昨晚平安夜。"), ("柯南", "我投给路飞。"), (SYS, "投票结束。")]
    mem = GameMemory(game_id="g", seat="3")
    first = view(turn("speak", chat=day1, game_id="g"), mem)
    assert first.declared_votes == {"柯南": "路飞"}
    day2 = day1 + [(SYS, "天亮了，昨晚平安夜。"), ("银时", "我投给鸣人。")]
    second = view(turn("vote", chat=day2, game_id="g"), mem)
    assert second.declared_votes == {"银时": "鸣人"}  # yesterday's declaration is not today's
    assert mem.chat_seen == len(day2)


def test_a_death_the_judge_announces_removes_the_player_before_the_roster_does():
    v = view(turn("vote", chat=[(SYS, "天亮了，柯南死亡。"), ("路飞", "大家好。")]))
    assert "柯南" not in v.alive and "柯南" not in v.targets and "柯南" in v.memory.dead
    quiet = view(turn("vote", chat=[(SYS, "天亮了，昨晚平安夜，无人死亡。柯南请发言。")], game_id="g2"))
    assert "柯南" in quiet.alive  # "nobody died" names nobody dead


def test_the_wolves_night_chat_gives_the_last_kill_called():
    chat = [("银时", "今晚刀柯南吧。"), ("鸣人", "不，刀路飞。")]
    v = view(turn("choose_kill_target", role="werewolf", phase="night_wolf", chat=chat,
                  extra={"teammates": [{"name": "银时"}, {"name": "鸣人"}]}))
    assert v.wolf_chat_kill == "路飞" and v.teammates == ["银时", "鸣人"]


def test_the_first_seer_claim_is_trusted_and_the_wolf_it_named_claiming_back_is_suspected():
    chat = [("柯南", "我是预言家。第1晚验银时是狼人（查杀）。"), ("银时", "我是预言家，柯南是假的。")]
    v = view(turn("vote", chat=chat))
    assert v.trusted_seer == "柯南" and v.trusted_checks == {"银时": "werewolf"}
    assert "银时" in v.known_wolves and "柯南" in v.known_good
    assert v.public_score["银时"] > v.public_score["小丸子"] > v.public_score["柯南"]
    assert v.best(v.targets, v.score) == "银时"


def test_two_seer_claims_are_contested_until_the_wolves_kill_one_of_them():
    """A madman claiming first and the real seer answering: nobody is trusted; the wolves then kill the real
    seer at night, which exposes the other claimant."""
    day1 = [(SYS, "天亮了，昨晚平安夜。"), ("柯南", "我是预言家。第1晚验银时是狼人（查杀）。"),
            ("路飞", "我是预言家。第1晚验小丸子是好人（金水），柯南是假的。")]
    v = view(turn("vote", chat=day1))
    assert v.trusted_seer is None and "银时" not in v.known_wolves and "小丸子" not in v.known_good
    assert v.public_score["柯南"] == v.public_score["路飞"]  # neither is held against the other yet
    day2 = day1 + [(SYS, "天亮了，昨晚路飞死亡。")]
    v = view(turn("vote", chat=day2, dead=[("路飞", 2)], alive=[x for x in ROSTER if x[0] != "路飞"]))
    assert v.trusted_seer == "路飞" and "柯南" in v.public_wolves and "小丸子" in v.public_good
    assert v.best(v.targets, v.score) == "柯南"
