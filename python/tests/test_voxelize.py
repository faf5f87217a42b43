"""widephase.voxelize against the command line, trimesh inputs, and every
kind of bad input."""

import gc
import json
import os
import sys
import threading
import time

import numpy as np
import pytest

import widephase
from conftest import read_npy, run_cli, shared_mesh


@pytest.mark.parametrize("name", ["torus", "knot", "cube"])
@pytest.mark.parametrize("mode", ["surface", "thin", "solid"])
def test_builtin_matches_cli(cli, tmp_path, name, mode):
    out = tmp_path / "v.npy"
    r = run_cli(cli, "voxelize", f"builtin:{name}", "--res", 48, "--pad", 1, "--mode", mode, "--out", out)
    assert r.returncode == 0, r.stderr
    grid = widephase.voxelize(widephase.builtin_mesh(name), resolution=48, pad=1, mode=mode)
    expected = read_npy(out)
    assert expected.dtype == np.int32
    np.testing.assert_array_equal(grid.indices(), expected)
    assert grid.count == len(expected) > 0


@pytest.mark.parametrize("ext", ["binvox", "vox", "npy"])
def test_save_is_byte_identical_to_cli(cli, tmp_path, ext):
    a, b = tmp_path / f"cli.{ext}", tmp_path / f"py.{ext}"
    r = run_cli(cli, "voxelize", "builtin:torus", "--res", 40, "--out", a)
    assert r.returncode == 0, r.stderr
    widephase.voxelize(widephase.builtin_mesh("torus"), resolution=40).save(b)
    assert a.read_bytes() == b.read_bytes()


def test_triangle_lists_match_cli(cli, tmp_path):
    out = tmp_path / "t.npy"
    r = run_cli(cli, "voxelize", "builtin:knot", "--res", 32, "--triangles", out)
    assert r.returncode == 0, r.stderr
    grid = widephase.voxelize(widephase.builtin_mesh("knot"), resolution=32)
    np.testing.assert_array_equal(grid.triangle_lists(), read_npy(out))


@pytest.mark.parametrize("mesh,res", [("bunny.obj", 256), ("dragon.obj", 200)])
def test_shared_mesh_matches_cli(cli, tmp_path, mesh, res):
    path = shared_mesh(mesh)
    out = tmp_path / "v.npy"
    r = run_cli(cli, "voxelize", path, "--res", res, "--out", out)
    assert r.returncode == 0, r.stderr
    grid = widephase.voxelize(widephase.load_mesh(path), resolution=res)
    np.testing.assert_array_equal(grid.indices(), read_npy(out))


def test_grid_forms_and_storage_agree():
    m = widephase.builtin_mesh("torus")
    fit = widephase.voxelize(m, resolution=40, pad=2)
    again = widephase.voxelize(m, voxel_size=fit.voxel_size, origin=fit.origin, dims=fit.dims)
    np.testing.assert_array_equal(fit.indices(), again.indices())
    sparse = widephase.voxelize(m, resolution=40, pad=2, storage="sparse")
    assert sparse.storage == "sparse" and fit.storage == "dense"
    np.testing.assert_array_equal(fit.indices(), sparse.indices())
    for t in (1, 2, 3):
        np.testing.assert_array_equal(
            fit.indices(), widephase.voxelize(m, resolution=40, pad=2, threads=t).indices()
        )


def test_dense_points_contains_and_metadata():
    g = widephase.voxelize(widephase.builtin_mesh("torus"), resolution=30, pad=1)
    d = g.dense()
    ijk = g.indices()
    assert d.shape == g.dims and d.dtype == bool and d.sum() == g.count == len(g)
    assert d[tuple(ijk.T)].all()
    assert (1, 1, 1) not in g and tuple(int(x) for x in ijk[0]) in g
    assert (-1, 0, 0) not in g and (10**9, 0, 0) not in g
    pts = g.points()
    np.testing.assert_allclose(pts, g.origin + (ijk + 0.5) * g.voxel_size, rtol=1e-6)
    assert g.mode == "surface" and "VoxelGrid(" in repr(g)


def test_sparse_dense_array():
    g = widephase.voxelize(widephase.builtin_mesh("cube"), resolution=20, storage="sparse")
    assert g.dense().sum() == g.count


