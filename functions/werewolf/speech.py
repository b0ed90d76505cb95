"""Speech with content (claims, check results, vote intentions and reasons), in Chinese or English and
in one of a few personalities. Phrasing is chosen so that our own parser (``facts``) reads it back:
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

#: the sentences that carry content, per language and personality (missing keys fall back to ``calm``). Every
#: variant keeps what ``facts`` reads back: ``投X`` / ``vote X`` for a vote, one accused name per clause.
PHRASES: dict[str, dict[str, dict[str, str]]] = {
    "zh": {
        "calm": {
            "vote": "今天我投{name}，理由：{reason}。", "vote_plain": "今天我投{name}。",
            "rally": "好人请集中投{name}，不要分票。", "suspect": "我怀疑{name}，{reason}。",
            "follow_seer": "我相信预言家{seer}，跟他的查验走。", "listen": "我先听听大家的发言，再决定投票。",
            "no_case": "目前没有实锤，我不带节奏，也不踩还没发言的人；投票时按同一个顺序集中投一个人，不要分票。",
            "defend": "{who}怀疑我，但我是好人，请看我的投票记录。",
            "kill_call": "今晚刀{name}，大家统一。", "kill_follow": "同意，刀{name}。",
        },
        "aggressive": {
            "vote": "这票我投{name}，{reason}，没什么好犹豫的。", "vote_plain": "这票我投{name}，没得商量。",
            "rally": "所有好人全部投{name}，谁分票谁就可疑！", "suspect": "{name}在我眼里就是狼，{reason}。",
            "follow_seer": "预言家{seer}的查验我认，跟着他打。",
            "listen": "信息还不够，我先盯着每个人，下一轮谁划水我就投谁。",
            "no_case": "现在没有铁证，我不乱踩，更不踩没发言的人；投票时全体按同一个顺序集中一票，谁分票谁可疑！",
            "defend": "{who}踩我没有任何根据，我是好人，翻我的投票记录去。",
            "kill_call": "今晚直接刀{name}，别犹豫。", "kill_follow": "跟上，刀{name}。",
        },
        "friendly": {
            "vote": "我这轮投{name}，主要是因为{reason}，大家看看认不认同。",
            "vote_plain": "我这轮投{name}，欢迎大家补充。",
            "rally": "大家一起把票集中投{name}吧，分票就便宜狼了。", "suspect": "我个人有点怀疑{name}，{reason}。",
            "follow_seer": "我愿意相信预言家{seer}，跟着他的查验走。",
            "listen": "我想先多听听大家的想法，再一起商量投票。",
            "no_case": "目前还没有实锤，我先不怀疑任何人，也不针对还没发言的朋友；投票时我们按同一个顺序集中投票吧。",
            "defend": "{who}对我有怀疑我能理解，不过我是好人，可以看看我的投票记录。",
            "kill_call": "今晚我们刀{name}吧，大家统一一下。", "kill_follow": "好的，刀{name}。",
        },
    },
    "en": {
        "calm": {
            "vote": "I vote {name} because {reason}. ", "vote_plain": "I vote {name}. ",
            "rally": "Good players, put every vote on {name} so the vote does not tie. ",
            "suspect": "I suspect {name}: {reason}. ",
            "follow_seer": "I trust the seer {seer} and follow their checks. ",
            "listen": "I will listen to everyone before I decide my vote.",
            "no_case": "There is no evidence yet, so I accuse nobody, least of all someone who has not spoken; "
                       "at the vote let us follow one order and not split. ",
            "defend": "{who} suspect me, but I am on the good side; check my votes. ",
            "kill_call": "Tonight kill {name}, all together.", "kill_follow": "Agreed, kill {name}.",
        },
        "aggressive": {
            "vote": "I vote {name}, no question: {reason}. ", "vote_plain": "I vote {name}, end of story. ",
            "rally": "Everyone on {name} now; whoever splits the vote is next on my list. ",
            "suspect": "{name} is my wolf: {reason}. ",
            "follow_seer": "The seer {seer} has it right; I play their checks. ",
            "listen": "Not enough yet. I am watching everyone, and whoever stays vague gets my vote next round.",
            "no_case": "No hard evidence yet: I throw no names around, never at someone who has not spoken; at the "
                       "vote everyone follows one order, and whoever splits is suspect. ",
            "defend": "{who} have nothing on me; I am good, read my votes. ",
            "kill_call": "Kill {name} tonight, no debate.", "kill_follow": "On it, kill {name}.",
        },
        "friendly": {
            "vote": "I'd like to vote {name}, mainly because {reason}; tell me if you see it differently. ",
            "vote_plain": "I'd like to vote {name}; happy to hear other views. ",
            "rally": "Let's all put our votes together on {name}; a split vote only helps the wolves. ",
            "suspect": "I gently suspect {name}: {reason}. ",
            "follow_seer": "I am happy to trust the seer {seer} and follow their checks. ",
            "listen": "I'd like to hear everyone's thoughts first, then let's decide the vote together.",
            "no_case": "Nobody has shown evidence yet, so I point at no one, least of all someone who has not spoken; "
                       "let us follow one order at the vote together. ",
            "defend": "I understand why {who} suspect me, but I am on the good side; my votes show it. ",
            "kill_call": "Let's kill {name} tonight, everyone together.", "kill_follow": "Sounds good, kill {name}.",
        },
    },
}


REASONS_ZH = {
    "counter_claim": "他和先报的人抢同一个身份",
    "voted_good": "他把票投给了公认的好人",
    "accused_good": "他踩了公认的好人",
    "spared_wolf": "查杀出来的狼他不投",
    "against_village": "他的票和大家集中的方向相反",
    "no_claim": "他发言了却不报身份",
    "contested_wolf": "报预言家的人里有一位验他是狼",
}
REASONS_EN = {
    "counter_claim": "they claimed a role someone else claimed first",
    "voted_good": "they voted a player the village holds good",
    "accused_good": "they accused a player the village holds good",
    "spared_wolf": "they would not vote the exposed wolf",
    "against_village": "they voted against the village's choice",
    "no_claim": "they spoke without stating a role",
    "contested_wolf": "one of the seer claimants checked them as a wolf",
}


@dataclass
class Say:
    lang: str = "zh"
    style: str = "calm"

    @property
    def zh(self) -> bool:
        return self.lang != "en"

    def _p(self, key: str, **kw: str) -> str:
        table = PHRASES["zh" if self.zh else "en"]
        phrase = table.get(self.style, table["calm"]).get(key) or table["calm"][key]
        return phrase.format(**kw)

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
        return self._p("vote", name=name, reason=reason) if reason else self._p("vote_plain", name=name)

    def rally(self, name: str) -> str:
        return self._p("rally", name=name)

    def suspect(self, name: str, reason: str) -> str:
        return self._p("suspect", name=name, reason=reason)

    def trust(self, name: str, why: str) -> str:
        return f"{name}我认为是好人，{why}。" if self.zh else f"I believe {name} is good: {why}. "

    def reason_accused(self, n: int) -> str:
        return f"有{n}人点了他" if self.zh else f"{n} players pointed at them"

    def reason_seer(self, seer: str) -> str:
        # the seer's name and the wolf word in different clauses: a reader must not take it for an accusation
        return f"预言家{seer}验过，他是狼人" if self.zh else f"the seer {seer} checked them, and they are a wolf"

    def reason_mine(self) -> str:
        return "我亲自查验他是狼人" if self.zh else "I checked them myself: a werewolf"

    def reason_doubt_seer(self) -> str:
        return ("他跳预言家但查验和投票都对不上，我不认" if self.zh
                else "their seer claim does not match the checks and votes")

    def reason_votes(self) -> str:
        return "他的投票和好人方向相反" if self.zh else "their votes went against the good side"

    def reason_none(self) -> str:
        return "目前信息最少、发言最划水" if self.zh else "they gave the least information so far"

    def reason_read(self) -> str:
        return "这是我对场上的判断" if self.zh else "that is my read of the table"

    def reason_duel(self) -> str:
        return "骑士决斗验明他是狼人" if self.zh else "the knight's duel showed a wolf"

    def reason(self, key: str) -> str:
        """The evidence behind a suspicion, by its key in ``View.evidence``."""
        return (REASONS_ZH if self.zh else REASONS_EN).get(key, REASONS_ZH["no_claim"] if self.zh else
                                                         REASONS_EN["no_claim"])

    def saved(self, night: int | str, name: str) -> str:
        return (f"第{night}晚我用解药救了{name}，所以{name}是好人。" if self.zh
                else f"Night {night} I saved {name} from the wolves: {name} is good. ")

    def poisoned(self, night: int | str, name: str) -> str:
        return (f"第{night}晚我用毒药毒了{name}。" if self.zh else f"Night {night} I poisoned {name}. ")

    def no_case(self) -> str:
        return self._p("no_case")

    def reason_fake_seer(self, name: str) -> str:
        return f"{name}冒充预言家，是狼" if self.zh else f"{name} is a false seer, so a wolf"

    def defend(self, accusers: list[str]) -> str:
        return self._p("defend", who="、".join(accusers[:3]) if self.zh else ", ".join(accusers[:3]))

    def hunter_threat(self, name: str) -> str:
        return (f"我是猎人，如果出我，我会开枪带走{name}。" if self.zh
                else f"I am the hunter; vote me out and I shoot {name}. ")

    def follow_seer(self, seer: str) -> str:
        return self._p("follow_seer", seer=seer)

    def kill_call(self, name: str) -> str:
        return self._p("kill_call", name=name)

    def kill_follow(self, name: str) -> str:
        return self._p("kill_follow", name=name)

    def flip(self, name: str) -> str:
        return (f"我是骑士，翻牌决斗{name}，他是狼！" if self.zh
                else f"I am the knight and I duel {name}: a werewolf! ")

    def last_words(self, role: str, body: str) -> str:
        if self.zh:
            return f"遗言：我的身份是{self.role(role)}。{body}"
        return f"Last words: I was the {self.role(role)}. {body}"

    def listen(self) -> str:
        return self._p("listen")

