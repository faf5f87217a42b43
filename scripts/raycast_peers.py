"""Cast the same rays with widephase and Open3D's RaycastingScene (Embree).

The ray set is widephase's (`widephase raycast --dump-rays`): origins uniform on
a sphere of radius = bounding-box diagonal around the mesh, each aimed at a
uniform point of the box, direction not normalized (hits have t in [0, 1]).
Both tools report the closest hit's t in units of the direction, so t is
compared directly.

With `--camera WxH`, the same run also casts a pinhole camera image (the
mesh's bounding sphere framed from its +z side, 60 degree horizontal field of
view): Open3D casts `create_rays_pinhole(...)` (ray generation untimed),
widephase `raycast --camera` with the same eye, centre, up and fov (the same
rays: Open3D's convention); both alternate with the incoherent runs.
`--json-out PATH` writes the tables in benches/results' format.

Timing: widephase's time is its query alone (BVH built before, as Open3D's
scene is committed by a warm-up cast before timing). Both are timed warm, in
one process: each round runs `widephase raycast --repeat K` (K = `--inner`,
the best of its K queries) and K Open3D casts; each figure is the best of R
rounds. widephase and Open3D alternate at each thread count, so the shared
machine's load hits both alike. Threads: `--threads T` for widephase,
`cast_rays(..., nthreads=T)` for Open3D (its TBB arena size).
"""
import argparse, json, os, subprocess, sys, tempfile, time
import numpy as np
import open3d as o3d

from camera import camera_of  # (scripts/camera.py, shared with python/bench/peers.py)
from figures import machine_description

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESHES = os.path.join(ROOT, "..", "shared", "meshes")
WP = os.path.join(ROOT, "target", "release", "widephase")

ap = argparse.ArgumentParser()
ap.add_argument("--rays", type=int, default=1_000_000)
ap.add_argument("--repeats", type=int, default=3)
ap.add_argument("--inner", type=int, default=3, help="queries per round and process (warm)")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--camera", help="also cast a WxH pinhole image, e.g. 1280x960")
ap.add_argument("--json-out", help="write the tables as a benches/results JSON file")
ap.add_argument("meshes", nargs="*")
args = ap.parse_args()
meshes = args.meshes or [os.path.join(MESHES, m) for m in ("bunny.obj", "dragon.obj")]