def test_dense_into_a_kept_array():
    torus = widephase.builtin_mesh("torus")
    g = widephase.voxelize(torus, resolution=30, pad=1)
    want = g.dense()
    out = np.ones(g.dims, np.bool_)  # stale marks: dense(out=) clears them
    assert g.dense(out=out) is out
    np.testing.assert_array_equal(out, want)
    sparse = widephase.voxelize(torus, resolution=30, pad=1, storage="sparse")
    np.testing.assert_array_equal(sparse.dense(out=out), want)
    index = widephase.mesh_index(torus)
    tile = widephase.voxelize_tile(index, ((3, 4, 5), (20, 31, 17)), grid=widephase.fit_grid(torus, resolution=30, pad=1))
    t_out = np.ones((17, 27, 12), np.bool_)
    np.testing.assert_array_equal(tile.dense(out=t_out), want[3:20, 4:31, 5:17])
    with pytest.raises(ValueError, match=r"out: expected a bool array of shape \(17, 27, 12\)"):
        tile.dense(out=np.zeros((17, 27, 13), np.bool_))
    with pytest.raises(ValueError, match="not C-contiguous"):
        g.dense(out=np.zeros(g.dims[::-1], np.bool_).T)
    readonly = np.zeros(g.dims, np.bool_)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="not writeable"):
        g.dense(out=readonly)
    with pytest.raises(TypeError, match=r"out: expected a bool array of shape .* got dtype uint8"):
        g.dense(out=np.zeros(g.dims, np.uint8))
    with pytest.raises(TypeError, match=r"out: expected a bool array .* got <class 'list'>"):
        g.dense(out=[])


def test_grid_from_indices_of_any_integer_dtype():
    """`VoxelGrid.from_indices` is called directly (no Python layer): it takes
    the index rows the other calls take, with their messages."""
    ijk = np.array([[3, 0, 1], [0, 2, 0], [3, 0, 1]])
    want = np.array([[0, 2, 0], [3, 0, 1]], np.int32)  # (k, j, i) order, once each
    for rows in (ijk, ijk.astype(np.uint8), ijk.astype(np.uint64), ijk.tolist(), ijk[:, ::-1][:, ::-1]):
        g = widephase.VoxelGrid.from_indices((0, 0, 0), 0.5, (4, 4, 4), rows, "thin")
        assert g.count == 2 and np.array_equal(g.indices(), want)
    assert widephase.VoxelGrid.from_indices((0, 0, 0), 0.5, (4, 4, 4), np.zeros((0, 3), np.int64), "thin").count == 0
    grid = ((0, 0, 0), 0.5, (4, 4, 4))
    for rows, exc, message in [
        (np.array([[0, 0, 0], [1, -2, 0]]), ValueError, "indices: row 1 has a negative index -2"),
        (np.array([[2**40, 0, 0]]), ValueError, r"indices: row 0 has index 1099511627776, outside"),
        (np.array([[2**64 - 1, 0, 0]], np.uint64), ValueError, "outside 0..=2147483647"),
        (np.array([[4, 0, 0]]), ValueError, r"row 0 \(4, 0, 0\) is outside the grid"),
        (np.zeros((2, 4), np.int32), ValueError, r"indices: expected an \(N, 3\) array, got shape \(2, 4\)"),
        (np.array([[1.5, 0, 0]]), TypeError, "indices: expected integer indices, got dtype float64"),
        (np.ones((1, 3), bool), TypeError, "expected integer indices, got dtype bool"),
    ]:
        with pytest.raises(exc, match=message):
            widephase.VoxelGrid.from_indices(*grid, rows, "thin")


def test_native_calls_refuse_fortran_order():
    # the wrappers copy to C order; the native layer reads rows in place, and
    # a Fortran-ordered (N, 3) array's bytes are its columns
    from widephase import _native

    m = widephase.builtin_mesh("torus")
    with pytest.raises(ValueError, match="vertices: array is not C-contiguous"):
        _native.voxelize(np.asfortranarray(m.vertices), m.faces, resolution=20)
    with pytest.raises(ValueError, match="faces: array is not C-contiguous"):
        _native.voxelize(m.vertices, np.asfortranarray(m.faces), resolution=20)
    f = widephase.voxelize(np.asfortranarray(m.vertices), np.asfortranarray(m.faces), resolution=20)
    np.testing.assert_array_equal(f.indices(), widephase.voxelize(m, resolution=20).indices())


