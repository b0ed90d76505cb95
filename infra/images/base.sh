#!/usr/bin/env bash
# Base images that the browser function's Dockerfile and `sam local` need, for a machine that cannot pull
# them from a container registry.
#
#   bash infra/images/base.sh            ensure every base image exists (pull, else build an equivalent)
#   bash infra/images/base.sh --check    say which are present, official or local, and exit 1 if one is missing
#
# For each image name: present already -> nothing to do; `docker pull` works -> the official image is used
# and nothing is built; otherwise an equivalent is built here from Debian packages (debootstrap) and tagged
# with the same name, so the Dockerfile and SAM find it:
#   python:3.12-slim-bookworm                 Debian bookworm (minbase) + CPython 3.12 in /usr/local
#   public.ecr.aws/lambda/python:3.12-<arch>  Debian bookworm (minbase) + CPython 3.12 in /var/lang, awslambdaric
#                                             behind /var/runtime/bootstrap, boto3 in /var/runtime (as Lambda's
#                                             runtime provides it), the Lambda Runtime Interface Emulator
# The local equivalents also trust this machine's extra certificate authorities (/usr/local/share/
# ca-certificates, e.g. a TLS-inspecting egress proxy in front of the package registries), so `pip install`
# in an image built from them works here as it does on the machine.
# Locally built images carry the label agenthost.local-base=<content hash of this folder and the Python
# build>; they are rebuilt only when that hash changes. They are built for this machine's architecture
# (sam local runs; the template keeps arm64 for AWS).
#
# CPython 3.12 comes from this machine: Debian bookworm has no 3.12 package and python.org is not reachable,
# so the script copies the 3.12 installation the project's .venv was made from (AGENTHOST_PYTHON or
# infra/bootstrap.sh's choice; a self-contained prefix such as pyenv's, built on Debian bookworm or older).
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=infra/images
CHECK=0; [ "${1:-}" = "--check" ] && CHECK=1

case "$(uname -m)" in
  x86_64) ARCH=x86_64; DEB_ARCH=amd64 ;;
  aarch64|arm64) ARCH=arm64; DEB_ARCH=arm64 ;;
  *) echo "images: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
