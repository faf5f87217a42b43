#!/usr/bin/env bash
# Peer comparison for the Python package: installs the pinned peers (Open3D,
# trimesh: scripts/voxel_peers.requirements.txt; python-fcl:
# scripts/python_peers.requirements.txt) and the package itself
# (`pip install ./python`) into .venv, builds the CLI and the Rust side of the
# overhead figure (examples/voxel_indices.rs), and runs python/bench/peers.py.
# Usage: scripts/python_peers.sh [--quick] [--write-notes]
set -euo pipefail
cd "$(dirname "$0")/.."
# Open3D's wheel links libusb; install it from Debian when missing.
if ! ldconfig -p | grep -q libusb-1.0; then
  apt-get update -qq && apt-get install -y -qq libusb-1.0-0 >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install --quiet -r scripts/voxel_peers.requirements.txt -r scripts/python_peers.requirements.txt
.venv/bin/pip install --quiet ./python
cargo build --release --quiet --bin widephase --example voxel_indices
exec .venv/bin/python python/bench/peers.py "$@"
