#!/usr/bin/env bash
# Peer comparison for the voxelizer: installs Open3D and trimesh from PyPI into
# a local .venv (pinned, scripts/voxel_peers.requirements.txt), builds widephase and the parry3d peer
# (examples/parry_voxelize.rs), runs all four on the same meshes and grids, and
# prints the table (mesh, RES, tool, ms, voxels, misses and extras against the
# exact surface); exits 1 when a check fails (see voxel_peers.py).
# Usage: scripts/voxel_peers.sh [--quick] [--write-notes]
set -euo pipefail
cd "$(dirname "$0")/.."
# Open3D's wheel links libusb; install it from Debian when missing.
if ! ldconfig -p | grep -q libusb-1.0; then
  apt-get update -qq && apt-get install -y -qq libusb-1.0-0 >/dev/null
fi
# (Re)install the pinned peers when the requirements changed or an earlier
# install did not finish: the stamp is written only after pip succeeds.
req=scripts/voxel_peers.requirements.txt
if [ ! -x .venv/bin/python ] || ! cmp -s "$req" .venv/peers-installed; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -r "$req"
  cp "$req" .venv/peers-installed
fi
cargo build --release --quiet
cargo build --release --quiet --features peers --example parry_voxelize
exec .venv/bin/python scripts/voxel_peers.py "$@"
