#!/usr/bin/env bash
# Makes Docker usable for the container tests (make test-containers, .ci/run): installs Debian's docker.io
# when it is missing and we are root, starts dockerd when it is not running. Exits 1 with the reason when
# Docker cannot be had, so the container tests report that they could not run instead of passing.
set -euo pipefail
if docker info >/dev/null 2>&1; then echo "docker: ready"; exit 0; fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && $SUDO true 2>/dev/null; then
    echo "docker: installing docker.io and debootstrap (Debian packages)"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq docker.io debootstrap >/dev/null
  else
    echo "docker: container tests could not run: Docker is not installed and cannot be installed here (needs root and apt-get)" >&2
    exit 1
  fi
fi
if ! docker info >/dev/null 2>&1; then
  if ! $SUDO true 2>/dev/null; then
    echo "docker: container tests could not run: the Docker daemon is not running and cannot be started here (needs root)" >&2
    exit 1
  fi
  echo "docker: starting dockerd (log: /tmp/agenthost-dockerd.log)"
  $SUDO bash -c 'nohup dockerd >/tmp/agenthost-dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
fi
docker info >/dev/null 2>&1 || {
  echo "docker: container tests could not run: dockerd did not start; see /tmp/agenthost-dockerd.log" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 || { [ -z "$SUDO" ] && apt-get install -y -qq debootstrap >/dev/null; } || true
echo "docker: ready ($(docker info --format '{{.ServerVersion}}, {{.Driver}}'))"
