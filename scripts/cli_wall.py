#!/usr/bin/env python3
"""The command line's wall time on the voxelize-to-binvox job, per phase.

    python3 scripts/cli_wall.py [--runs 5] [--res 512] [--median] LABEL=BINARY [LABEL=BINARY ...]

Runs `BINARY voxelize ../shared/meshes/MESH.obj --res RES --out X.binvox --json`
for bunny and dragon_sub4 in fresh processes, the binaries alternated run by
run (the machine is shared: side by side, not one after the other), checks
that every binary wrote the same bytes, and prints a Markdown table of the
ranges of `load_ms`, `voxelize_ms`, `write_ms` (from the JSON), the wall time
around the process (ms) and the peak RSS (with `--median`, each cell is
the median and the range), for `scripts/figures.py record
table - --name cli_wall`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESHES = os.path.join(ROOT, "..", "shared", "meshes")
TARGET_MS = {"bunny": 30, "dragon_sub4": 120}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binaries", nargs="+", help="LABEL=PATH")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--res", type=int, default=512)
    p.add_argument("--median", action="store_true",
                   help="cells as median (min–max): for many runs on a noisy machine")
    a = p.parse_args()
    bins = [b.split("=", 1) for b in a.binaries]
    if any(len(b) != 2 for b in bins):
        sys.exit("each binary is LABEL=PATH")
    out_dir = tempfile.mkdtemp(prefix="cli-wall-")
    print(f"| mesh, {a.res}³ surface to .binvox | build | runs | load ms | voxelize ms "
          "| write ms | wall ms | peak RSS MB | target wall ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for mesh in TARGET_MS:
        path = os.path.join(MESHES, mesh + ".obj")
        if not os.path.exists(path):
            sys.exit(f"{path} not found (the shared meshes sit beside the repository)")
        runs = {label: [] for label, _ in bins}
        for _ in range(a.runs):
            for label, exe in bins:
                cmd = [exe, "voxelize", path, "--res", str(a.res), "--json",
                       "--out", os.path.join(out_dir, label + ".binvox")]
                t = time.perf_counter()
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                wall = (time.perf_counter() - t) * 1e3
                j = json.loads(out)
                runs[label].append((j["load_ms"], j["voxelize_ms"], j["write_ms"], wall,
                                    j["peak_rss_mb"]))
            files = [open(os.path.join(out_dir, l + ".binvox"), "rb").read() for l, _ in bins]
            if any(f != files[0] for f in files):
                sys.exit(f"{mesh}: the binaries wrote different files")
        for label, rows in runs.items():
            cells = []
            for col in zip(*rows):
                lo, hi = min(col), max(col)
                span = f"{lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}–{hi:.1f}"
                cells.append(f"{statistics.median(col):.1f} ({span})" if a.median else span)
            print(f"| {mesh}.obj | {label} | {len(rows)} | " + " | ".join(cells)
                  + f" | ≤ {TARGET_MS[mesh]} |")


if __name__ == "__main__":
    main()
