"""Chess skill: exact mate in one, the real engine for other positions, boards read from page tables, and a
clear refusal (no invented move) without an engine. The engine tests need Stockfish (bootstrap and CI
install Debian's package); they fail, not skip, when it is missing."""

from __future__ import annotations

import time

import chess as pychess
import pytest

from agenthost.skills import chess, solve
from tests.support.timing import stretch, waited, within

UNBOUNDED_S = 30.0  # what a search that ignored the deadline could take
SLOW_START_S = 5.0  # an engine whose start takes this long is not waited for

SCHOLAR = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
BACK_RANK_BLACK = "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"
# White wins the queen with a knight fork (Ne6+), not a mate in one
FORK = "3q4/6k1/8/8/5N2/8/8/1K6 w - - 0 1"


@pytest.fixture(autouse=True)
def _engine_closed():
    yield
    chess.close()


def test_mate_in_one_is_found_exactly_without_the_engine(monkeypatch):
    monkeypatch.setenv("AGENTHOST_STOCKFISH", "/nonexistent/stockfish")
    found = solve(f"White to move, FEN {SCHOLAR}. Find the best move.")
    assert found is not None and found.skill == "chess"
    assert found.answer == "Qxf7#" and found.alternatives == ["h5f7"]
    found = solve(f"Black to move: {BACK_RANK_BLACK.split()[0]}. Mate in one? Answer in UCI.")
    assert found.answer == "d8d1" and found.alternatives == ["Rd1#"]


def test_without_an_engine_no_move_is_invented(monkeypatch):
    monkeypatch.setenv("AGENTHOST_STOCKFISH", "/nonexistent/stockfish")
    assert solve(f"Best move? FEN {FORK}") is None
    with pytest.raises(chess.EngineMissing, match="no chess engine found"):
        chess.best_move(FORK)
    assert "no chess engine found" in chess.tools()[0].call({"fen": FORK})


def test_engine_is_installed():
    assert chess.engine_path(), "Stockfish is missing: `apt-get install stockfish` (bootstrap and .ci/run do it)"


def test_engine_finds_the_fork_within_the_deadline():
    assert chess.warm()
    budget = 1.5 * stretch()  # the turn's time, and what it must keep, later alike on a loaded machine
    started = time.monotonic()
    found = solve(f"White to move. What is the best move? {FORK}", deadline=time.monotonic() + budget)
    assert time.monotonic() - started < within(budget, before=UNBOUNDED_S)
    assert found is not None and found.skill == "chess"
    assert found.answer == "Ne6+" and found.alternatives == ["f4e6"]
    board = pychess.Board(FORK)
    assert board.parse_san(found.answer) in board.legal_moves


def test_engine_answer_is_legal_for_an_opening_position():
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert chess.warm()  # started before the search is timed (a start on a loaded machine takes seconds)
    # a search of 0.2 s of wall time gets a share of a CPU on a loaded machine: stretched so it still goes deeper
    move = chess.best_move(fen, time_limit=0.2 * stretch())
    assert pychess.Move.from_uci(move.uci) in pychess.Board(fen).legal_moves
    assert move.depth and move.depth > 1


def test_board_read_from_a_page_table():
    files = ["", "a", "b", "c", "d", "e", "f", "g", "h"]
    grid = [files, ["8", "♜", "", "", "", "", "", "♚", ""], ["7", "", "", "", "", "", "♟", "♟", "♟"],
            *[[str(r)] + [""] * 8 for r in (6, 5, 4, 3)], ["2", "", "", "", "", "", "♙", "♙", "♙"],
            ["1", "", "", "", "", "", "", "♔", "♖"]]
    assert chess.board_from_grid(grid) == "r5k1/5ppp/8/8/8/8/5PPP/6KR w - - 0 1"
    found = solve("Black to move. What is the best move?", context={"tables": [grid]})
    assert found.answer == "Ra1#"
    letters = [["r", "", "", "", "", "", "k", ""], ["", "", "", "", "", "p", "p", "p"], *[[""] * 8] * 4,
               ["", "", "", "", "", "P", "P", "P"], ["", "", "", "", "", "", "K", "R"]]
    assert chess.board_from_grid(letters, black_to_move=True).startswith("r5k1/5ppp/8/8/8/8/5PPP/6KR b")


def test_not_a_position():
    assert solve("Chess: find the winning move") is None  # no position given
    assert solve("Please log in") is None
    assert solve("White to move: 8/8/8/8/8/8/8/8 w - - 0 1") is None  # no kings: illegal


def test_a_lambda_function_too_small_for_the_engine_says_so(monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
    with pytest.raises(chess.EngineMissing, match="the function has 128 MB"):
        chess.best_move(FORK)
    assert solve(f"White to move, FEN {SCHOLAR}").answer == "Qxf7#"  # a mate in one needs no engine


def test_a_slow_engine_start_keeps_the_deadline_and_serves_the_next_question(tmp_path, monkeypatch):
    real = chess.engine_path()
    assert real, "Stockfish is missing"
    slow = tmp_path / "slow-stockfish"
    slow.write_text(f"#!/bin/sh\nsleep {SLOW_START_S}\nexec {real} \"$@\"\n")
    slow.chmod(0o755)
    monkeypatch.setenv("AGENTHOST_STOCKFISH", str(slow))
    chess.close()
    question = f"White to move. What is the best move? {FORK}"
    started = time.monotonic()
    assert solve(question, deadline=started + 0.8) is None  # still starting: no move given
    assert time.monotonic() - started < within(0.8, before=SLOW_START_S)  # and the start was not waited for
    found = None
    while found is None and time.monotonic() - started < waited(SLOW_START_S):  # the start goes on meanwhile
        time.sleep(0.5)
        found = solve(question, deadline=time.monotonic() + 1.5)
    assert found is not None and found.answer == "Ne6+"
