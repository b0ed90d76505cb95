"""The browser image installs the same versions the tests run with (no Docker here: read the files)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(text: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"(?m)\b([A-Za-z][\w.-]*)==([\w.]+)", text)}


def test_the_image_pins_boto3_and_playwright_like_the_test_environment():
    dev = _pins((ROOT / "requirements-dev.txt").read_text())
    image = _pins((ROOT / "functions" / "browser" / "Dockerfile").read_text())
    image.update(_pins((ROOT / "functions" / "browser" / "requirements.txt").read_text()))
    assert image["boto3"] == dev["boto3"]
    assert image["playwright"] == dev["playwright"]
    unpinned = re.findall(r"pip install[^\n]*\s(boto3|playwright)(?:\s|$)",
                          (ROOT / "functions" / "browser" / "Dockerfile").read_text())
    assert unpinned == []


def test_the_image_runs_the_headless_shell_the_template_and_the_handler_point_at():
    docker = (ROOT / "functions" / "browser" / "Dockerfile").read_text()
    assert re.search(r"apt-get install[^\n]*\bchromium-headless-shell\b", docker)
    from browser.lifecycle import HEADLESS_SHELL

    assert f"AGENTHOST_CHROMIUM={HEADLESS_SHELL}" in docker
    assert f"AGENTHOST_CHROMIUM: {HEADLESS_SHELL}" in (ROOT / "template.yaml").read_text()
