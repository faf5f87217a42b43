#!/usr/bin/env bash
# Peer comparison for the voxelizer: installs Open3D and trimesh from PyPI into
# a local .venv (first run only), builds widephase and the parry3d peer
# (examples/parry_voxelize.rs), runs all four on the same meshes and grids, and
# prints the table (mesh, RES, tool, ms, voxels, misses).
# Usage: scripts/voxel_peers.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
# Open3D's wheel links libusb; install it from Debian when missing.
if ! ldconfig -p | grep -q libusb-1.0; then
  apt-get update -qq && apt-get install -y -qq libusb-1.0-0 >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet numpy open3d trimesh
fi
cargo build --release --quiet
cargo build --release --quiet --features peers --example parry_voxelize
exec .venv/bin/python scripts/voxel_peers.py "$@"
