"""Chess: the best move of a position, from a FEN or a board the page shows, through a real engine.

Input: a question with a FEN (``"White to move, FEN r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq
- 4 4. Find the best move."``), or ``context.fen``, or a page table holding the board (8 rows of 8 cells with
piece letters ``KQRBNP``/``kqrbnp``, ``wK``/``bQ`` or the chess symbols, coordinates allowed) with the side to
move named in the question ("Black to move"; White otherwise).
Output: :class:`~agenthost.skills.Solution` with ``skill="chess"``, ``answer`` the move in standard algebraic
notation (``"Qxf7#"``; in UCI ``"h5f7"`` when the question asks for UCI or from/to squares),
``alternatives`` the other notation, ``detail`` how it was found. A mate in one is found exactly by trying
every legal move (no engine needed); anything else asks the UCI engine within the time left before
``deadline`` (at most :data:`MAX_THINK_S`). ``None`` when there is no position, it is illegal, the game
is over, or no engine is installed (:func:`best_move` then raises :class:`EngineMissing`, saying where
it looked: a move is never invented).

The engine is Stockfish, found at ``AGENTHOST_STOCKFISH``, on ``PATH``, at ``/opt/bin/stockfish`` (the
Lambda layer built by ``layers/stockfish/build.sh``) or ``/usr/games/stockfish`` (Debian's package). One
engine process is kept per container and restarted if it dies. Starting it takes up to a second or two; it
starts on a thread of its own, so a question whose deadline comes first gets ``None`` while the start goes
on and serves the next one (:func:`warm` starts it ahead of time); the search then gets the time left
before the deadline.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenthost.errors import Unavailable
from agenthost.skills import Context, Solution, Tool, Unsolvable

if TYPE_CHECKING:
    import chess
    import chess.engine

#: most seconds one search may take (the turn's deadline may allow less)
MAX_THINK_S = 2.0
#: seconds kept back from the deadline for starting the engine and answering
MARGIN_S = 0.3
#: a Lambda function with less memory cannot hold the engine (about 140 MB resident) beside Python
MIN_FUNCTION_MB = 384
ENGINE_PATHS = ("/opt/bin/stockfish", "/usr/games/stockfish", "/usr/bin/stockfish", "/usr/local/bin/stockfish")

_FEN = re.compile(r"(?<![\w/])((?:[rnbqkpRNBQKP1-8]{1,8}/){7}[rnbqkpRNBQKP1-8]{1,8})"
                  r"(?:\s+([wb])(?:\s+(-|[KQkq]{1,4})(?:\s+(-|[a-h][36])(?:\s+(\d+)\s+(\d+))?)?)?)?")
_CUE = re.compile(r"\b(?:chess|to\s+(?:move|play)|best\s+move|checkmate|mate\s+in|winning\s+move|fen)\b", re.I)
_BLACK = re.compile(r"\bblack\s+(?:to\s+(?:move|play)|moves|plays|is\s+to\s+move)\b|\bas\s+black\b", re.I)
_UCI_ASKED = re.compile(r"\buci\b|\bfrom[- ]square\b|\bfrom\s+and\s+to\b|\bin\s+the\s+form\s+e2e4\b", re.I)
_SYMBOLS = {"♔": "K", "♕": "Q", "♖": "R", "♗": "B", "♘": "N", "♙": "P",
            "♚": "k", "♛": "q", "♜": "r", "♝": "b", "♞": "n", "♟": "p"}


class EngineMissing(Unavailable, RuntimeError):
    """No chess engine binary was found; the message says where the skill looked."""


@dataclass
class Move:
    san: str
    uci: str
    mate_in: int | None = None
    score_cp: int | None = None
    depth: int | None = None
    how: str = ""


def engine_path() -> str | None:
    """The engine binary to use, or ``None``."""
    from agenthost.config import settings

    configured = settings().stockfish.strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    found = shutil.which("stockfish")
    if found:
        return found
    return next((p for p in ENGINE_PATHS if os.access(p, os.X_OK)), None)


_engine: chess.engine.SimpleEngine | None = None
_engine_path: str | None = None
_lock = threading.Lock()


def _get_engine(timeout: float = 10.0) -> chess.engine.SimpleEngine:
    global _engine, _engine_path
    path = engine_path()
    if path is None:
        raise EngineMissing("no chess engine found: set AGENTHOST_STOCKFISH, or install stockfish "
                            f"(looked on PATH and at {', '.join(ENGINE_PATHS)})")
    from agenthost.config import settings

    memory = settings().lambda_memory_mb
    if memory and memory < MIN_FUNCTION_MB:
        raise EngineMissing(f"the function has {memory} MB; the chess engine needs about 140 MB beside Python: "
                            f"give it at least {MIN_FUNCTION_MB} MB (the template gives the agent's functions 512)")
    if _engine is None or _engine_path != path:
        close()
        _engine, _engine_path = _start(path, timeout), path
    return _engine


_starting: dict[str, Any] = {}


def _start(path: str, timeout: float) -> chess.engine.SimpleEngine:
    """The engine process, started on a thread of its own: a start slower than this turn's ``timeout``
    (a cold container on a busy CPU) goes on in the background and serves the next question."""
    import chess.engine  # python-chess, imported only when a position is asked about

    job = _starting.get(path)
    if job is None:
        done = threading.Event()
        job = _starting[path] = {"done": done, "engine": None, "error": None}

        def run() -> None:
            try:
                engine = chess.engine.SimpleEngine.popen_uci(path, timeout=30.0)
                try:
                    engine.configure({"Threads": 1, "Hash": 16})
                except chess.engine.EngineError:
                    pass
                job["engine"] = engine
            except (chess.engine.EngineError, OSError, TimeoutError) as exc:
                job["error"] = exc
            finally:
                done.set()

        threading.Thread(target=run, name="chess-engine-start", daemon=True).start()
    if not job["done"].wait(max(0.0, timeout)):
        raise TimeoutError("the chess engine is still starting")
    del _starting[path]
    if job["error"] is not None:
        raise job["error"]
    return job["engine"]  # type: ignore[no-any-return]


def warm() -> bool:
    """Start the engine now (it takes up to a second or two on a cold container) so that the first
    position's search gets the turn's time; ``False`` when there is no engine."""
    import chess.engine  # python-chess, imported only when a position is asked about

    try:
        with _lock:
            _get_engine(30.0)
        return True
    except (EngineMissing, chess.engine.EngineError, OSError, TimeoutError):
        return False


def close() -> None:
    """Stop the kept engine process (tests, or a container shutting down)."""
    import chess.engine  # python-chess, imported only when a position is asked about

    global _engine
    if _engine is not None:
        try:
            _engine.quit()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError, OSError):
            pass
        _engine = None


def mate_in_one(board: chess.Board) -> chess.Move | None:
    """A move that checkmates at once, found by trying every legal move."""
    for move in board.legal_moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    return None


def best_move(fen: str, *, time_limit: float = 1.0, deadline: float | None = None) -> Move:
    """The best move of the position ``fen``: a mate in one exactly, else the engine's choice within
    ``time_limit`` seconds (less when ``deadline`` is nearer). Raises ``ValueError`` for an illegal or
    finished position, :class:`EngineMissing` when no engine is installed."""
    import chess.engine  # python-chess, imported only when a position is asked about

    board = chess.Board(fen)
    if not board.is_valid():
        raise ValueError(f"illegal position ({board.status()!r})")
    if board.is_game_over():
        raise ValueError("the game is over in this position")
    mate = mate_in_one(board)
    if mate is not None:
        return Move(board.san(mate), mate.uci(), mate_in=1, how="checkmate in one (every legal move tried)")
    with _lock:
        for attempt in range(2):
            # started once per container, within the time left, before the search time is measured
            engine = _get_engine(10.0 if deadline is None else deadline - time.monotonic() - MARGIN_S)
            think = min(time_limit, MAX_THINK_S)
            if deadline is not None:
                think = min(think, deadline - time.monotonic() - MARGIN_S)
            if think < 0.05:
                raise TimeoutError("too little time left to search")
            try:
                result = engine.play(board, chess.engine.Limit(time=think), info=chess.engine.INFO_SCORE)
                break
            except (chess.engine.EngineTerminatedError, chess.engine.EngineError):
                close()
                if attempt:
                    raise
    if result.move is None:
        raise ValueError("the engine gave no move")
    score = result.info.get("score")
    pov = score.pov(board.turn) if score is not None else None
    return Move(board.san(result.move), result.move.uci(), mate_in=pov.mate() if pov is not None else None,
                score_cp=pov.score() if pov is not None else None, depth=result.info.get("depth"),
                how=f"{os.path.basename(_engine_path or 'engine')} searched {think:.2f}s")


def board_from_grid(rows: list[list[str]], black_to_move: bool = False) -> str | None:
    """The FEN of a board shown as a grid (8 rows of 8 cells; coordinate labels are dropped), or ``None``."""
    import chess.engine  # python-chess, imported only when a position is asked about

    grid: list[list[str]] = []
    for row in rows:
        cells = [c.strip() for c in row]
        if cells and re.fullmatch(r"[1-8]", cells[0] or "-"):
            cells = cells[1:]
        if cells and re.fullmatch(r"[1-8]", cells[-1] or "-"):
            cells = cells[:-1]
        if len(cells) != 8:
            continue
        if all(re.fullmatch(r"[a-h]", c, re.I) for c in cells):
            continue  # the file labels a..h
        pieces = [_piece(c) for c in cells]
        if any(p is None for p in pieces):
            continue
        grid.append([p or "" for p in pieces])
    if len(grid) != 8:
        return None
    ranks = []
    for row in grid:
        out, empty = "", 0
        for p in row:
            if not p:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += p
        ranks.append(out + (str(empty) if empty else ""))
    board = chess.Board("/".join(ranks) + (" b" if black_to_move else " w") + " - - 0 1")
    # castling rights where king and rook stand on their squares (a page rarely says)
    rights = ""
    for sq_k, sq_r, flag, color in ((chess.E1, chess.H1, "K", chess.WHITE), (chess.E1, chess.A1, "Q", chess.WHITE),
                                    (chess.E8, chess.H8, "k", chess.BLACK), (chess.E8, chess.A8, "q", chess.BLACK)):
        if board.piece_at(sq_k) == chess.Piece(chess.KING, color) and \
                board.piece_at(sq_r) == chess.Piece(chess.ROOK, color):
            rights += flag
    board.set_castling_fen(rights or "-")
    return board.fen() if board.is_valid() else None


def _piece(cell: str) -> str | None:
    """A cell's piece letter ('' for empty), ``None`` when the cell is not a board square."""
    c = cell.strip()
    if c in ("", ".", "-", "·", "_", "□", "■"):
        return ""
    if c in _SYMBOLS:
        return _SYMBOLS[c]
    if len(c) == 1 and c in "KQRBNPkqrbnp":
        return c
    m = re.fullmatch(r"([wb])([KQRBNP])", c, re.I)
    if m:
        letter = m.group(2).upper()
        return letter if m.group(1).lower() == "w" else letter.lower()
    return None


