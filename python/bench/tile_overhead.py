"""What tiling costs over one whole-grid call: the occupied tiles of a grid
voxelized one by one (`voxelize_tile`, `threads=1` each, no store) against
one whole-grid sparse call, on one thread, and on all cores (the tiles
shared by one Python thread per core, as Dask worker threads would run them,
against the whole call on the global pool, as a user calls it). The voxel
counts are checked equal.

Usage: python python/bench/tile_overhead.py [--mesh PATH] [--res 4096] [--tile 256] [--repeats 2]
"""

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import widephase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--mesh", default=os.path.join(ROOT, "..", "shared", "meshes", "dragon_sub4.obj"))
ap.add_argument("--res", type=int, default=4096)
ap.add_argument("--tile", type=int, default=256)
ap.add_argument("--repeats", type=int, default=2)
args = ap.parse_args()


def best(fn):
    out, secs = None, []
    for _ in range(args.repeats):
        t = time.perf_counter()
        out = fn()
        secs.append(time.perf_counter() - t)
    return min(secs), out


def main():
    m = widephase.load_mesh(args.mesh)
    grid = widephase.fit_grid(m, resolution=args.res)
    index = widephase.mesh_index(m)
    size = (args.tile,) * 3
    tiles = [tuple(map(tuple, t)) for t in index.occupied_tiles(
        grid.origin, grid.voxel_size, grid.dims, size, *widephase._planes(grid)).tolist()]

    def tile_count(t):
        return widephase.voxelize_tile(index, t, grid=grid, threads=1).count

    rows = []
    cores = os.cpu_count() or 1
    for threads in (1, cores):
        # (all cores: the global pool, `threads=None`)
        whole_s, whole = best(lambda: widephase.voxelize(m, resolution=args.res, storage="sparse",
                                                         threads=1 if threads == 1 else None))
        with ThreadPoolExecutor(threads) as ex:
            tiles_s, n = best(lambda: sum(ex.map(tile_count, tiles)))
        assert n == whole.count, f"tiles found {n} voxels, the whole grid {whole.count}"
        rows.append((threads, whole_s, tiles_s))
    name = os.path.basename(args.mesh)
    print(f"{name} at {args.res}³, {len(tiles)} occupied tiles of {args.tile}³, best of {args.repeats}:")
    print("| threads | whole-grid call s | tiles s | tiles / whole |")
    print("|---:|---:|---:|---:|")
    for threads, whole_s, tiles_s in rows:
        print(f"| {threads} | {whole_s:.2f} | {tiles_s:.2f} | {tiles_s / whole_s:.2f}× |")


if __name__ == "__main__":
    main()
