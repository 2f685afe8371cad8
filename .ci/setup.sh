#!/usr/bin/env bash
# Installs what nnfold's build and tests need on a fresh Debian bookworm machine (as root, or with
# sudo available), then the npm dev dependencies. Safe to run again: it skips what is present.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake ninja-build g++ googletest emscripten nodejs npm libprotozero-dev nlohmann-json3-dev
  libsimde-dev libstb-dev chromium clang libclang-rt-14-dev)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# node/npm may come from elsewhere (Node 20 + npm 11 are preinstalled here)
if command -v node >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
pkgs=()
for p in "${missing[@]}"; do [ -n "$p" ] && pkgs+=("$p"); done
if [ ${#pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${pkgs[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

if [ -f package-lock.json ]; then
  # onnxruntime-node's install script downloads from a host this machine cannot reach; its CPU
  # binaries ship in the package.
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
fi
echo "setup: done"