def position_of(question: str, context: Context | None) -> str | None:
    """The FEN the question (or the page) gives, with the side to move the question names."""
    import chess.engine  # python-chess, imported only when a position is asked about

    m = _FEN.search(question) or (_FEN.search(context.fen) if context and context.fen else None)
    black = _BLACK.search(question) is not None or (
        not re.search(r"\bwhite\b", question, re.I) and context is not None and _BLACK.search(context.text) is not None)
    if m:
        side = m.group(2) or ("b" if black else "w")
        fen = f"{m.group(1)} {side} {m.group(3) or '-'} {m.group(4) or '-'} {m.group(5) or 0} {m.group(6) or 1}"
        if m.group(3) is None:  # board only: castling rights from where king and rooks stand
            board = chess.Board(fen)
            from_grid = board_from_grid([[_cell_of(board, r, f) for f in range(8)] for r in range(7, -1, -1)], black)
            return from_grid or fen
        return fen
    if context is not None and _CUE.search(question):
        for table in context.tables:
            shown = board_from_grid([list(r) for r in table], black)
            if shown:
                return shown
    return None


def _cell_of(board: chess.Board, rank: int, file: int) -> str:
    import chess.engine  # python-chess, imported only when a position is asked about

    piece = board.piece_at(chess.square(file, rank))
    return piece.symbol() if piece else ""


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` (or its page) poses a chess position, else ``None``."""
    import chess.engine  # python-chess, imported only when a position is asked about

    has_fen = _FEN.search(question) is not None or bool(context and context.fen)
    if not has_fen and not _CUE.search(question):
        return None
    fen = position_of(question, context)
    if fen is None:
        return None
    try:
        move = best_move(fen, time_limit=MAX_THINK_S if deadline is not None else 1.0, deadline=deadline)
    except (EngineMissing, TimeoutError, ValueError, chess.engine.EngineError, chess.engine.EngineTerminatedError,
            OSError) as exc:
        # a chess position it is, so no other skill may read it (the FEN is no division)
        raise Unsolvable(f"chess: {exc}") from None
    uci = _UCI_ASKED.search(question) is not None
    answer, other = (move.uci, move.san) if uci else (move.san, move.uci)
    detail = f"{move.how}; " + (f"mate in {move.mate_in}" if move.mate_in else
                                f"score {move.score_cp} cp" if move.score_cp is not None else "no score")
    return Solution("chess", answer, f"{detail}; position {fen}", [other])


def _tool_call(args: dict[str, Any]) -> str:

    fen = str(args.get("fen") or "").strip()
    try:
        move = best_move(fen, time_limit=float(args.get("seconds") or 1.0))
    except EngineMissing as exc:
        return str(exc)
    except (ValueError, TimeoutError) as exc:
        return f"cannot analyse this position: {exc}"
    mate = f", mate in {move.mate_in}" if move.mate_in else ""
    return f"{move.san} (UCI {move.uci}{mate})"


def tools() -> list[Tool]:
    return [Tool(
        "chess_best_move", "Best move (SAN and UCI) for the side to move in a FEN position, from a real "
        "engine.",
        {"type": "object", "properties": {"fen": {"type": "string"},
                                          "seconds": {"type": "number", "minimum": 0.1, "maximum": MAX_THINK_S}},
         "required": ["fen"]},
        _tool_call)]
