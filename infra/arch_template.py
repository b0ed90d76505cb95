"""Writes a copy of ``template.yaml`` built for this machine's architecture, for ``make build`` and
``sam local`` on a machine that is not arm64: every ``Architectures``, layer ``CompatibleArchitectures``
and ``BuildArchitecture`` becomes the machine's (``x86_64`` here), nothing else changes.

The template keeps arm64 for AWS: a copy built here runs under ``sam local`` (the Lambda images of this
machine's architecture, no emulation) and is not for deploying (``make deploy`` builds ``template.yaml``).

``sam local`` passes a function only the environment variables its template declares, so the copy also
declares, empty, those a local run sets from an ``env.json`` (``LOCAL_VARIABLES``: the local stack's
endpoints and its local secrets); empty, they change nothing. Every function gets at least
``LOCAL_TIMEOUT_S``: a cold start under ``sam local`` on a busy shared machine can take longer than a
webhook's 25 s on Lambda (the handlers' own turn budgets are unchanged).

Run with the SAM CLI's interpreter (it parses CloudFormation's short tags)::

    .venv-sam/bin/python infra/arch_template.py template.yaml .template-local.json
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

LOCAL_VARIABLES = ("AGENTHOST_LOCAL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_LAMBDA",
                   "AWS_ENDPOINT_URL_SCHEDULER", "AGENTHOST_WS_ENDPOINT", "AGENTHOST_NETGUARD_ALLOW",
                   "AGENTHOST_NETGUARD_ALLOW_PRIVATE", "AGENTHOST_OLYMPICS_SECRET", "AGENTHOST_WEREWOLF_API_KEY",
                   "AGENTHOST_EVALS_SECRET")
LOCAL_TIMEOUT_S = 120
ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}


def machine_arch() -> str:
    return ARCHES[platform.machine().lower()]


def for_arch(value: Any, arch: str) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in ("Architectures", "CompatibleArchitectures") and isinstance(item, list):
                out[key] = [arch]
            elif key == "BuildArchitecture" and isinstance(item, str):
                out[key] = arch
            else:
                out[key] = for_arch(item, arch)
        return out
    if isinstance(value, list):
        return [for_arch(v, arch) for v in value]
    return value


def declare_local_variables(doc: dict[str, Any]) -> dict[str, Any]:
    fn = doc.setdefault("Globals", {}).setdefault("Function", {})
    variables = fn.setdefault("Environment", {}).setdefault("Variables", {})
    for name in LOCAL_VARIABLES:
        variables.setdefault(name, "")
    fn["Timeout"] = max(int(fn.get("Timeout") or 3), LOCAL_TIMEOUT_S)
    for res in (doc.get("Resources") or {}).values():
        props = res.get("Properties") if res.get("Type") == "AWS::Serverless::Function" else None
        if isinstance(props, dict) and isinstance(props.get("Timeout"), int):
            props["Timeout"] = max(props["Timeout"], LOCAL_TIMEOUT_S)
    return doc


def main(argv: list[str]) -> int:
    from samcli.yamlhelper import yaml_parse

    src, dst = Path(argv[1]), Path(argv[2])
    arch = argv[3] if len(argv) > 3 else machine_arch()
    doc = declare_local_variables(for_arch(yaml_parse(src.read_text(encoding="utf-8")), arch))
    dst.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    print(f"template {dst}: built for {arch} (this machine; template.yaml keeps arm64 for AWS)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
