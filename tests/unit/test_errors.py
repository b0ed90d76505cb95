"""Every exception class defined under layers/ and functions/ descends from agenthost.errors.AgentHostError,
and the kinds the module docstring draws hold (a caller can catch by kind)."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil

from agenthost import errors

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _module_names() -> list[str]:
    names = ["agenthost"] + [m.name for m in pkgutil.walk_packages([str(ROOT / "layers/core/agenthost")], "agenthost.")]
    for init in sorted((ROOT / "functions").glob("*/__init__.py")):
        pkg = init.parent.name
        names += [pkg] + [m.name for m in pkgutil.walk_packages([str(init.parent)], pkg + ".")]
    return [n for n in names if not n.endswith("__main__")]  # a command line runs on import


def _exception_classes() -> dict[str, type]:
    found = {}
    for name in _module_names():
        module = importlib.import_module(name)  # an import error fails the test: no module is left unchecked
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == name:
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


def test_every_exception_class_descends_from_the_root():
    classes = _exception_classes()
    assert len(classes) >= 30  # the walk reached the modules that define them
    assert {"agenthost.store.ConditionFailed", "agents_api.sessions.SessionGone",
            "evals.connections.Gone", "browser.actions.ActionError", "werewolf.app.KeyUnavailable"} <= set(classes)
    strays = sorted(name for name, cls in classes.items()
                    if name != "agenthost.errors.AgentHostError" and not issubclass(cls, errors.AgentHostError))
    assert strays == []


def test_kinds_and_the_builtin_bases_callers_already_catch():
    from agents_api.idempotency import Conflict as IdempotencyConflict
    from agents_api.sessions import CartFull, NotInCart, SessionGone
    from evals.definitions import DefinitionError

    from agenthost.limits import TooDeep
    from agenthost.llm.base import LlmInvalid, LlmTimeout
    from agenthost.netguard import Blocked
    from agenthost.secrets import SecretNotConfigured
    from agenthost.signing import SignatureError
    from agenthost.store import ConditionFailed, VersionConflict

    kinds = {VersionConflict: errors.Conflict, ConditionFailed: errors.Conflict, IdempotencyConflict: errors.Conflict,
             SessionGone: errors.NotFound, NotInCart: errors.NotFound, CartFull: errors.BadInput,
             SecretNotConfigured: errors.NotFound, TooDeep: errors.BadInput, DefinitionError: errors.BadInput,
             LlmTimeout: errors.Unavailable, LlmInvalid: errors.Upstream, Blocked: errors.Forbidden,
             SignatureError: errors.Unauthorized}
    assert {cls: kind for cls, kind in kinds.items() if not issubclass(cls, kind)} == {}
    assert not issubclass(LlmInvalid, errors.Unavailable)  # an invalid answer is not fixed by waiting
    # what they were before, they still are
    assert issubclass(TooDeep, ValueError) and issubclass(DefinitionError, ValueError)
    assert issubclass(SecretNotConfigured, LookupError) and issubclass(LlmTimeout, TimeoutError)
