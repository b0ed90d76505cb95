"""The task suite's loader and tables (no browser): families, seeded variants, per-family summaries."""

from infra.arena import suite
from infra.arena.report import Row, family_summary, print_tables


def test_load_filters_by_family_and_seeded_variants_carry_the_seed():
    _, tasks = suite.load(families=["basic"])
    assert len(tasks) == 13 and {t.family for t in tasks} == {"basic"}
    _, games = suite.load(only=["word-game", "login"])
    runs = suite.variants(games, [1, 2])
    assert [(label, start) for label, _t, start in runs] == [
        ("word-game@1", "word-game/index.html?seed=1"), ("word-game@2", "word-game/index.html?seed=2"),
        ("login", "login/index.html")]
    first = suite.variants(games, [])[0]
    assert (first[0], first[2]) == ("word-game", "word-game/index.html")


def test_family_summary_and_tables_count_solved_and_false_dones():
    rows = [Row("a@1", "game", True, False, 4, 2.0), Row("a@2", "game", False, True, 6, 4.0),
            Row("b", "form", False, False, 1, 1.0)]
    s = family_summary(rows)
    assert s["game"] == {"tasks": 2, "solved": 1, "false_done": 1, "turns": 5.0, "seconds": 3.0}
    assert s["form"]["solved"] == 0 and s["form"]["false_done"] == 0
    lines: list[str] = []
    print_tables(rows, out=lines.append)
    text = "\n".join(lines)
    assert "a@2" in text and "YES" in text
    assert "families fully solved: 0/2; tasks solved 1/3; false dones 1" in text
