"""Tiled voxelization on Dask: throughput, per-tile overhead, memory per
worker and store size, against one process on the same machine.

For MESH at RES³ (surface) with TILE³ tiles:
1. one whole-grid call (`voxelize(..., storage="sparse")`, all cores);
2. the same grid tile by tile in one process (`voxelize_tile`, all cores per
   tile), no store; and the driver's tasks (voxelize, write the chunk) in a
   loop in one process, into a store;
3. `widephase.dask.voxelize_to_zarr` on a LocalCluster of WORKERS
   single-threaded workers into a Zarr v3 store (zstd, the default codec),
   checked voxel for voxel against (1) (`read_indices`), with each worker's
   peak RSS (`ru_maxrss`) and the store's size on disk.
Then the expected wall time and store size of 16384³ and 65536³ jobs on N
two-core machines, scaled from the measured per-tile figures (the tiles
submitted, those a triangle comes near, and the voxels grow with RES²).

Usage: python python/bench/dask_scaling.py [--mesh PATH] [--res 8192] [--tile 256]
       [--workers 2] [--write-notes]
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import widephase
import widephase.dask as wd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--mesh", default=os.path.join(ROOT, "..", "shared", "meshes", "dragon_sub4.obj"))
ap.add_argument("--res", type=int, default=8192)
ap.add_argument("--tile", type=int, default=256)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--write-notes", action="store_true")
args = ap.parse_args()


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def duration(s):
    """Seconds as the README's table reads them: s, min or h."""
    return f"{s:.1f} s" if s < 60 else f"{s / 60:.1f} min" if s < 3600 else f"{s / 3600:.2f} h"


