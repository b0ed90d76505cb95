"""Playing a plan of episodes, one at a time or in worker processes (one Chromium each), with a progress
line per episode as it ends."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import time

from infra.miniwob import pages
from infra.miniwob.play import Episode, Player, Settings

_player: Player | None = None


def _worker_init(cfg: Settings) -> None:
    global _player
    _player = Player(cfg)


def _worker_play(task: str, seed: str, path: str, url: str) -> Episode:
    assert _player is not None
    return _player.play(task, seed, path, url)


def _line(n: int, total: int, ep: Episode, t0: float) -> str:
    verdict = "SUCCESS" if ep.success else (f"reward {ep.reward:.2f}" if ep.page_done else "not ended")
    flags = " FALSE DONE" if ep.false_done else (" gave up" if ep.gave_up else "")
    return (f"[{n:>4}/{total}] {time.monotonic() - t0:6.0f}s {ep.path:<8} {ep.task:<28} seed {ep.seed:<3} "
            f"{verdict:<12} {ep.turns:>2} turns {ep.seconds:5.1f}s{flags} | {ep.end[:60]}")


def run(plan: list[tuple[str, str, str]], cfg: Settings, server: pages.Server, jobs: int,
        verbose: bool = False) -> list[Episode]:
    """Play every (task, seed, path) of ``plan``; progress printed as episodes end."""
    t0 = time.monotonic()
    done: list[Episode] = []
    work = [(task, seed, path, server.episode_url(task)) for task, seed, path in plan]
    if jobs <= 1:
        with Player(cfg) as player:
            for w in work:
                ep = player.play(*w)
                done.append(ep)
                print(_line(len(done), len(work), ep, t0), flush=True)
                if verbose:
                    print("\n".join("      " + t for t in ep.trace), flush=True)
        return done
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_init,
                                                initargs=(cfg,)) as pool:
        futures = [pool.submit(_worker_play, *w) for w in work]
        for fut in concurrent.futures.as_completed(futures):
            ep = fut.result()
            done.append(ep)
            print(_line(len(done), len(work), ep, t0), flush=True)
            if verbose:
                print("\n".join("      " + t for t in ep.trace), flush=True)
    return done


