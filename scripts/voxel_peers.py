"""Run widephase, Open3D, trimesh and parry3d on the same meshes and grids.

Grid: RES voxels along the largest extent, origin at the mesh's bounding-box
minimum, voxel size h as widephase reports it (extent/RES, rounded up by ulps
so the grid covers the mesh exactly). Every tool's voxels are mapped to
integer indices floor((centre - origin) / h) on that grid.

"misses" counts voxels whose closed box the mesh touches in exact arithmetic
(on the f32 vertices, origin and voxel size) that a tool does not report;
"extras" counts voxels a tool reports that the mesh does not touch. Each
voxel where a tool and widephase disagree is decided by an exact rational
triangle-box SAT (`exact_touches`, Python fractions, every triangle whose
bounding box meets the voxel). Voxels where all tools agree with widephase
are not re-decided (widephase's surface has zero misses against the exact
reference in tests/voxel.rs, and extras only in its documented ulp band).
widephase's own row counts its exact misses and extras among all the
voxels where some peer disagrees with it.

Checks (exit status 1 when one fails, after the table): widephase has zero
exact misses on every row; Open3D and parry3d, which are conservative
triangle-box tests too, disagree with the exact set on under 0.1 % of the
voxels. trimesh samples the surface and is only reported.

Timing: widephase and Open3D are timed the same way, the best of REPEATS
(10) calls in one process with the mesh loaded once (a library call in a warm
process); widephase's second row is its cold figure, the best first call of
PROCESSES (3) fresh `widephase voxelize` processes (fresh memory: the grid's
pages are faulted in during the call), and Open3D's cold row likewise its
first call in fresh Python processes (mesh loaded before the timer).
trimesh and parry3d (seconds per call) are timed once. Below the table:
Open3D's time over widephase's, warm over warm and cold over cold.

With `--write-notes`, the run is recorded as benches/results/voxel_peers.json
(with the date, the commit and the command) and scripts/figures.py regenerates
the block between `<!-- voxel-peers:begin -->` and `<!-- voxel-peers:end -->`
in simd-notes.md and the plots.

parry3d runs through examples/parry_voxelize.rs (built with `--features
peers`), which puts parry's lattice on our grid exactly and times its
`VoxelizedVolume::with_voxel_size` call alone (one thread).

Writes the table to stdout as Markdown.
"""
import json, os, random, subprocess, sys, tempfile, time
from fractions import Fraction
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESHES = os.path.join(ROOT, "..", "shared", "meshes")
WP = os.path.join(ROOT, "target", "release", "widephase")
PARRY = os.path.join(ROOT, "target", "release", "examples", "parry_voxelize")
quick = "--quick" in sys.argv
write_notes = "--write-notes" in sys.argv
# Calls per tool in one process (best taken), for widephase and Open3D alike;
# widephase also runs in PROCESSES fresh processes for its cold first call.
REPEATS = 10
PROCESSES = 3

CASES = [("spot.obj", 128), ("teapot.obj", 128), ("bunny.obj", 128), ("bunny.obj", 512)]
TRIMESH_MAX_RES = 128  # trimesh takes seconds per mesh at 128 already
if not quick:
    CASES += [("dragon.obj", 512), ("dragon_sub4.obj", 512)]


def widephase(path, res):
    """widephase's JSON (with `cold_ms`, the best first call of a fresh
    process, and `warm_ms`, the best of REPEATS calls in one process, as
    Open3D is timed) and its voxels. PROCESSES processes, each voxelizing
    REPEATS times (`--repeat`)."""
    out = tempfile.mktemp(suffix=".npy")
    cold = warm = None
    for _ in range(PROCESSES):
        r = subprocess.run([WP, "voxelize", path, "--res", str(res), "--out", out, "--json",
                            "--repeat", str(REPEATS)], check=True, capture_output=True, text=True)
        j = json.loads(r.stdout)
        cold = j["voxelize_ms"] if cold is None else min(cold, j["voxelize_ms"])
        warm = j["voxelize_best_ms"] if warm is None else min(warm, j["voxelize_best_ms"])
    j["cold_ms"], j["warm_ms"] = cold, warm
    idx = np.load(out)
    os.remove(out)
    return j, set(map(tuple, idx.tolist()))


def open3d_run(path, res, lo, h):
    import open3d as o3d
    mesh = o3d.io.read_triangle_mesh(path)
    hi = lo + h * res
    ms = None
    for _ in range(REPEATS):
        t = time.perf_counter()
        vg = o3d.geometry.VoxelGrid.create_from_triangle_mesh_within_bounds(mesh, voxel_size=float(h), min_bound=lo, max_bound=hi)
        dt = (time.perf_counter() - t) * 1e3
        ms = dt if ms is None else min(ms, dt)
    origin = np.asarray(vg.origin)
    idx = np.array([v.grid_index for v in vg.get_voxels()], dtype=np.int64).reshape(-1, 3)
    # Open3D indices are relative to vg.origin; map centres onto our grid
    centres = origin + (idx + 0.5) * h
    ours = np.floor((centres - lo) / h).astype(np.int64)
    return ms, set(map(tuple, ours.tolist()))


