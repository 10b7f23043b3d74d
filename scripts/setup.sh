#!/usr/bin/env bash
# setup.sh — install what is missing (Debian 12), build, then run the demo or the tests.
#   scripts/setup.sh run  [program options]   build and run the demo on the built-in default scene
#   scripts/setup.sh test [meson test options] build and run the test suites
# Idempotent: quiet when every package is already there. BUILD_DIR overrides the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
[ $# -gt 0 ] && shift

packages=(meson ninja-build pkg-config gcc g++ python3-glad libglfw3-dev libcglm-dev libegl-dev libgl-dev
  libegl-mesa0 libgl1-mesa-dri libassimp-dev libembree-dev libstb-dev libomp-dev assimp-testmodels
  xvfb xauth xdotool gnuplot-nox imagemagick clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# nvcc lives outside PATH on the build machines; Meson finds it through PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null || ninja -C "$build"

case "$mode" in
  run)
    if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      echo "setup: no display here; rendering 60 headless frames of the default scene to izb-shadows.png"
      exec "$build/izb-shadows" --headless --frames 60 --screenshot izb-shadows.png --force "$@"
    fi
    exec "$build/izb-shadows" "$@"
    ;;
  test)
    exec meson test -C "$build" --print-errorlogs "$@"
    ;;
  *)
    echo "usage: scripts/setup.sh run|test [options]" >&2
    exit 2
    ;;
esac
