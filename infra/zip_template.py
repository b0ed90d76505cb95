"""Writes a copy of ``template.yaml`` without its container-image functions, for ``make build`` on a
machine without Docker: ``sam build`` then builds the core layer and every zip function, and says so.

Image functions (the browser) and the resources that only serve them (their log groups) are left out;
references to them elsewhere become the placeholder ``<name>-needs-docker``, so the copy stays a valid
template. The copy is for building (and checking packaging) only: deploy the real template, from a
machine with Docker.

Run with the SAM CLI's interpreter (it parses CloudFormation's short tags)::

    .venv-sam/bin/python infra/zip_template.py template.yaml .template-zip-only.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def image_functions(resources: dict[str, Any]) -> set[str]:
    return {name for name, res in resources.items()
            if res.get("Type") == "AWS::Serverless::Function"
            and (res.get("Properties") or {}).get("PackageType") == "Image"}


def mentions(value: Any, names: set[str]) -> bool:
    text = json.dumps(value)
    return any(f'"{n}"' in text or f'"{n}.' in text or "${" + n in text for n in names)


def replace_refs(value: Any, names: set[str]) -> Any:
    if isinstance(value, dict):
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref" and arg in names:
                return f"{arg}-needs-docker"
            if key == "Fn::GetAtt":
                target = arg[0] if isinstance(arg, list) else str(arg).split(".")[0]
                if target in names:
                    return f"{target}-needs-docker"
        return {k: replace_refs(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_refs(v, names) for v in value]
    return value


def zip_only(doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    resources = dict(doc.get("Resources") or {})
    images = image_functions(resources)
    dropped = sorted(images)
    # resources that exist only for an image function (its log group: LogGroupName names it)
    for name, res in list(resources.items()):
        if name in images:
            continue
        if res.get("Type") == "AWS::Logs::LogGroup" and mentions(res.get("Properties"), images):
            dropped.append(name)
    for name in dropped:
        resources.pop(name, None)
    out = dict(doc)
    out["Resources"] = replace_refs(resources, images)
    if "Outputs" in out:
        out["Outputs"] = {k: v for k, v in replace_refs(out["Outputs"], images).items()}
    return out, sorted(dropped)


def main(argv: list[str]) -> int:
    from samcli.yamlhelper import yaml_parse

    src, dst = Path(argv[1]), Path(argv[2])
    doc, dropped = zip_only(yaml_parse(src.read_text(encoding="utf-8")))
    dst.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    print(f"zip-only template {dst}: left out {', '.join(dropped) or 'nothing'} (container images need Docker)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