OPEN3D_COLD = """
import sys, time, numpy as np, open3d as o3d
path, res, h = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
lo = np.array([float(x) for x in sys.argv[4:7]])
mesh = o3d.io.read_triangle_mesh(path)
t = time.perf_counter()
o3d.geometry.VoxelGrid.create_from_triangle_mesh_within_bounds(mesh, voxel_size=h, min_bound=lo, max_bound=lo + h * res)
print((time.perf_counter() - t) * 1e3)
"""


def open3d_cold(path, res, lo, h):
    """Open3D's first call in a fresh Python process (the mesh loaded before
    the timer, as widephase's cold row), best of PROCESSES processes."""
    ms = None
    for _ in range(PROCESSES):
        r = subprocess.run([sys.executable, "-c", OPEN3D_COLD, path, str(res), repr(float(h))]
                           + [repr(float(x)) for x in lo], check=True, capture_output=True, text=True)
        dt = float(r.stdout.strip().splitlines()[-1])
        ms = dt if ms is None else min(ms, dt)
    return ms


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


def f32(x):
    """The f32 nearest to x, as an exact Fraction (widephase reads f32)."""
    return Fraction(float(np.float32(x)))


def load_triangles(path):
    """The mesh's triangles as float32 vertex arrays (n, 3, 3), as widephase
    reads them (trimesh without processing keeps the file's vertices)."""
    import trimesh
    m = trimesh.load(path, process=False, force="mesh")
    v = np.asarray(m.vertices, dtype=np.float64).astype(np.float32)
    return v[np.asarray(m.faces)]


def exact_touches(tri, lo, hi):
    """Exact closed triangle-box overlap by the 13-axis SAT on Fractions:
    separated iff some axis has the triangle's interval strictly outside the
    box's (touching counts as overlapping)."""
    c = [(lo[k] + hi[k]) / 2 for k in range(3)]
    r = [(hi[k] - lo[k]) / 2 for k in range(3)]
    p = [[tri[i][k] - c[k] for k in range(3)] for i in range(3)]
    e = [[p[(i + 1) % 3][k] - p[i][k] for k in range(3)] for i in range(3)]
    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    axes = [[1, 0, 0], [0, 1, 0], [0, 0, 1], cross(e[0], e[1])]
    for f in ([1, 0, 0], [0, 1, 0], [0, 0, 1]):
        axes += [cross(f, ei) for ei in e]
    for a in axes:
        q = [sum(a[k] * v[k] for k in range(3)) for v in p]
        rad = sum(abs(a[k]) * r[k] for k in range(3))
        if min(q) > rad or max(q) < -rad:
            return False
    return True


class ExactOracle:
    """Decides single voxels of one mesh on one grid exactly."""

    def __init__(self, path, lo, h):
        self.tris32 = load_triangles(path)
        self.tmin = self.tris32.min(axis=1).astype(np.float64)
        self.tmax = self.tris32.max(axis=1).astype(np.float64)
        self.o = [f32(x) for x in lo]
        self.h = f32(h)
        self.memo = {}

    def touched(self, v):
        if v in self.memo:
            return self.memo[v]
        lo = [self.o[k] + v[k] * self.h for k in range(3)]
        hi = [self.o[k] + (v[k] + 1) * self.h for k in range(3)]
        # candidates: float bounding boxes widened by a relative 1e-6 (only a
        # filter; the decision is exact)
        flo = np.array([float(x) for x in lo]); fhi = np.array([float(x) for x in hi])
        pad = 1e-6 * (np.abs(flo) + np.abs(fhi) + float(self.h))
        cand = np.nonzero(np.all(self.tmin <= fhi + pad, axis=1) & np.all(self.tmax >= flo - pad, axis=1))[0]
        hit = False
        for t in cand:
            tri = [[Fraction(float(x)) for x in vert] for vert in self.tris32[t]]
            if exact_touches(tri, lo, hi):
                hit = True
                break
        self.memo[v] = hit
        return hit


def exact_errors(oracle, wset, s, wp_wrong, sample=None):
    """(misses, extras) of the voxel set s against the exact surface, deciding
    exactly every voxel where s and widephase's set wset disagree. Voxels
    where widephase itself is wrong are added to wp_wrong (as
    ("miss"|"extra", voxel)): this is how widephase's row is checked.

    With `sample`, only that many voxels of wset - s (seeded choice) are
    decided and s's misses are scaled from them (a tool that misses ~10^5
    voxels would take minutes of exact tests); every voxel of s - wset, the
    ones that decide widephase's misses, is still decided."""
    misses = extras = 0
    only_ours = sorted(wset - s)
    scale = 1.0
    if sample is not None and len(only_ours) > sample:
        scale = len(only_ours) / sample
        only_ours = random.Random(1).sample(only_ours, sample)
    for v in only_ours:
        if oracle.touched(v):
            misses += 1
        else:
            wp_wrong.add(("extra", v))
    misses = round(misses * scale)
    for v in s - wset:
        if oracle.touched(v):
            wp_wrong.add(("miss", v))
        else:
            extras += 1
    return misses, extras


