"""Run widephase, Open3D, trimesh and parry3d on the same meshes and grids.

Grid: RES voxels along the largest extent, origin at the mesh's bounding-box
minimum, voxel size h as widephase reports it (extent/RES, rounded up by ulps
so the grid covers the mesh exactly). Every tool's voxels are mapped to
integer indices floor((centre - origin) / h) on that grid.

"misses" counts voxels of widephase's conservative surface that a tool does
not report. widephase's surface itself has zero misses against the exact
rational reference (tests/voxel.rs, at lower resolutions), so this is the
number of voxels the surface touches that the tool leaves out. "extras" are
voxels a tool reports that widephase does not.

parry3d runs through examples/parry_voxelize.rs (built with `--features
peers`), which puts parry's lattice on our grid exactly and times its
`VoxelizedVolume::with_voxel_size` call alone (one thread).

Writes the table to stdout as Markdown.
"""
import json, os, subprocess, sys, tempfile, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESHES = os.path.join(ROOT, "..", "shared", "meshes")
WP = os.path.join(ROOT, "target", "release", "widephase")
PARRY = os.path.join(ROOT, "target", "release", "examples", "parry_voxelize")
quick = "--quick" in sys.argv

CASES = [("spot.obj", 128), ("teapot.obj", 128), ("bunny.obj", 128), ("bunny.obj", 512)]
TRIMESH_MAX_RES = 128  # trimesh takes seconds per mesh at 128 already
if not quick:
    CASES += [("dragon.obj", 512), ("dragon_sub4.obj", 512)]


def widephase(path, res, repeats=5):
    out = tempfile.mktemp(suffix=".npy")
    best = None
    for _ in range(repeats):
        r = subprocess.run([WP, "voxelize", path, "--res", str(res), "--out", out, "--json"],
                           check=True, capture_output=True, text=True)
        j = json.loads(r.stdout)
        best = j if best is None or j["voxelize_ms"] < best["voxelize_ms"] else best
    idx = np.load(out)
    os.remove(out)
    return best, set(map(tuple, idx.tolist()))


def open3d_run(path, res, lo, h):
    import open3d as o3d
    mesh = o3d.io.read_triangle_mesh(path)
    hi = lo + h * res
    t = time.perf_counter()
    vg = o3d.geometry.VoxelGrid.create_from_triangle_mesh_within_bounds(mesh, voxel_size=float(h), min_bound=lo, max_bound=hi)
    ms = (time.perf_counter() - t) * 1e3
    origin = np.asarray(vg.origin)
    idx = np.array([v.grid_index for v in vg.get_voxels()], dtype=np.int64).reshape(-1, 3)
    # Open3D indices are relative to vg.origin; map centres onto our grid
    centres = origin + (idx + 0.5) * h
    ours = np.floor((centres - lo) / h).astype(np.int64)
    return ms, set(map(tuple, ours.tolist()))


def trimesh_run(path, res, lo, h):
    import trimesh
    mesh = trimesh.load(path, process=False, force="mesh")
    # trimesh's voxel k is centred on k·pitch: shift the mesh by -(lo + h/2)
    # so its lattice is ours (voxel k ↔ our voxel k)
    mesh.apply_translation(-(lo + 0.5 * h))
    t = time.perf_counter()
    vg = mesh.voxelized(pitch=float(h))
    ms = (time.perf_counter() - t) * 1e3
    ours = np.round(np.asarray(vg.points) / h).astype(np.int64)
    return ms, set(map(tuple, ours.tolist()))


def parry_run(path, res, lo, h):
    out = tempfile.mktemp(suffix=".npy")
    r = subprocess.run([PARRY, path, str(res), out], check=True, capture_output=True, text=True)
    j = json.loads(r.stdout)
    idx = np.load(out)
    os.remove(out)
    return j["ms"], set(map(tuple, idx.tolist()))


def main():
    rows = []
    for name, res in CASES:
        path = os.path.join(MESHES, name)
        if not os.path.exists(path):
            print(f"skip {name}: not present", file=sys.stderr)
            continue
        j, wset = widephase(path, res)
        lo = np.array(j["origin"], dtype=np.float64)
        h = j["voxel_size"]
        rows.append((name, res, "widephase (2 threads, best of 5)", j["voxelize_ms"], len(wset), 0, 0))
        tools = (("Open3D", open3d_run), ("trimesh voxelized", trimesh_run),
                 ("parry3d VoxelizedVolume (1 thread)", parry_run))
        for tool, fn in tools:
            if tool.startswith("trimesh") and res > TRIMESH_MAX_RES:
                continue
            try:
                ms, s = fn(path, res, lo, h)
            except Exception as e:  # report, keep going
                print(f"{tool} failed on {name}: {e}", file=sys.stderr)
                continue
            # keep voxels inside our grid (Open3D also reports the ring of
            # voxels at index -1 whose face touches the mesh's bbox minimum)
            s = {v for v in s if all(0 <= c < res for c in v)}
            rows.append((name, res, tool, ms, len(s), len(wset - s), len(s - wset)))
        for r in rows[-4:]:
            print(r, file=sys.stderr, flush=True)
    print("| mesh | RES | tool | ms | voxels | misses (vs widephase surface) | extras |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]} | {r[6]} |")


if __name__ == "__main__":
    main()
