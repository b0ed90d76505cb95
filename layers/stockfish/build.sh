#!/usr/bin/env bash
# Builds the Stockfish Lambda layer (arm64) from Debian's packages: the chess skill's engine.
#
#   layers/stockfish/build.sh    -> layers/stockfish/build/bin/stockfish          (a small sh launcher)
#                                   layers/stockfish/build/stockfish/stockfish    (Debian's arm64 engine)
#                                   layers/stockfish/build/stockfish/*.so*        (its loader and libraries)
#
# Lambda unpacks a layer in /opt and puts /opt/bin on PATH, where the chess skill finds the launcher. The
# engine is Debian's `stockfish` package for arm64 (its network built in). Debian's build needs a newer C
# and C++ runtime (glibc 2.34+, libstdc++ of GCC 12) than the python3.12 runtime's Amazon Linux 2023 has, so
# the layer carries Debian's own: the launcher starts the engine through the shipped dynamic loader with
# the shipped libraries only. They sit in their own folder, never on LD_LIBRARY_PATH, so Python and its
# extensions keep the system's libraries.
# apt runs with its own lists and cache in a temporary folder: the machine's apt state is not touched.
# Where an arm64 emulator is installed (Debian's qemu-user-static), the result must solve a mate in one
# through the launcher's exact command before it is kept. DEBIAN_SUITE picks the release (default bookworm).
# Idempotent: does nothing when the layer is already built (FORCE=1 rebuilds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/build"
if [ -x "$out/bin/stockfish" ] && [ -x "$out/stockfish/stockfish" ] && [ "${FORCE:-0}" != 1 ]; then
  echo "stockfish layer: already built in $out (FORCE=1 to rebuild)"; exit 0
fi
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
  || { echo "stockfish layer: needs apt-get and dpkg-deb (a Debian or Ubuntu machine)" >&2; exit 1; }
suite="${DEBIAN_SUITE:-bookworm}"
keyring="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
[ -r "$keyring" ] || { echo "stockfish layer: no Debian archive keyring at $keyring (install debian-archive-keyring)" >&2
                       exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/etc/sources.list.d" "$tmp/etc/preferences.d" "$tmp/lists/partial" "$tmp/cache/archives/partial" \
  "$tmp/debs" "$tmp/root"
echo "deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian $suite main" > "$tmp/etc/sources.list"
touch "$tmp/status"
opts=(-o "Dir::Etc::SourceList=$tmp/etc/sources.list" -o "Dir::Etc::SourceParts=$tmp/etc/sources.list.d"
      -o "Dir::Etc::Preferences=$tmp/etc/preferences" -o "Dir::Etc::PreferencesParts=$tmp/etc/preferences.d"
      -o "Dir::State::Lists=$tmp/lists" -o "Dir::State::status=$tmp/status" -o "Dir::Cache=$tmp/cache"
      -o "APT::Architecture=arm64" -o "APT::Architectures::=arm64" -o "Debug::NoLocking=1"
      -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)")
echo "stockfish layer: reading Debian $suite (arm64) package lists"
apt-get "${opts[@]}" update -qq
(cd "$tmp/debs" && apt-get "${opts[@]}" download stockfish libstdc++6 libgcc-s1 libc6 >/dev/null)
for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done

rm -rf "$out"
mkdir -p "$out/bin" "$out/stockfish"
cp "$tmp/root/usr/games/stockfish" "$out/stockfish/stockfish"
# the sonames the engine and its libraries need, links resolved (a layer's zip keeps plain files)
for lib in ld-linux-aarch64.so.1 libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1; do
  found="$(find "$tmp/root" -name "$lib" | head -1)"
  [ -n "$found" ] || { echo "stockfish layer: $lib is not in the packages" >&2; exit 1; }
  cp -L "$found" "$out/stockfish/$lib"
done
cat > "$out/bin/stockfish" <<'SH'
#!/bin/sh
# Stockfish through the loader and libraries shipped beside it (see layers/stockfish/build.sh).
d="$(dirname "$0")/../stockfish"
exec "$d/ld-linux-aarch64.so.1" --library-path "$d" "$d/stockfish" "$@"
SH
chmod 755 "$out/bin/stockfish" "$out/stockfish/stockfish" "$out/stockfish/ld-linux-aarch64.so.1"
cp "$tmp/root/usr/share/doc/stockfish/copyright" "$out/stockfish/COPYRIGHT"
version="$(ls "$tmp"/debs/stockfish_*.deb | sed 's/.*stockfish_\([^_]*\)_.*/\1/')"
echo "$version" > "$out/stockfish/VERSION"

qemu="$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)"
if [ -n "$qemu" ]; then
  d="$out/stockfish"
  # stdin stays open while it searches (at end of input the engine stops at once)
  answer="$({ printf 'uci\nisready\nposition fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\ngo depth 10\n'; sleep 20; } \
    | timeout 60 "$qemu" "$d/ld-linux-aarch64.so.1" --library-path "$d" "$d/stockfish" 2>&1 \
    | grep -m1 '^bestmove' | cut -d' ' -f1-2 || true)"
  echo "stockfish layer: checked under $(basename "$qemu") with the shipped loader only: ${answer:-no answer}"
  [ "$answer" = "bestmove d1d8" ] || { echo "stockfish layer: the arm64 engine did not find the mate" >&2; exit 1; }
else
  echo "stockfish layer: no arm64 emulator here (apt install qemu-user-static to check the engine runs)"
fi
echo "stockfish layer: Stockfish $version for arm64 in $out ($(du -sh "$out" | cut -f1))"