def test_trimesh_and_open3d_style_inputs():
    trimesh = pytest.importorskip("trimesh")
    tm = trimesh.creation.icosphere(subdivisions=3)
    a = widephase.voxelize(tm, resolution=32)
    b = widephase.voxelize(np.asarray(tm.vertices), np.asarray(tm.faces), resolution=32)
    np.testing.assert_array_equal(a.indices(), b.indices())

    class O3dLike:  # Open3D's legacy TriangleMesh exposes .vertices and .triangles
        vertices = np.asarray(tm.vertices)
        triangles = np.asarray(tm.faces)

    np.testing.assert_array_equal(widephase.voxelize(O3dLike(), resolution=32).indices(), a.indices())
    np.testing.assert_array_equal(
        widephase.voxelize((tm.vertices, tm.faces), resolution=32).indices(), a.indices()
    )


def test_dtypes_are_converted_once_and_agree():
    m = widephase.builtin_mesh("knot")
    ref = widephase.voxelize(m, resolution=24).indices()
    for vt in (np.float64, np.float32):
        for ft in (np.int64, np.uint32, np.int32, np.uint16):
            if ft == np.uint16 and m.faces.max() > 65535:
                continue
            got = widephase.voxelize(m.vertices.astype(vt), m.faces.astype(ft), resolution=24)
            np.testing.assert_array_equal(got.indices(), ref)
    # non-contiguous views are accepted (copied once)
    v2 = np.repeat(m.vertices, 2, axis=1)[:, ::2]
    assert not v2.flags.c_contiguous
    np.testing.assert_array_equal(widephase.voxelize(v2, m.faces, resolution=24).indices(), ref)


def tri():
    return np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), np.array([[0, 1, 2]], np.int32)


BAD_CALLS = [
    # (kwargs or args, exception, message fragment)
    (lambda v, f: widephase.voxelize(v[:, :2], f, resolution=8), ValueError, "expected an (N, 3) array"),
    (lambda v, f: widephase.voxelize(v, f[:, :2], resolution=8), ValueError, "expected an (N, 3) array"),
    (lambda v, f: widephase.voxelize(v.astype(complex), f, resolution=8), TypeError, "real numbers"),
    (lambda v, f: widephase.voxelize(v, f.astype(np.float32), resolution=8), TypeError, "integer indices"),
    (lambda v, f: widephase.voxelize(v.astype(object), f, resolution=8), TypeError, "real numbers"),
    (lambda v, f: widephase.voxelize(np.where(v == 1, np.nan, v), f, resolution=8), ValueError, "non-finite"),
    (lambda v, f: widephase.voxelize(v.astype(np.float64) * 1e39, f, resolution=8), ValueError, "non-finite"),
    (lambda v, f: widephase.voxelize(v, f + 1, resolution=8), ValueError, "references vertex 3"),
    (lambda v, f: widephase.voxelize(v, f - 1, resolution=8), ValueError, "negative index"),
    (lambda v, f: widephase.voxelize(v, f.astype(np.int64) + 2**40, resolution=8), ValueError, "outside"),
    (lambda v, f: widephase.voxelize(v, f[:0], resolution=8), ValueError, "no triangles"),
    (lambda v, f: widephase.voxelize(v, f, resolution=0), ValueError, "resolution=0 is out of range"),
    (lambda v, f: widephase.voxelize(v, f, resolution=-5), ValueError, "resolution=-5 is out of range"),
    (lambda v, f: widephase.voxelize(v, f, resolution=10**12), ValueError, "out of range"),
    (lambda v, f: widephase.voxelize(v, f), ValueError, "give resolution=N"),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, voxel_size=0.1), ValueError, "conflicting"),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, pad=-1), ValueError, "pad=-1"),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=0.1, origin=(0, 0, 0), pad=1), ValueError, "pad="),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=0.0), ValueError, "grid"),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=float("nan")), ValueError, "grid"),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=0.1, origin=(0, 0)), ValueError, "origin"),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=0.1, origin=(0, 0, 0), dims=(0, 1, 1)), ValueError, "dims="),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, mode="hollow"), ValueError, "mode="),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, storage="tape"), ValueError, "storage="),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, threads=-1), ValueError, "threads=-1"),
    (lambda v, f: widephase.voxelize(v, f, resolution=8, threads=10**6), ValueError, "out of range"),
    (lambda v, f: widephase.voxelize(v, f, voxel_size=1e-9, origin=(0, 0, 0), dims=(65535, 65535, 65535), storage="dense"), MemoryError, "dense"),
    (lambda v, f: widephase.voxelize(widephase.builtin_mesh("cube"), resolution=4096, mode="solid"), MemoryError, "dense"),
    (lambda v, f: widephase.voxelize("not a mesh", resolution=8), TypeError, "give vertices and faces"),
    (lambda v, f: widephase.voxelize(v, f, resolution=8).save("x.unknown"), ValueError, "unknown output format"),
    (lambda v, f: widephase.voxelize(v, f, resolution=8).save("/nonexistent-dir/x.npy"), OSError, "nonexistent-dir"),
    (lambda v, f: widephase.load_mesh("/nonexistent-dir/x.obj"), OSError, "x.obj"),
    (lambda v, f: widephase.builtin_mesh("teapot"), ValueError, "unknown builtin mesh"),
]


