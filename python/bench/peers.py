"""The Python package against the tools Python users reach for, all timed in
one process, side by side.

- Voxelizer: `widephase.voxelize(v, f, resolution=R).indices()` from NumPy
  arrays against Open3D's `VoxelGrid.create_from_triangle_mesh_within_bounds`
  on the same grid (best of REPEATS calls each), and trimesh's `voxelized`
  (one call; seconds at 128³, ~45 s at 512³). Misses and extras of every tool against the exact
  rational triangle–box test (the oracle of scripts/voxel_peers.py, which
  decides every voxel where a tool and widephase disagree).
- The Python layer's overhead: the same job in Rust (examples/voxel_indices.rs:
  voxelize + `VoxelSet::indices_flat`, best of REPEATS in one process), run
  right after the Python timing.
- Rays: RAYS rays on bunny (the set `widephase raycast --dump-rays` writes),
  `RayScene.cast` against Open3D's `RaycastingScene.cast_rays` (Embree) at 1
  and 2 threads, alternated, best of 3; closest-hit t compared. Then a
  CAMERA pinhole image framing bunny: `pinhole_rays` and Open3D's
  `create_rays_pinhole` (the same rays), each `(H, W, 6)` array cast whole.
- Broad phase: BOXES random boxes, `widephase.pairs` against python-fcl's
  `DynamicAABBTreeCollisionManager` (register, setup and collide, the way its
  users call it; one run, it takes seconds); pair counts compared.

Usage: python python/bench/peers.py [--quick] [--write-notes]
(`scripts/python_peers.sh` installs the pinned peers and runs this.) With
`--write-notes` the table is recorded as benches/results/python_peers.json
(scripts/figures.py record) and its block in simd-notes.md regenerated.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import widephase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from voxel_peers import ExactOracle, exact_errors  # noqa: E402  (the exact oracle, shared)
from camera import camera_of  # noqa: E402  (the camera of scripts/raycast_peers.py)

MESHES = os.path.join(ROOT, "..", "shared", "meshes")
WP = os.path.join(ROOT, "target", "release", "widephase")
RUST_SIDE = os.path.join(ROOT, "target", "release", "examples", "voxel_indices")
quick = "--quick" in sys.argv
REPEATS = 30  # (best of 30: this shared machine varies ±5 % between runs of 10)
RAYS = 200_000 if quick else 1_000_000
BOXES = 20_000 if quick else 100_000
CAMERA, CAMERA_FOV = (1280, 960), 60.0  # pinhole image (width, height), horizontal fov
VOXEL_CASES = [("bunny.obj", 128), ("bunny.obj", 512)]
TRIMESH_MAX_RES = 128 if quick else 512  # (512³: ~45 s and ~6 GB for trimesh)
TRIMESH_EXACT_SAMPLE = 6000  # voxels only widephase marks decided exactly per trimesh row (all at 128³)


def best_of(n, fn):
    best, out = None, None
    for _ in range(n):
        out = None  # the previous result is freed before the timer starts
        t = time.perf_counter()
        out = fn()
        ms = (time.perf_counter() - t) * 1e3
        best = ms if best is None else min(best, ms)
    return best, out


def voxel_rows(path, res):
    import open3d as o3d

    name = os.path.basename(path)
    mesh = widephase.load_mesh(path)
    ms_wp, ijk = best_of(REPEATS, lambda: widephase.voxelize(mesh, resolution=res).indices())
    ms_vox, grid = best_of(REPEATS, lambda: widephase.voxelize(mesh, resolution=res))
    lo = np.asarray(grid.origin, np.float64)
    h = float(grid.voxel_size)
    wset = set(map(tuple, ijk.tolist()))
    rust = json.loads(subprocess.run([RUST_SIDE, path, str(res), str(REPEATS)], check=True,
                                     capture_output=True, text=True).stdout)
    o3d_mesh = o3d.io.read_triangle_mesh(path)

    def o3d_call():
        return o3d.geometry.VoxelGrid.create_from_triangle_mesh_within_bounds(
            o3d_mesh, voxel_size=h, min_bound=lo, max_bound=lo + h * res)

    ms_o3d, vg = best_of(REPEATS, o3d_call)
    idx = np.array([v.grid_index for v in vg.get_voxels()], np.int64).reshape(-1, 3)
    centres = np.asarray(vg.origin) + (idx + 0.5) * h
    o3d_set = {v for v in map(tuple, np.floor((centres - lo) / h).astype(np.int64).tolist())
               if all(0 <= c < res for c in v)}
    oracle = ExactOracle(path, lo, h)
    wp_wrong = set()
    rows = []
    m, e = exact_errors(oracle, wset, o3d_set, wp_wrong)
    rows.append((f"Open3D create_from_triangle_mesh (best of {REPEATS})", ms_o3d, len(o3d_set), m, e))
    if res <= TRIMESH_MAX_RES:
        import trimesh

        tm = trimesh.Trimesh(mesh.vertices.astype(np.float64), mesh.faces, process=False)
        tm.apply_translation(-(lo + 0.5 * h))  # trimesh's voxel k is centred on k·pitch
        ms_tm, vg = best_of(1, lambda: tm.voxelized(pitch=h))
        tm_set = {v for v in map(tuple, np.round(np.asarray(vg.points) / h).astype(np.int64).tolist())
                  if all(0 <= c < res for c in v)}
        m, e = exact_errors(oracle, wset, tm_set, wp_wrong, sample=TRIMESH_EXACT_SAMPLE)
        sampled = len(wset - tm_set) > TRIMESH_EXACT_SAMPLE
        rows.append(("trimesh voxelized (one call)", ms_tm, len(tm_set),
                     f"{m} (scaled from {TRIMESH_EXACT_SAMPLE} decided)" if sampled else m, e))
    wm = sum(1 for kind, _ in wp_wrong if kind == "miss")
    ours = [(f"widephase voxelize().indices() from NumPy (best of {REPEATS})", ms_wp, len(wset), wm,
             len(wp_wrong) - wm),
            (f"widephase voxelize() alone (best of {REPEATS})", ms_vox, len(wset), wm, len(wp_wrong) - wm),
            (f"Rust: voxelize + indices_flat (best of {REPEATS})", rust["total_ms"], rust["voxels"], "", ""),
            (f"Rust: voxelize alone (best of {REPEATS})", rust["voxelize_ms"], rust["voxels"], "", "")]
    table = [(name, res, *r) for r in ours + rows]
    facts = {
        "mesh": name, "res": res, "widephase_ms": ms_wp, "widephase_voxelize_ms": ms_vox,
        "rust_total_ms": rust["total_ms"], "rust_voxelize_ms": rust["voxelize_ms"],
        "open3d_ms": ms_o3d, "open3d_over_widephase": ms_o3d / ms_wp,
        "python_overhead": ms_wp / rust["total_ms"] - 1, "widephase_exact_misses": wm,
    }
    if res <= TRIMESH_MAX_RES:
        facts["trimesh_ms"] = rows[-1][1]
        facts["trimesh_over_widephase"] = rows[-1][1] / ms_wp
    return table, facts


def ray_rows(path):
    import open3d as o3d

    tmp = tempfile.mkdtemp()
    rays_npy, hits_npy = os.path.join(tmp, "r.npy"), os.path.join(tmp, "h.npy")
    subprocess.run([WP, "raycast", path, "--rays", str(RAYS), "--dump-rays", rays_npy,
                    "--dump-hits", hits_npy], check=True, capture_output=True)
    rays = np.load(rays_npy)
    o, d = np.ascontiguousarray(rays[:, :3]), np.ascontiguousarray(rays[:, 3:])
    scene = widephase.RayScene(widephase.load_mesh(path))
    o3d_scene = o3d.t.geometry.RaycastingScene()
    o3d_scene.add_triangles(o3d.t.geometry.TriangleMesh.from_legacy(o3d.io.read_triangle_mesh(path)))
    o3d_scene.cast_rays(o3d.core.Tensor(rays[:16]))  # commits the scene (Embree's build)
    rays_t = o3d.core.Tensor(rays)
    # a camera image framing the mesh (scripts/raycast_peers.py's camera):
    # one (H, W, 6) array, passed whole to both
    cam = (*camera_of(widephase.load_mesh(path).vertices, *CAMERA, CAMERA_FOV), *CAMERA)
    cam_wp = widephase.pinhole_rays(*cam)
    cam_o3d = o3d.t.geometry.RaycastingScene.create_rays_pinhole(*cam)
    assert np.abs(cam_wp - cam_o3d.numpy()).max() < 1e-6, "pinhole rays differ from Open3D's"
    name = os.path.basename(path)
    out, facts = [], {}
    for kind, cast_wp, cast_o3d, n in [
        (f"{RAYS // 1000}k random", lambda th: scene.cast(o, d, threads=th), rays_t, RAYS),
        (f"{CAMERA[0]}x{CAMERA[1]} camera", lambda th: scene.cast(cam_wp, threads=th), cam_o3d,
         CAMERA[0] * CAMERA[1]),
    ]:
        for threads in (1, 2):
            best_wp = best_o3d = None
            for _ in range(3):
                ms, (t_wp, _) = best_of(1, lambda: cast_wp(threads))
                best_wp = ms if best_wp is None else min(best_wp, ms)
                ms, ans = best_of(1, lambda: o3d_scene.cast_rays(cast_o3d, nthreads=threads))
                best_o3d = ms if best_o3d is None else min(best_o3d, ms)
            t_o3d = ans["t_hit"].numpy().reshape(-1)
            if n == RAYS:
                assert np.array_equal(t_wp, np.load(hits_npy)), "RayScene differs from the CLI's hits"
            disagree = int((np.isfinite(t_wp) != np.isfinite(t_o3d)).sum())
            rate = lambda ms: n / (ms * 1e3)  # noqa: E731
            out.append((name, kind, threads, rate(best_wp), rate(best_o3d), rate(best_wp) / rate(best_o3d),
                        disagree))
            facts[f"{kind} threads_{threads}"] = {
                "widephase_mrays_s": rate(best_wp), "open3d_mrays_s": rate(best_o3d),
                "ratio": rate(best_wp) / rate(best_o3d), "hit_miss_disagreements": disagree}
    return out, facts


def box_rows():
    import fcl

    rng = np.random.default_rng(11)
    # cubes of side ≤ 1 in a cube sized for about 4 overlaps per box
    side = rng.random((BOXES, 1)) * 0.5 + 0.5
    extent = (0.85 * BOXES) ** (1 / 3)
    lo = rng.random((BOXES, 3)) * extent
    boxes = np.concatenate([lo, lo + side], 1).astype(np.float32)
    ms_wp, p = best_of(5, lambda: widephase.pairs(boxes))
    t = time.perf_counter()
    objs = []
    for b in boxes.astype(np.float64):
        size = b[3:] - b[:3]
        objs.append(fcl.CollisionObject(fcl.Box(*size), fcl.Transform((b[:3] + b[3:]) / 2)))
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objs)
    manager.setup()
    setup_ms = (time.perf_counter() - t) * 1e3
    req = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
    cdata = fcl.CollisionData(request=req)
    hits = []

    def callback(o1, o2, data):
        res = fcl.CollisionResult()
        if fcl.collide(o1, o2, req, res):
            hits.append(1)
        return False

    t = time.perf_counter()
    manager.collide(cdata, callback)
    collide_ms = (time.perf_counter() - t) * 1e3
    row = (BOXES, ms_wp, len(p), setup_ms, collide_ms, len(hits), (setup_ms + collide_ms) / ms_wp,
           collide_ms / ms_wp)
    facts = {"boxes": BOXES, "widephase_ms": ms_wp, "widephase_pairs": len(p), "fcl_setup_ms": setup_ms,
             "fcl_collide_ms": collide_ms, "fcl_pairs": len(hits),
             "fcl_total_over_widephase": row[6], "fcl_collide_over_widephase": row[7]}
    return row, facts


def write_notes(table):
    """Records the table as benches/results/python_peers.json through scripts/figures.py
    (command, machine, date, commit), which then regenerates its block in
    simd-notes.md."""
    figures = os.path.join(ROOT, "scripts", "figures.py")
    cmd = "python python/bench/peers.py " + " ".join(a for a in sys.argv[1:] if a != "--write-notes")
    subprocess.run([sys.executable, figures, "record", "table", "-", "--name", "python_peers", "--command",
                    cmd.strip()], input=table, text=True, check=True)
    subprocess.run([sys.executable, figures], check=True)


def main():
    lines = ["| mesh | RES | tool | ms | voxels | misses vs exact | extras vs exact |",
             "|---|---:|---|---:|---:|---:|---:|"]
    facts = {"voxelizer": [], "rays": {}, "boxes": {}}
    failures = []
    for name, res in VOXEL_CASES:
        path = os.path.join(MESHES, name)
        if not os.path.exists(path):
            print(f"SKIPPED: {path} not found", file=sys.stderr)
            continue
        rows, f = voxel_rows(path, res)
        facts["voxelizer"].append(f)
        for r in rows:
            lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]} | {r[6]} |")
            print(lines[-1], file=sys.stderr, flush=True)
        if f["widephase_exact_misses"]:
            failures.append(f"widephase missed {f['widephase_exact_misses']} voxels on {name} {res}")
    summary = [f"- {f['mesh']} {f['res']}³: Open3D / widephase = {f['open3d_over_widephase']:.0f}×"
               + (f", trimesh / widephase = {f['trimesh_over_widephase']:.0f}×" if "trimesh_ms" in f else "")
               + f"; Python layer over the Rust call: {100 * f['python_overhead']:+.1f} %"
               for f in facts["voxelizer"]]
    bunny = os.path.join(MESHES, "bunny.obj")
    if os.path.exists(bunny):
        rows, facts["rays"] = ray_rows(bunny)
        lines += ["", "| mesh | rays | threads | widephase RayScene Mrays/s | Open3D RaycastingScene Mrays/s | "
                  "ratio | hit/miss disagreements |", "|---|---|---:|---:|---:|---:|---:|"]
        for r in rows:
            lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.2f}× | {r[6]} |")
            print(lines[-1], file=sys.stderr, flush=True)
    row, facts["boxes"] = box_rows()
    lines += ["", "| boxes | widephase.pairs ms | pairs | python-fcl setup ms | python-fcl collide ms | "
              "fcl pairs | fcl total / widephase | fcl collide / widephase |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|",
              f"| {row[0]} | {row[1]:.1f} | {row[2]} | {row[3]:.0f} | {row[4]:.0f} | {row[5]} | {row[6]:.0f}× | "
              f"{row[7]:.0f}× |"]
    if row[2] != row[5]:
        failures.append(f"pairs: widephase {row[2]}, python-fcl {row[5]}")
    table = "\n".join(lines + [""] + summary)
    print(table)
    if "--write-notes" in sys.argv:
        write_notes(table)
    for f in failures:
        print(f"CHECK FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
