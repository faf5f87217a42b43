#!/usr/bin/env bash
# Peer comparison for ray casting: installs Open3D from PyPI into a local .venv
# (first run only; shared with scripts/voxel_peers.sh), builds widephase, has
# `widephase raycast` dump its ray set, casts the same rays with Open3D's
# RaycastingScene (Embree) and with widephase at 1 and 2 threads in one run,
# compares hits and t, and prints a Markdown table.
# Usage: scripts/raycast_peers.sh [--rays N] [--repeats R] [MESH.obj ...]
set -euo pipefail
cd "$(dirname "$0")/.."
# Open3D's wheel links libusb; install it from Debian when missing.
if ! ldconfig -p | grep -q libusb-1.0; then
  apt-get update -qq && apt-get install -y -qq libusb-1.0-0 >/dev/null
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import open3d" 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet numpy open3d
fi
cargo build --release --quiet
exec .venv/bin/python scripts/raycast_peers.py "$@"
