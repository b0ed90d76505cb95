"""MiniWoB++ (the ``miniwob`` package on PyPI) played through agenthost's own protocol paths (``make miniwob``).

The 130 task pages of MiniWoB++ generate an instance from a seed and judge themselves: ``core.endEpisode``
sets ``WOB_RAW_REWARD_GLOBAL`` and ``WOB_DONE_GLOBAL``. This harness serves them from the installed package
on loopback (:mod:`.pages`), opens each episode in Chromium with a fixed seed and the 10 s episode limit
lifted (:mod:`.episode`), and plays it the way a platform would (:mod:`.play`):

* **AI Olympics path**: each turn is a signed webhook request to ``/olympics/turn`` carrying only what the
  platform gives (the task sentence from the page's query box, the ARIA snapshot of ``body``, the URL); the
  returned actions are executed with the platform's element resolution (:class:`infra.arena.runner.Runner`);
* **Proxy API path**: the browser-extension emulator (:class:`infra.extension.emulator.Emulator`) sends the
  extension's element snapshot to ``/agent/run/{id}/step`` and executes one tool per step.

The agent is never told the task's name: pages are served under an opaque path and their title is blanked.
A page's reward is the only verdict; an agent that claims success where the reward is not positive has made
a **false done**. :mod:`.coverage` says which tasks each path can express and why the others cannot.
"""
