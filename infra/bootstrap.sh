#!/usr/bin/env bash
# Creates .venv with Python 3.12 (the Lambda runtime) and installs the pinned dev requirements.
# Also installs Debian's Chromium and Stockfish when missing and we are root (browser and chess tests need them).
# Idempotent; `make dev` and `make test` call it through the .venv/.installed stamp.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  for cand in "${AGENTHOST_PYTHON:-}" python3.12; do
    if [ -n "$cand" ] && command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; assert sys.version_info[:2]==(3,12)' 2>/dev/null; then
      command -v "$cand"; return 0
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.|$)' | sort -V -r); do
      p="$(pyenv root)/versions/$v/bin/python"; [ -x "$p" ] && { echo "$p"; return 0; }
    done
  fi
  for p in "$HOME"/.pyenv/versions/3.12*/bin/python /usr/local/bin/python3.12 /usr/bin/python3.12; do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; assert sys.version_info[:2]==(3,12)' 2>/dev/null; then
  PY="$(find_python)" || { echo "bootstrap: Python 3.12 not found (install it, or set AGENTHOST_PYTHON)" >&2; exit 1; }
  echo "bootstrap: creating .venv with $PY"
  rm -rf .venv
  "$PY" -m venv .venv
fi
echo "bootstrap: installing pinned requirements into .venv"
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt 2>&1 | grep -v '^WARNING: Location' || true
# MiniWoB++'s pages only (make miniwob): without its Python dependencies, which the harness does not use
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r infra/miniwob/requirements.txt 2>&1 \
  | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import fastapi, mangum, boto3, moto, pytest, uvicorn, websockets, playwright' \
  || { echo "bootstrap: dependency install failed" >&2; exit 1; }

# chromium: the arena runner, extension emulator and evaluation client; chromium-headless-shell: the browser
# function (what its image installs)
if { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/lib/chromium/chromium-headless-shell ]; } && [ "$(id -u)" = 0 ] \
    && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing Debian chromium and chromium-headless-shell for browser tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell \
    fonts-liberation) >/dev/null 2>&1 || echo "bootstrap: could not install chromium; browser tests will fail" >&2
fi
# stockfish: the chess skill's engine (its tests need it; the Lambda functions get it from layers/stockfish)
if ! command -v stockfish >/dev/null 2>&1 && [ ! -x /usr/games/stockfish ] && [ "$(id -u)" = 0 ] \
    && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing Debian stockfish for the chess skill"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish) >/dev/null 2>&1 \
    || echo "bootstrap: could not install stockfish; the chess engine tests will fail" >&2
fi
touch .venv/.installed