@pytest.mark.parametrize("call,exc,fragment", BAD_CALLS)
def test_bad_input_raises_clear_error(call, exc, fragment):
    v, f = tri()
    with pytest.raises(exc) as info:
        call(v, f)
    assert fragment in str(info.value)


def test_big_jobs_are_refused_before_any_work():
    """The command line's memory estimate runs before the work: a sparse
    surface of a thousand grid-spanning triangles at 65536³ needs terabytes
    (it ran for minutes and grew without limit when only the CLI checked)."""
    rng = np.random.default_rng(3)
    v = rng.uniform(-1, 1, (3000, 3)).astype(np.float32)
    f = np.arange(3000, dtype=np.int32).reshape(1000, 3)
    t = time.perf_counter()
    with pytest.raises(MemoryError) as info:
        widephase.voxelize(v, f, resolution=65536)
    assert time.perf_counter() - t < 5.0
    msg = str(info.value)
    assert "needs about" in msg and "GiB" in msg and "the available memory" in msg, msg
    assert "lower the resolution" in msg and "raise max_memory" in msg, msg
    # an explicit limit, with the advice of each storage and mode
    torus = widephase.builtin_mesh("torus")
    with pytest.raises(MemoryError) as info:
        widephase.voxelize(torus, resolution=256, max_memory=1 << 20)
    assert "more than max_memory 1 MiB" in str(info.value) and 'storage="sparse"' in str(info.value)
    with pytest.raises(MemoryError) as info:
        widephase.voxelize(torus, resolution=256, mode="solid", max_memory=1 << 20)
    assert 'mode="surface"' in str(info.value)
    with pytest.raises(ValueError, match="max_memory must be a positive number of bytes"):
        widephase.voxelize(torus, resolution=8, max_memory=0)
    # a limit the job fits changes nothing
    a = widephase.voxelize(torus, resolution=64, max_memory=1 << 34)
    b = widephase.voxelize(torus, resolution=64)
    assert np.array_equal(a.indices(), b.indices())


def test_arrays_of_huge_sparse_grids_are_sized_by_their_voxels():
    """`indices()` and `points()` of a 65536³ grid bound their arrays by the
    grid's size (terabytes), then by the voxel count, which fits."""
    ijk = np.array([[0, 0, 0], [65535, 1, 2], [7, 65535, 65535]], np.int32)
    g = widephase.VoxelGrid.from_indices((0, 0, 0), 1.0, (65536, 65536, 65536), ijk, "surface")
    assert g.storage == "sparse"
    assert np.array_equal(g.indices(), ijk[np.lexsort((ijk[:, 0], ijk[:, 1], ijk[:, 2]))])  # (k, j, i) order
    assert g.points().shape == (3, 3)
    with pytest.raises(MemoryError, match="dense limit"):
        g.dense()


def _oriented_triangles(tris):
    """Triangles (T, 3, 3) rotated to start at their smallest corner (the
    winding kept), sorted: comparable whatever the order of the file."""
    tris = np.asarray(tris, dtype=np.float64)
    first = np.array([min(range(3), key=lambda k: tuple(t[k])) for t in tris])
    rolled = np.stack([np.roll(t, -k, axis=0) for t, k in zip(tris, first)]).reshape(len(tris), 9)
    return rolled[np.lexsort(np.round(rolled, 4).T[::-1])]