PY_IMAGE=python:3.12-slim-bookworm
LAMBDA_IMAGE=public.ecr.aws/lambda/python:3.12-$ARCH
ROOTFS_IMAGE=agenthost/debian-bookworm-minbase:local
CACHE=${AGENTHOST_IMAGE_CACHE:-$HOME/.cache/agenthost/images}
MIRROR=${AGENTHOST_DEBIAN_MIRROR:-http://deb.debian.org/debian}

docker info >/dev/null 2>&1 || { echo "images: Docker is not running (start dockerd first)" >&2; exit 2; }

label_of() { docker image inspect -f '{{ index .Config.Labels "agenthost.local-base" }}' "$1" 2>/dev/null; }

python_prefix() {
  local py="${AGENTHOST_PYTHON:-}"
  if [ -z "$py" ] && [ -x .venv/bin/python ]; then
    py="$(.venv/bin/python -c 'import sys; print(sys.base_prefix)')/bin/python3.12"
  fi
  [ -n "$py" ] || py="$(command -v python3.12 || true)"
  [ -n "$py" ] && "$py" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null \
    || { echo "images: no CPython 3.12 found to copy (set AGENTHOST_PYTHON)" >&2; return 1; }
  "$py" -c 'import sys; print(sys.base_prefix)'
}

report() {  # name -> "official", "local <hash>" or "missing"
  if ! docker image inspect "$1" >/dev/null 2>&1; then echo missing
  elif [ -n "$(label_of "$1")" ]; then echo "local $(label_of "$1")"
  else echo official; fi
}

if [ "$CHECK" = 1 ]; then
  rc=0
  for img in "$PY_IMAGE" "$LAMBDA_IMAGE"; do
    state=$(report "$img"); echo "images: $img: $state"; [ "$state" = missing ] && rc=1
  done
  exit $rc
fi

pins() {  # package==version from the project's pins
  grep -hE "^$1==" layers/core/requirements.txt functions/browser/requirements.txt requirements-dev.txt | head -1
}

PREFIX=""
HASH=""
recipe_hash() {
  [ -n "$HASH" ] && return 0
  PREFIX=$(python_prefix)
  local pyver
  pyver=$("$PREFIX/bin/python3.12" -c 'import sys, platform; print(sys.version, platform.machine())')
  # what the images are made of: this folder, the Python build, the runtime's two pins, the extra CAs (not
  # the project's other requirements: a new dependency must not rebuild the bases and every image above them)
  HASH=$( { cat "$HERE"/base.sh "$HERE"/*.Dockerfile "$HERE"/lambda-bootstrap "$HERE"/lambda-entrypoint.sh \
      /usr/local/share/ca-certificates/*.crt 2>/dev/null; pins awslambdaric; pins boto3; echo "$pyver $ARCH"; } \
      | sha256sum | cut -c1-16)
}

need() {  # name -> 0 when it must be built here
  local img=$1
  if docker image inspect "$img" >/dev/null 2>&1; then
    local have; have=$(label_of "$img")
    [ -z "$have" ] && { echo "images: $img: official image present"; return 1; }
    recipe_hash
    [ "$have" = "$HASH" ] && { echo "images: $img: local equivalent up to date ($HASH)"; return 1; }
    echo "images: $img: local equivalent $have is stale (recipe $HASH): rebuilding"
    return 0
  fi
  if docker pull -q "$img" >/dev/null 2>&1; then
    echo "images: $img: pulled the official image"; return 1
  fi
  echo "images: $img: cannot be pulled here; building a local equivalent from Debian packages"
  return 0
}

rootfs() {  # debootstrap'd Debian bookworm (minbase), imported once per recipe
  [ "$(label_of "$ROOTFS_IMAGE")" = "$HASH" ] && return 0
  local tar="$CACHE/bookworm-$DEB_ARCH-$HASH.tar"
  if [ ! -f "$tar" ]; then
    command -v debootstrap >/dev/null || { echo "images: debootstrap missing (apt-get install -y debootstrap)" >&2; exit 1; }
    mkdir -p "$CACHE"
    local root; root=$(mktemp -d /tmp/agenthost-rootfs.XXXXXX)
    echo "images: debootstrap bookworm ($DEB_ARCH) into $root"
    # the libraries CPython's extension modules link against, as python:3.12-slim-bookworm has them
    debootstrap --variant=minbase --arch="$DEB_ARCH" \
      --include=ca-certificates,netbase,tzdata,libssl3,libffi8,libsqlite3-0,libbz2-1.0,liblzma5,zlib1g,libreadline8,libncursesw6,libtinfo6,libuuid1,libgdbm6,libgdbm-compat4,libexpat1,libdb5.3 \
      bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || { echo "images: debootstrap failed; see $CACHE/debootstrap.log" >&2; rm -rf "$root"; exit 1; }
    # the suites the official Debian images list (debootstrap writes only the first)
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
      "$MIRROR" "$MIRROR" "$MIRROR" > "$root/etc/apt/sources.list"
    chroot "$root" apt-get clean
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log "$root"/tmp/*
    tar -C "$root" --numeric-owner -cf "$tar.part" . && mv "$tar.part" "$tar"
    rm -rf "$root"
  fi
  docker import -c "LABEL agenthost.local-base=$HASH" -c 'CMD ["bash"]' "$tar" "$ROOTFS_IMAGE" >/dev/null
  echo "images: $ROOTFS_IMAGE imported"
}

stage_python() {  # a trimmed copy of the CPython 3.12 prefix in $1/python, this machine's extra CAs in $1/ca
  local ctx=$1
  mkdir -p "$ctx/ca"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  mkdir -p "$ctx/python"
  tar -C "$PREFIX" --exclude='__pycache__' --exclude='*.pyc' --exclude='lib/python3.12/test' \
    --exclude='lib/python3.12/idlelib' --exclude='lib/python3.12/tkinter' --exclude='lib/python3.12/turtledemo' \
    --exclude='lib/python3.12/site-packages/*' --exclude='lib/python3.12/config-3.12-*/*.a' --exclude='*.a' \
    --exclude='share' -cf - bin include lib | tar -C "$ctx/python" -xf -
  # only the interpreter's own entry points (a pyenv prefix may hold other tools' scripts)
  find "$ctx/python/bin" -mindepth 1 ! -name 'python3*' ! -name 'python' ! -name 'pip3*' ! -name 'pip' -delete
  rm -f "$ctx/python/bin/pip"*  # made again by ensurepip in the image
}

build_from() {  # dockerfile name ctxdir
  docker build -q --label "agenthost.local-base=$HASH" --build-arg "BASE=$ROOTFS_IMAGE" \
    -f "$HERE/$2.Dockerfile" -t "$1" "$3" >/dev/null
  echo "images: built $1 (local equivalent, $HASH)"
}


if need "$PY_IMAGE"; then
  recipe_hash; rootfs
  ctx=$(mktemp -d /tmp/agenthost-img.XXXXXX); stage_python "$ctx"
  build_from "$PY_IMAGE" python "$ctx"; rm -rf "$ctx"
fi
if need "$LAMBDA_IMAGE"; then
  recipe_hash; rootfs
  ctx=$(mktemp -d /tmp/agenthost-img.XXXXXX); stage_python "$ctx"
  cp "$HERE/lambda-bootstrap" "$HERE/lambda-entrypoint.sh" "$ctx/"
  rie=$(ls .venv-sam/lib/python3*/site-packages/samcli/local/rapid/aws-lambda-rie-"$ARCH" 2>/dev/null | head -1)
  [ -n "$rie" ] || { echo "images: the SAM CLI's Runtime Interface Emulator is missing (make .venv/bin/sam)" >&2; exit 1; }
  cp "$rie" "$ctx/aws-lambda-rie"
  printf '%s\n' "$(pins awslambdaric)" "$(pins boto3)" > "$ctx/runtime-requirements.txt"
  build_from "$LAMBDA_IMAGE" lambda-python "$ctx"; rm -rf "$ctx"
fi
# superseded local equivalents (their tags moved to the new builds)
docker image prune -f --filter "label=agenthost.local-base" >/dev/null 2>&1 || true