def main():
    from distributed import Client, LocalCluster

    m = widephase.load_mesh(args.mesh)
    name = os.path.basename(args.mesh)
    grid = widephase.fit_grid(m, resolution=args.res)
    t = time.perf_counter()
    whole = widephase.voxelize(m, resolution=args.res, storage="sparse")
    whole_s = time.perf_counter() - t
    count = whole.count
    index = widephase.mesh_index(m)
    tiles = wd.tiles(grid.dims, (args.tile,) * 3)
    t = time.perf_counter()
    per_tile = []
    for lo, hi in tiles:
        t0 = time.perf_counter()
        n = widephase.voxelize_tile(index, (lo, hi), grid=grid).count
        per_tile.append((time.perf_counter() - t0, n))
    tiled_s = time.perf_counter() - t
    tiled_count = sum(n for _, n in per_tile)
    nonempty = [s for s, n in per_tile if n]
    empty = [s for s, n in per_tile if not n]
    # the same tasks (voxelize, then write the chunk) one after another in
    # this process, into a store of its own: the baseline for the cluster
    import zarr

    serial_store = tempfile.mkdtemp(prefix="wp-serial-") + "/v.zarr"
    zarr.create_array(store=serial_store, shape=tuple(grid.dims), chunks=(args.tile,) * 3, dtype="bool",
                      fill_value=0, config={"write_empty_chunks": False})
    occupied = [tuple(map(tuple, t)) for t in index.occupied_tiles(
        grid.origin, grid.voxel_size, grid.dims, (args.tile,) * 3, *widephase._planes(grid)).tolist()]
    t = time.perf_counter()
    for tile in occupied:
        wd._tile_task(index, tuple(grid), tile, serial_store, "surface", "bool", None, None)
    serial_s = time.perf_counter() - t
    shutil.rmtree(os.path.dirname(serial_store))
    store = tempfile.mkdtemp(prefix="wp-dask-") + "/v.zarr"
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        # a first run warms the workers (imports, the mesh and its index
        # arriving); the second is timed
        wd.voxelize_to_zarr(m, grid=grid, store=store, chunks=args.tile, client=client)
        summary = wd.voxelize_to_zarr(m, grid=grid, store=store, chunks=args.tile, client=client,
                                      overwrite=True)
        worker_rss = list(client.run(peak_rss_mb).values())
    finally:
        client.close()
        cluster.close()
    t = time.perf_counter()
    back = wd.read_indices(store)
    read_s = time.perf_counter() - t
    same = bool(len(back) == count and np.array_equal(back, whole.indices()))
    shutil.rmtree(os.path.dirname(store))
    res_facts = {
        "mesh": name, "triangles": int(len(m.faces)), "res": args.res, "tile": args.tile,
        "workers": args.workers, "voxels": int(count), "whole_s": whole_s, "tiled_one_process_s": tiled_s,
        "tiles": len(tiles), "nonempty_tiles": len(nonempty), "serial_zarr_s": serial_s,
        "mean_nonempty_tile_s": float(np.mean(nonempty)) if nonempty else 0.0,
        "mean_empty_tile_s": float(np.mean(empty)) if empty else 0.0,
        "dask_s": summary["seconds"], "dask_voxelize_s": summary["voxelize_s"],
        "dask_write_s": summary["write_s"], "store_bytes": summary["store_bytes"],
        "chunks_written": summary["chunks_written"], "worker_peak_rss_mb": worker_rss,
        "read_back_s": read_s, "identical": same and tiled_count == count,
    }
    lines = [
        f"{name} ({len(m.faces)} triangles) at {args.res}³, surface, {args.tile}³ tiles "
        f"({len(tiles)} tiles, {len(nonempty)} non-empty), {count} voxels:",
        "",
        "| run | s | vs whole-grid call | notes |",
        "|---|---:|---:|---|",
        f"| one whole-grid call (sparse, 2 threads) | {whole_s:.2f} | 1.00× | |",
        f"| tile by tile, one process (2 threads per tile) | {tiled_s:.2f} | {tiled_s / whole_s:.2f}× | "
        f"non-empty tile {1e3 * res_facts['mean_nonempty_tile_s']:.1f} ms, empty "
        f"{1e3 * res_facts['mean_empty_tile_s']:.2f} ms |",
        f"| tile by tile into Zarr v3, one process (the driver's tasks in a loop) | {serial_s:.2f} | "
        f"{serial_s / whole_s:.2f}× | {len(occupied)} occupied tiles |",
        f"| Dask LocalCluster, {args.workers} workers × 1 thread, into Zarr v3 | {summary['seconds']:.2f} | "
        f"{summary['seconds'] / whole_s:.2f}× | worker peak RSS {', '.join(f'{r:.0f}' for r in worker_rss)} MB; "
        f"store {summary['store_bytes'] / 2**20:.1f} MiB in {summary['chunks_written']} chunks; "
        f"identical: {res_facts['identical']} |",
    ]
    # On paper: scale the measured per-tile costs (worker core-seconds).
    # The submitted tiles (those a triangle comes near) and the non-empty
    # ones grow with RES² (the surface); the per-tile overhead (scheduling,
    # transfer) is what the cluster run cost beyond the tiles' own voxelize
    # and write times, per submitted tile.
    full = [r for r in summary["per_tile"] if r["count"]]
    hollow = [r for r in summary["per_tile"] if not r["count"]]
    full_s = float(np.mean([r["voxelize_s"] + r["write_s"] for r in full])) if full else 0.0
    hollow_s = float(np.mean([r["voxelize_s"] for r in hollow])) if hollow else 0.0
    busy = sum(r["voxelize_s"] + r["write_s"] for r in summary["per_tile"])
    submitted = summary["tiles_submitted"]
    overhead_s = max(summary["seconds"] * args.workers - busy, 0.0) / max(submitted, 1)
    res_facts.update(dask_full_tile_s=full_s, dask_empty_tile_s=hollow_s, dask_overhead_per_tile_s=overhead_s)
    lines.append(f"| per tile on a worker | | | non-empty {1e3 * full_s:.1f} ms (voxelize + write), "
                 f"empty {1e3 * hollow_s:.2f} ms, cluster overhead {1e3 * overhead_s:.2f} ms |")
    est = []
    for target in (16384, 65536):
        f = target / args.res
        n_tiles = submitted * f ** 2  # the tiles a triangle comes near: the surface's
        n_full = len(full) * f ** 2
        core_s = n_tiles * overhead_s + n_full * full_s + (n_tiles - n_full) * hollow_s
        for machines in (1, 16, 256):
            est.append((target, machines, n_tiles, core_s / (2 * machines), summary["store_bytes"] * f ** 2))
    lines += ["", "| grid | machines (2 cores) | tiles submitted | expected wall | expected store |",
              "|---|---:|---:|---:|---:|"]
    for target, machines, n_tiles, wall, b in est:
        lines.append(f"| {target}³ | {machines} | {n_tiles:.3g} | {duration(wall)} | {b / 2**30:.1f} GiB |")
    table = "\n".join(lines)
    print(table)
    if args.write_notes:
        write_notes(table)
    sys.exit(0 if res_facts["identical"] else 1)


def write_notes(table):
    """Records the table as benches/results/dask_scaling.json through scripts/figures.py
    (command, machine, date, commit), which then regenerates its block in
    simd-notes.md."""
    figures = os.path.join(ROOT, "scripts", "figures.py")
    cmd = "python python/bench/dask_scaling.py " + " ".join(a for a in sys.argv[1:] if a != "--write-notes")
    subprocess.run([sys.executable, figures, "record", "table", "-", "--name", "dask_scaling", "--command",
                    cmd.strip()], input=table, text=True, check=True)
    subprocess.run([sys.executable, figures], check=True)


if __name__ == "__main__":
    main()