def write_table_to_notes(table, argv):
    """Records the run as benches/results/voxel_peers.json (scripts/figures.py
    record), then regenerates simd-notes.md's figures, whose voxel peers block
    sits between `<!-- voxel-peers:begin -->` and `<!-- voxel-peers:end -->`."""
    figures = os.path.join(ROOT, "scripts", "figures.py")
    cmd = "scripts/voxel_peers.py " + " ".join(argv)
    r = subprocess.run([sys.executable, figures, "record", "voxel-peers", "-", "--command", cmd],
                       input=table, text=True)
    if r.returncode == 0:
        r = subprocess.run([sys.executable, figures])
    if r.returncode != 0:
        print("recording the table failed; simd-notes.md not updated", file=sys.stderr)


def main():
    rows = []
    failures = []
    ratios = []
    for name, res in CASES:
        path = os.path.join(MESHES, name)
        if not os.path.exists(path):
            print(f"skip {name}: not present", file=sys.stderr)
            continue
        j, wset = widephase(path, res)
        lo = np.array(j["origin"], dtype=np.float64)
        h = j["voxel_size"]
        oracle = ExactOracle(path, lo, h)
        wp_row = len(rows)
        rows.append(None)
        wp_wrong = set()
        tools = ((f"Open3D (best of {REPEATS} in one process)", open3d_run), ("trimesh voxelized", trimesh_run),
                 ("parry3d VoxelizedVolume (1 thread)", parry_run))
        for tool, fn in tools:
            if tool.startswith("trimesh") and res > TRIMESH_MAX_RES:
                continue
            try:
                ms, s = fn(path, res, lo, h)
            except Exception as e:  # report, keep going
                failures.append(f"{tool} failed on {name}: {e}")
                print(failures[-1], file=sys.stderr)
                continue
            # keep voxels inside our grid (Open3D also reports the ring of
            # voxels at index -1 whose face touches the mesh's bbox minimum)
            s = {v for v in s if all(0 <= c < res for c in v)}
            misses, extras = exact_errors(oracle, wset, s, wp_wrong)
            rows.append((name, res, tool, ms, len(s), misses, extras))
            if not tool.startswith("trimesh") and (misses + extras) > 1e-3 * len(wset):
                failures.append(f"{tool} on {name} {res}: {misses} misses, {extras} extras vs exact")
        # widephase's row: its exact misses and extras among every voxel
        # where a peer disagrees with it (each decided exactly above)
        wm = sum(1 for kind, _ in wp_wrong if kind == "miss")
        we = len(wp_wrong) - wm
        rows[wp_row] = (name, res, f"widephase (2 threads, best of {REPEATS} in one process)",
                        j["warm_ms"], len(wset), wm, we)
        rows.insert(wp_row + 1, (name, res, f"widephase cold (first call of a fresh process, best of {PROCESSES})",
                                 j["cold_ms"], len(wset), wm, we))
        o3d = [r for r in rows[wp_row:] if r and r[2].startswith("Open3D")]
        if o3d:
            try:
                cold = open3d_cold(path, res, lo, h)
                at = rows.index(o3d[0]) + 1
                rows.insert(at, (name, res, f"Open3D cold (first call of a fresh process, best of {PROCESSES})",
                                 cold, o3d[0][4], o3d[0][5], o3d[0][6]))
                cold_ratio = f"{cold / j['cold_ms']:.0f}×"
            except Exception as e:  # report, keep going
                failures.append(f"Open3D cold run failed on {name}: {e}")
                cold_ratio = "n/a"
            ratios.append(f"{name} {res}: Open3D / widephase = {o3d[0][3] / j['warm_ms']:.0f}× warm "
                          f"(best of {REPEATS} in one process each), {cold_ratio} cold (first calls of "
                          f"fresh processes)")
        if wm:
            failures.append(f"widephase has {wm} exact misses on {name} {res}")
        for r in rows[wp_row:]:
            print(r, file=sys.stderr, flush=True)
    lines = ["| mesh | RES | tool | ms | voxels | misses vs exact | extras vs exact |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]} | {r[6]} |")
    table = "\n".join(lines)
    if ratios:
        table += "\n\n" + "\n".join(f"- {r}" for r in ratios)
    print(table)
    if write_notes:
        write_table_to_notes(table, sys.argv[1:])
    for f in failures:
        print(f"CHECK FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