@pytest.mark.parametrize("file_type", ["glb", "gltf"])
def test_gltf_scene_written_by_trimesh_loads_in_world_space(tmp_path, file_type):
    """An independent writer: trimesh exports a scene with a rotated box, a
    mirrored sphere and a translated second box instance; load_mesh gives
    its world-space triangles (trimesh's own dump) with their winding (the
    mirrored instance keeps a positive volume)."""
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=[1.0, 2.0, 3.0])
    ico = trimesh.creation.icosphere(subdivisions=2)
    scene = trimesh.Scene()
    scene.add_geometry(box, node_name="a", transform=trimesh.transformations.rotation_matrix(0.7, [1, 2, 3], [0.5, 0, 0]))
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])
    mirror[:3, 3] = [5.0, 0.0, 0.0]
    scene.add_geometry(ico, node_name="b", transform=mirror)
    scene.add_geometry(box, node_name="c", transform=trimesh.transformations.translation_matrix([0, 0, 9]))
    exported = scene.export(file_type=file_type)
    if isinstance(exported, dict):  # .gltf: the JSON and its buffer files
        for name, data in exported.items():
            (tmp_path / name).write_bytes(data)
        path = tmp_path / "model.gltf"
    else:
        path = tmp_path / "scene.glb"
        path.write_bytes(exported)
    v, f = widephase.load_mesh(path)
    want = scene.to_geometry() if hasattr(scene, "to_geometry") else scene.dump(concatenate=True)
    assert len(f) == len(want.faces) == 12 + 320 + 12
    ours, theirs = _oriented_triangles(v[f]), _oriented_triangles(want.vertices[want.faces])
    np.testing.assert_allclose(ours, theirs, atol=2e-5)
    a, b, c = (v[f][:, k].astype(np.float64) for k in range(3))
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0
    assert volume == pytest.approx(2 * 6.0 + ico.volume, rel=1e-5)


def _weld_reference(v, tol):
    """The documented rule by brute force: each vertex joins the earliest
    kept vertex within tol (f64 distance), else it is kept."""
    kept, remap = [], []
    for p in v.astype(np.float64):
        d = [np.linalg.norm(p - v[k].astype(np.float64)) for k in kept]
        hit = next((j for j, dj in enumerate(d) if dj <= tol), None)
        if hit is None:
            kept.append(len(remap))
            hit = len(kept) - 1
        remap.append(hit)
    return v[kept], np.asarray(remap, dtype=np.int32)