def wp(path, threads, extra=(), source=None):
    source = source or ["--rays", str(args.rays), "--seed", str(args.seed)]
    r = subprocess.run([WP, "raycast", path, *source, "--threads", str(threads), "--json",
                        "--repeat", str(args.inner), *extra],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def o3d_best(scene, rays, threads):
    """Open3D's best of `--inner` casts in this process, and its last answer."""
    ms = float("inf")
    for _ in range(args.inner):
        t0 = time.perf_counter()
        ans = scene.cast_rays(rays, nthreads=threads)
        ms = min(ms, (time.perf_counter() - t0) * 1e3)
    return ms, ans


def vec(v):
    return ",".join(repr(float(x)) for x in v)


cam_rows = []

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
    if args.camera:
        cw, ch = (int(x) for x in args.camera.lower().split("x"))
        fov, center, eye, up = camera_of(np.asarray(legacy.vertices), cw, ch)
        cam_src = ["--camera", f"{cw}x{ch}", "--fov", repr(fov), "--eye", vec(eye),
                   "--center", vec(center), "--up", vec(up)]
        cam_t = o3d.t.geometry.RaycastingScene.create_rays_pinhole(
            fov, o3d.core.Tensor(center), o3d.core.Tensor(eye), o3d.core.Tensor(up), cw, ch)
        cam_np = cam_t.numpy().reshape(-1, 6)
        cam_hits = os.path.join(tmp, "cam_hits.npy")
        cam_rays = os.path.join(tmp, "cam_rays.npy")
        wp(path, 2, ("--dump-hits", cam_hits, "--dump-rays", cam_rays), cam_src)
        t_wp_cam = np.load(cam_hits)
        ray_ulps = int(np.abs(np.load(cam_rays).view(np.int32).astype(np.int64)
                              - cam_np.view(np.int32).astype(np.int64)).max())
    for threads in (1, 2):
        best_wp, best_o3d, o3d_hits, t_o3d = None, None, None, None
        cbest_wp, cbest_o3d, t_o3d_cam = None, None, None
        for _ in range(args.repeats):
            j = wp(path, threads)
            best_wp = j if best_wp is None or j["best_ms"] < best_wp["best_ms"] else best_wp
            ms, ans = o3d_best(scene, rays_t, threads)
            t_o3d = ans["t_hit"].numpy()
            o3d_hits = int(np.isfinite(t_o3d).sum())
            best_o3d = ms if best_o3d is None else min(best_o3d, ms)
            if args.camera:
                j = wp(path, threads, (), cam_src)
                cbest_wp = j if cbest_wp is None or j["best_ms"] < cbest_wp["best_ms"] else cbest_wp
                ms, ans = o3d_best(scene, cam_t, threads)
                t_o3d_cam = ans["t_hit"].numpy().reshape(-1)
                cbest_o3d = ms if cbest_o3d is None else min(cbest_o3d, ms)
        if args.camera:
            n_cam = cw * ch
            fin_w, fin_o = np.isfinite(t_wp_cam), np.isfinite(t_o3d_cam)
            both = fin_w & fin_o
            rel = np.abs(t_wp_cam[both] - t_o3d_cam[both]) / np.maximum(t_o3d_cam[both], 1e-30)
            r_w = n_cam / (cbest_wp["best_ms"] * 1e3)
            r_o = n_cam / (cbest_o3d * 1e3)
            cam_rows.append((name, n_tris, threads, f"{cw}x{ch}", r_w, r_o, r_w / r_o,
                             int(fin_w.sum()), int(fin_o.sum()), int((fin_w != fin_o).sum()),
                             int((rel > 1e-5).sum()), ray_ulps))
        both = np.isfinite(t_wp) & np.isfinite(t_o3d)
        disagree = int((np.isfinite(t_wp) != np.isfinite(t_o3d)).sum())
        adt = np.abs(t_wp[both] - t_o3d[both])
        dt = float(np.median(adt)) if both.any() else 0.0
        far = int((adt > 1e-4).sum())
        rate_wp = args.rays / (best_wp["best_ms"] * 1e3)
        rate_o3d = args.rays / (best_o3d * 1e3)
        rows.append((name, n_tris, threads, rate_wp, best_wp["hits"], best_wp["build_ms"],
                     rate_o3d, o3d_hits, o3d_build_ms, rate_wp / rate_o3d, disagree, dt, far,
                     ref["nodes_per_ray"], ref["tris_per_ray"]))

print(f"rays per mesh: {args.rays}, seed {args.seed}, best of {args.repeats} rounds of {args.inner}")
print()
print("| mesh | triangles | threads | widephase Mrays/s | Embree (open3d) Mrays/s | ratio | "
      "hits wp / o3d | hit/miss disagreements | median abs dt | rays with abs dt > 1e-4 | build ms wp / o3d | "
      "wp nodes/ray | wp tris/ray |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (name, n, th, rw, hw, bw, ro, ho, bo, ratio, dis, dt, far, npr, tpr) in rows:
    print(f"| {name} | {n} | {th} | {rw:.2f} | {ro:.2f} | {ratio:.2f}x | {hw} / {ho} | {dis} | "
          f"{dt:.1e} | {far} | {bw:.0f} / {bo:.0f} | {npr:.2f} | {tpr:.2f} |")

if cam_rows:
    print()
    print(f"camera images (pinhole, 60 degree horizontal fov), best of {args.repeats} rounds of {args.inner}")
    print()
    print("| mesh | triangles | threads | image | widephase Mrays/s | Open3D Mrays/s | ratio | "
          "hits wp / o3d | hit/miss disagreements | hits with rel dt > 1e-5 | max ray ulps vs o3d |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, n, th, img, rw, ro, ratio, hw, ho, dis, far, ulps) in cam_rows:
        print(f"| {name} | {n} | {th} | {img} | {rw:.2f} | {ro:.2f} | {ratio:.2f}x | {hw} / {ho} | "
              f"{dis} | {far} | {ulps} |")

if args.json_out:
    import datetime
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    load = open("/proc/loadavg").read().split()[:3]
    tables = [{
        "title": f"incoherent rays ({args.rays} per mesh)",
        "columns": ["mesh", "threads", "widephase Mrays/s", "Embree (open3d) Mrays/s", "ratio",
                    "hit/miss disagreements"],
        "rows": [[r[0], r[2], round(r[3], 2), round(r[6], 2), f"{r[9]:.2f}×", r[10]] for r in rows],
    }]
    if cam_rows:
        tables.append({
            "title": f"camera rays ({cam_rows[0][3]} pinhole image)",
            "columns": ["mesh", "threads", "widephase Mrays/s", "Open3D cast_rays Mrays/s", "ratio",
                        "hit/miss disagreements"],
            "rows": [[r[0], r[2], round(r[4], 2), round(r[5], 2), f"{r[6]:.2f}×", r[9]]
                     for r in cam_rows],
        })
    out = {
        "name": os.path.splitext(os.path.basename(args.json_out))[0],
        "kind": "table",
        "title": "Rays against Embree (Open3D), incoherent and camera",
        "command": " ".join([".venv/bin/python", "scripts/raycast_peers.py", *sys.argv[1:]]),
        "machine": machine_description(),
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "provenance": f"load average at the end of the run: {' '.join(load)}",
        "tables": tables,
        "bullets": [],
        "notes": [],
        "description": f"best of {args.repeats} rounds of {args.inner} warm queries each "
                       "(widephase raycast --repeat, Open3D cast_rays in its process), "
                       "widephase and Open3D alternating in one run.",
    }
    with open(args.json_out, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
