"""Cast the same rays with widephase and Open3D's RaycastingScene (Embree).

The ray set is widephase's (`widephase raycast --dump-rays`): origins uniform on
a sphere of radius = bounding-box diagonal around the mesh, each aimed at a
uniform point of the box, direction not normalized (hits have t in [0, 1]).
Both tools report the closest hit's t in units of the direction, so t is
compared directly.

Timing: widephase's `ms` is its query alone (BVH built before, as Open3D's
scene is committed by a warm-up cast before timing). Each figure is the best of
R runs; widephase and Open3D alternate at each thread count, so the shared
machine's load hits both alike. Threads: `--threads T` for widephase,
`cast_rays(..., nthreads=T)` for Open3D (its TBB arena size).
"""
import argparse, json, os, subprocess, sys, tempfile, time
import numpy as np
import open3d as o3d

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESHES = os.path.join(ROOT, "..", "shared", "meshes")
WP = os.path.join(ROOT, "target", "release", "widephase")

ap = argparse.ArgumentParser()
ap.add_argument("--rays", type=int, default=1_000_000)
ap.add_argument("--repeats", type=int, default=3)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("meshes", nargs="*")
args = ap.parse_args()
meshes = args.meshes or [os.path.join(MESHES, m) for m in ("bunny.obj", "dragon.obj")]


def wp(path, threads, extra=()):
    r = subprocess.run([WP, "raycast", path, "--rays", str(args.rays), "--seed", str(args.seed),
                        "--threads", str(threads), "--json", *extra],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


rows = []
for path in meshes:
    if not os.path.exists(path):
        print(f"note: {path} not found, skipped", file=sys.stderr)
        continue
    name = os.path.splitext(os.path.basename(path))[0]
    tmp = tempfile.mkdtemp()
    rays_npy, hits_npy = os.path.join(tmp, "rays.npy"), os.path.join(tmp, "hits.npy")
    ref = wp(path, 2, ("--dump-rays", rays_npy, "--dump-hits", hits_npy, "--stats"))
    rays = np.load(rays_npy)
    t_wp = np.load(hits_npy)
    legacy = o3d.io.read_triangle_mesh(path)
    tm = o3d.t.geometry.TriangleMesh.from_legacy(legacy)
    scene = o3d.t.geometry.RaycastingScene()
    t0 = time.perf_counter()
    scene.add_triangles(tm)
    scene.cast_rays(o3d.core.Tensor(rays[:16]))  # commits the scene (builds Embree's BVH)
    o3d_build_ms = (time.perf_counter() - t0) * 1e3
    rays_t = o3d.core.Tensor(rays)
    n_tris = len(legacy.triangles)
    for threads in (1, 2):
        best_wp, best_o3d, o3d_hits, t_o3d = None, None, None, None
        for _ in range(args.repeats):
            j = wp(path, threads)
            best_wp = j if best_wp is None or j["ms"] < best_wp["ms"] else best_wp
            t0 = time.perf_counter()
            ans = scene.cast_rays(rays_t, nthreads=threads)
            ms = (time.perf_counter() - t0) * 1e3
            t_o3d = ans["t_hit"].numpy()
            o3d_hits = int(np.isfinite(t_o3d).sum())
            best_o3d = ms if best_o3d is None else min(best_o3d, ms)
        both = np.isfinite(t_wp) & np.isfinite(t_o3d)
        disagree = int((np.isfinite(t_wp) != np.isfinite(t_o3d)).sum())
        adt = np.abs(t_wp[both] - t_o3d[both])
        dt = float(np.median(adt)) if both.any() else 0.0
        far = int((adt > 1e-4).sum())
        rate_wp = args.rays / (best_wp["ms"] * 1e3)
        rate_o3d = args.rays / (best_o3d * 1e3)
        rows.append((name, n_tris, threads, rate_wp, best_wp["hits"], best_wp["build_ms"],
                     rate_o3d, o3d_hits, o3d_build_ms, rate_wp / rate_o3d, disagree, dt, far,
                     ref["nodes_per_ray"], ref["tris_per_ray"]))

print(f"rays per mesh: {args.rays}, seed {args.seed}, best of {args.repeats}")
print()
print("| mesh | triangles | threads | widephase Mrays/s | Embree (open3d) Mrays/s | ratio | "
      "hits wp / o3d | hit/miss disagreements | median abs dt | rays with abs dt > 1e-4 | build ms wp / o3d | "
      "wp nodes/ray | wp tris/ray |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (name, n, th, rw, hw, bw, ro, ho, bo, ratio, dis, dt, far, npr, tpr) in rows:
    print(f"| {name} | {n} | {th} | {rw:.2f} | {ro:.2f} | {ratio:.2f}x | {hw} / {ho} | {dis} | "
          f"{dt:.1e} | {far} | {bw:.0f} / {bo:.0f} | {npr:.2f} | {tpr:.2f} |")
