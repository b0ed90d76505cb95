"""Speech with content (claims, check results, vote intentions and reasons), in Chinese or English and
in one of a few personalities. Phrasing is chosen so that our own parser (``knowledge``) reads it back:
claims as ``我是<role>``, checks as ``第N晚验X是狼人`` in one clause, votes as ``我投X``."""

from __future__ import annotations

from dataclasses import dataclass

ROLE_ZH = {"seer": "预言家", "witch": "女巫", "guard": "守卫", "hunter": "猎人", "knight": "骑士", "elder": "长老",
           "cupid": "丘比特", "dreamweaver": "摄梦人", "villager": "村民"}

STYLES = {
    "zh": {
        "calm": ("", "我的逻辑就这些，请大家冷静判断。"),
        "aggressive": ("直说了，", "不要犹豫，跟票！"),
        "friendly": ("大家好，", "谢谢大家，一起把狼找出来。"),
    },
    "en": {
        "calm": ("", "That is my reasoning, judge calmly."),
        "aggressive": ("Straight to it: ", "No hesitation, follow the vote!"),
        "friendly": ("Hi all, ", "Thanks everyone, let's find the wolves together."),
    },
}


@dataclass
class Say:
    lang: str = "zh"
    style: str = "calm"

    @property
    def zh(self) -> bool:
        return self.lang != "en"

    def wrap(self, body: str) -> str:
        table = STYLES["zh" if self.zh else "en"]
        opener, closer = table.get(self.style, table["calm"])
        return f"{opener}{body}{closer}"

    def role(self, role: str) -> str:
        return ROLE_ZH.get(role, "村民") if self.zh else (role if role in ROLE_ZH else "villager")

    def claim(self, role: str) -> str:
        return f"我是{self.role(role)}。" if self.zh else f"I am the {self.role(role)}. "

    def check(self, night: int | str, name: str, result: str) -> str:
        if self.zh:
            verdict = "狼人（查杀）" if result == "werewolf" else "好人（金水）"
            return f"第{night}晚验{name}是{verdict}。"
        verdict = "a werewolf" if result == "werewolf" else "a good villager"
        return f"Night {night} I checked {name} and found {verdict}. "

    def vote(self, name: str, reason: str = "") -> str:
        if self.zh:
            return f"今天我投{name}" + (f"，理由：{reason}。" if reason else "。")
        return f"I vote {name}" + (f" because {reason}. " if reason else ". ")

    def rally(self, name: str) -> str:
        return (f"好人请集中投{name}，不要分票。" if self.zh
                else f"Good players, put every vote on {name} so the vote does not tie. ")

    def suspect(self, name: str, reason: str) -> str:
        return f"我怀疑{name}，{reason}。" if self.zh else f"I suspect {name}: {reason}. "

    def trust(self, name: str, why: str) -> str:
        return f"{name}我认为是好人，{why}。" if self.zh else f"I believe {name} is good: {why}. "

    def reason_accused(self, n: int) -> str:
        return f"有{n}人点了他" if self.zh else f"{n} players pointed at them"

    def reason_seer(self, seer: str) -> str:
        return f"预言家{seer}验出他是狼人" if self.zh else f"the seer {seer} checked them as a wolf"

    def reason_mine(self) -> str:
        return "我亲自查验他是狼人" if self.zh else "I checked them myself: a werewolf"

    def reason_doubt_seer(self) -> str:
        return ("他跳预言家但查验和投票都对不上，我不认" if self.zh
                else "their seer claim does not match the checks and votes")

    def reason_votes(self) -> str:
        return "他的投票和好人方向相反" if self.zh else "their votes went against the good side"

    def reason_none(self) -> str:
        return "目前信息最少、发言最划水" if self.zh else "they gave the least information so far"

    def reason_fake_seer(self, name: str) -> str:
        return f"{name}冒充预言家，是狼" if self.zh else f"{name} is a false seer, so a wolf"

    def defend(self, accusers: list[str]) -> str:
        who = "、".join(accusers[:3]) if self.zh else ", ".join(accusers[:3])
        return (f"{who}怀疑我，但我是好人，请看我的投票记录。" if self.zh
                else f"{who} suspect me, but I am on the good side; check my votes. ")

    def hunter_threat(self, name: str) -> str:
        return (f"我是猎人，如果出我，我会开枪带走{name}。" if self.zh
                else f"I am the hunter; vote me out and I shoot {name}. ")

    def follow_seer(self, seer: str) -> str:
        return (f"我相信预言家{seer}，跟他的查验走。" if self.zh
                else f"I trust the seer {seer} and follow their checks. ")

    def kill_call(self, name: str) -> str:
        return f"今晚刀{name}，大家统一。" if self.zh else f"Tonight kill {name}, all together."

    def kill_follow(self, name: str) -> str:
        return f"同意，刀{name}。" if self.zh else f"Agreed, kill {name}."

    def flip(self, name: str) -> str:
        return (f"我是骑士，翻牌决斗{name}，他是狼！" if self.zh
                else f"I am the knight and I duel {name}: a werewolf! ")

    def last_words(self, role: str, body: str) -> str:
        if self.zh:
            return f"遗言：我的身份是{self.role(role)}。{body}"
        return f"Last words: I was the {self.role(role)}. {body}"

    def listen(self) -> str:
        return "我先听听大家的发言，再决定投票。" if self.zh else "I will listen to everyone before I decide my vote."

