#!/usr/bin/env bash
# SAM CLI lives in its own virtualenv (.venv-sam): its pins conflict with the app's, and only
# lint/build/deploy need it. .venv/bin/sam links to it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash infra/bootstrap.sh
if [ ! -x .venv-sam/bin/sam ]; then
  echo "bootstrap: installing AWS SAM CLI into .venv-sam"
  PY="$(.venv/bin/python -c 'import sys; print(sys.executable)')"
  "$(dirname "$(readlink -f "$PY")")/python3" -m venv .venv-sam 2>/dev/null || .venv/bin/python -m venv .venv-sam
  .venv-sam/bin/python -m pip install -q --disable-pip-version-check "aws-sam-cli==1.170.0" 2>&1 | grep -v '^WARNING: Location' || true
fi
ln -sf ../../.venv-sam/bin/sam .venv/bin/sam