def test_load_mesh_weld_matches_the_rule_and_the_cli(cli, tmp_path):
    """A cube whose triangles each carry their own corners, jittered by up to
    3e-6: weld=1e-5 joins them into the 8 corners, weld=0 keeps the jittered
    copies apart, and the CLI's --weld removes the same number of vertices."""
    rng = np.random.default_rng(7)
    v, f = widephase.builtin_mesh("cube")
    soup = v[f.reshape(-1)] + rng.uniform(-3e-6, 3e-6, (f.size, 3)).astype(np.float32)
    soup[::5] = v[f.reshape(-1)][::5]  # some corners exact, so weld=0 merges them
    p = tmp_path / "soup.obj"
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in soup.tolist()]
    lines += [f"f {3 * i + 1} {3 * i + 2} {3 * i + 3}" for i in range(len(f))]
    p.write_text("\n".join(lines) + "\n")
    raw_v, raw_f = widephase.load_mesh(p)
    assert len(raw_v) == f.size
    for tol in [0.0, 1e-5]:
        wv, wf = widephase.load_mesh(p, weld=tol)
        ref_v, remap = _weld_reference(raw_v, tol)
        np.testing.assert_array_equal(wv, ref_v)
        np.testing.assert_array_equal(wf, remap[raw_f])
        r = run_cli(cli, "voxelize", p, "--res", 16, "--weld", tol, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["welded_vertices"] == len(raw_v) - len(wv)
    assert len(widephase.load_mesh(p, weld=1e-5).vertices) == 8
    assert 8 < len(widephase.load_mesh(p, weld=0).vertices) < f.size
    for bad in [-1e-3, float("nan"), float("inf"), 1e300]:
        with pytest.raises(ValueError, match="weld"):
            widephase.load_mesh(p, weld=bad)


def test_malformed_mesh_file_names_the_line(tmp_path):
    p = tmp_path / "bad.obj"
    p.write_text("v 0 0 0\nv 1 0 0\nv 0 1 x\nf 1 2 3\n")
    with pytest.raises(ValueError) as info:
        widephase.load_mesh(p)
    assert "bad.obj:3" in str(info.value)


def test_no_input_reaches_a_panic():
    """Random garbage in every argument: only ordinary exceptions (a Rust
    panic would surface as pyo3's PanicException, a BaseException that
    `except Exception` does not catch, failing the test)."""
    rng = np.random.default_rng(7)
    specials = np.array([0, -0.0, 1e-45, 3e38, -3e38, np.inf, -np.inf, np.nan], np.float32)
    for _ in range(300):
        nv = int(rng.integers(0, 6))
        v = rng.choice(specials, size=(nv, 3)) if rng.random() < 0.5 else rng.normal(size=(nv, 3))
        f = rng.integers(-2, 7, size=(int(rng.integers(0, 4)), 3))
        kw = rng.choice(
            [
                dict(resolution=int(rng.integers(-3, 70000))),
                dict(voxel_size=float(rng.choice(specials))),
                dict(voxel_size=float(abs(rng.normal())) + 1e-3, origin=tuple(rng.choice(specials, 3)),
                     dims=tuple(int(x) for x in rng.integers(-1, 5, 3))),
            ]
        )
        mode = str(rng.choice(["surface", "thin", "solid"]))
        try:
            g = widephase.voxelize(v, f, mode=mode, **kw)
            g.indices()
        except (ValueError, TypeError, MemoryError, OverflowError):
            pass


def test_gil_is_released_during_voxelize():
    m = widephase.builtin_mesh("knot")
    span = {}

    def work():
        span["start"] = time.perf_counter()
        for _ in range(3):
            widephase.voxelize(m, resolution=768, threads=1)
        span["end"] = time.perf_counter()

    stamps = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    inside = sum(span["start"] < s < span["end"] for s in stamps)
    # Python code kept running in this thread while the voxelizer ran in the
    # other: with the GIL held, the loop would stall for the whole call.
    assert span["end"] - span["start"] > 0.02
    assert inside > 1000, f"only {inside} loop iterations ran during {span['end'] - span['start']:.3f} s"


def test_each_python_thread_gets_its_own_pool():
    """A pool runs one call at a time: Python threads that shared the
    `threads=1` pool were serialized on it. Each thread now keeps its own
    pools (the same one for its later calls); the global pool is shared."""
    from widephase import _native

    keys = {}
    both_alive = threading.Barrier(2)  # a thread's pools end with it: keep both alive

    def grab(name):
        keys[name] = (_native._pool_key(1), _native._pool_key(1), _native._pool_key(2), _native._pool_key(None))
        both_alive.wait()

    threads = [threading.Thread(target=grab, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a1, a1_again, a2, a0), (b1, _, b2, b0) = keys["a"], keys["b"]
    assert a1 == a1_again != 0 and a1 != a2
    assert a1 != b1 and a2 != b2, "each thread has its own pools"
    assert a0 == b0 == 0
    # and the work itself runs concurrently, with the same answers
    m = widephase.builtin_mesh("knot")
    want = widephase.voxelize(m, resolution=96, threads=1).indices()
    got = {}

    def work(name):
        got[name] = widephase.voxelize(m, resolution=96, threads=1).indices()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(g, want) for g in got.values()) and len(got) == 4


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="SKIPPED: needs /proc")
def test_no_reference_or_memory_growth_over_1000_calls():
    m = widephase.builtin_mesh("torus")
    v, f = m
    for _ in range(50):
        widephase.voxelize(v, f, resolution=32).indices()
    gc.collect()
    refs = (sys.getrefcount(v), sys.getrefcount(f))
    rss = _rss_bytes()
    for _ in range(1000):
        g = widephase.voxelize(v, f, resolution=32)
        g.indices()
        g.dense()
        del g
    gc.collect()
    assert (sys.getrefcount(v), sys.getrefcount(f)) == refs
    grown = _rss_bytes() - rss
    assert grown < 16 << 20, f"RSS grew by {grown / 2**20:.1f} MiB over 1000 calls"
