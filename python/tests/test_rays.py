"""RayScene against the command line's hits and a brute-force reference."""

import numpy as np
import pytest

import widephase
from conftest import read_npy, run_cli, shared_mesh


def brute_force(v, f, o, d):
    """Closest hit by testing every triangle (float64 Möller–Trumbore; only
    used away from edges, where it agrees with the watertight test)."""
    a, b, c = (v[f[:, i]].astype(np.float64) for i in range(3))
    t_best = np.full(len(o), np.inf)
    id_best = np.full(len(o), -1)
    e1, e2 = b - a, c - a
    for r in range(len(o)):
        p = np.cross(d[r], e2)
        det = np.einsum("ij,ij->i", e1, p)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            s = o[r] - a
            u = np.einsum("ij,ij->i", s, p) * inv
            q = np.cross(s, e1)
            w = (q @ d[r]) * inv
            t = np.einsum("ij,ij->i", e2, q) * inv
        ok = (det != 0) & (u >= 0) & (w >= 0) & (u + w <= 1) & (t >= 0)
        if ok.any():
            k = np.flatnonzero(ok)[np.argmin(t[ok])]
            t_best[r], id_best[r] = t[k], k
    return t_best, id_best


def test_cast_matches_brute_force():
    m = widephase.builtin_mesh("torus")
    rng = np.random.default_rng(3)
    o = rng.normal(size=(400, 3)).astype(np.float32) * 3
    d = (rng.normal(size=(400, 3)) * 0.3 - o).astype(np.float32)
    scene = widephase.RayScene(m)
    t, tri = scene.cast(o, d)
    tb, ib = brute_force(m.vertices, m.faces, o.astype(np.float64), d.astype(np.float64))
    assert (tri >= 0).sum() > 100 and (tri < 0).sum() > 10
    np.testing.assert_array_equal(tri, ib)
    np.testing.assert_allclose(t[tri >= 0], tb[tri >= 0], rtol=1e-5)
    assert np.isinf(t[tri < 0]).all()
    assert (scene.occluded(o, d) == (tri >= 0)).all()
    assert scene.count_hits(o, d) == (tri >= 0).sum()


def test_t_range_and_rays_layout():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    scene = widephase.RayScene(v, [[0, 1, 2]])
    o, d = [[0.25, 0.25, 2.0]], [[0, 0, -1]]
    assert scene.cast(o, d)[0][0] == 2.0
    assert scene.cast(o, d, t_max=1.999)[1][0] == -1
    assert scene.cast(o, d, t_min=2.0)[1][0] == 0  # closed interval
    assert not scene.occluded(o, d, t_max=1.5)[0]
    t, tri, uv = scene.cast(np.array([[0.25, 0.25, 2.0, 0, 0, -1]]), return_uv=True)
    assert (t[0], tri[0]) == (2.0, 0) and np.allclose(uv[0], [0.25, 0.25])
    # NaN rays follow the library's rule: they never hit
    assert scene.cast([[np.nan, 0, 0]], [[0, 0, -1]])[1][0] == -1


def test_rows_read_in_place_equal_columns():
    """One (N, 6) array (read in place by the library) gives the columns'
    answers bit for bit: as float32 C rows, as float64, as a strided view,
    as an (H, W, 6) image; with and without uv; for every query."""
    m = widephase.builtin_mesh("knot")
    scene = widephase.RayScene(m)
    rng = np.random.default_rng(11)
    o = (rng.normal(size=(3000, 3)) * 3).astype(np.float32)
    d = (rng.normal(size=(3000, 3)) * 0.3 - o).astype(np.float32)
    o[7] = np.nan  # the NaN rule holds in rows too
    rows = np.concatenate([o, d], 1)
    t, tri, uv = scene.cast(o, d, t_min=0.25, t_max=50.0, return_uv=True)
    assert (tri >= 0).sum() > 500 and tri[7] == -1
    wide = np.zeros((3000, 9), np.float32)
    wide[:, 2:8] = rows
    for form in (rows, rows.astype(np.float64), wide[:, 2:8], rows.reshape(30, 100, 6)):
        for threads in (1, 2):
            got = scene.cast(form, t_min=0.25, t_max=50.0, return_uv=True, threads=threads)
            for a, b in zip(got, (t, tri, uv)):
                np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
        t2, tri2 = scene.cast(form, t_min=0.25, t_max=50.0)
        np.testing.assert_array_equal(tri2, tri)
        np.testing.assert_array_equal(t2, t)
        np.testing.assert_array_equal(scene.occluded(form, t_min=0.25, t_max=50.0), tri >= 0)
        assert scene.count_hits(form) == (scene.cast(o, d)[1] >= 0).sum()


def test_same_hits_as_cli(cli, tmp_path):
    rays, hits = tmp_path / "r.npy", tmp_path / "h.npy"
    r = run_cli(cli, "raycast", "builtin:knot", "--rays", 20000, "--seed", 5,
                "--dump-rays", rays, "--dump-hits", hits)
    assert r.returncode == 0, r.stderr
    rr = read_npy(rays)
    t, _ = widephase.RayScene(widephase.builtin_mesh("knot")).cast(rr[:, :3], rr[:, 3:])
    np.testing.assert_array_equal(t, read_npy(hits))


def test_shared_bunny_same_hits_as_cli(cli, tmp_path):
    path = shared_mesh("bunny.obj")
    rays, hits = tmp_path / "r.npy", tmp_path / "h.npy"
    r = run_cli(cli, "raycast", path, "--rays", 100000, "--dump-rays", rays, "--dump-hits", hits)
    assert r.returncode == 0, r.stderr
    rr = read_npy(rays)
    scene = widephase.RayScene(widephase.load_mesh(path))
    for threads in (1, 2):
        t, _ = scene.cast(rr[:, :3], rr[:, 3:], threads=threads)
        np.testing.assert_array_equal(t, read_npy(hits))


def test_pinhole_depth_image():
    cube = widephase.builtin_mesh("cube")  # the unit cube [0, 1]³
    rays = widephase.pinhole_rays(60, [0.5, 0.5, 0.5], [0.5, 0.5, 4.0], [0, 1, 0], 32, 24)
    assert rays.shape == (24, 32, 6) and rays.dtype == np.float32
    depth = widephase.RayScene(cube).depth_image(rays)
    assert depth.shape == (24, 32)
    # the centre pixels look down -z at the face z = 1, 3 units in front of
    # the eye: the distance along a unit ray is 3 / |dz|
    assert abs(depth[12, 16] * -rays[12, 16, 5] - 3.0) < 1e-5
    assert np.all(depth[10:14, 14:18] * -rays[10:14, 14:18, 5] - 3.0 < 1e-5)
    assert np.isinf(depth[0, 0])  # corners miss the cube at this field of view
    # an image of origins alone is an error, not half as many rays
    with pytest.raises(ValueError, match=r"rays: expected an \(N, 6\) array"):
        widephase.RayScene(cube).depth_image(rays[..., :3])


def test_pinhole_rays_follow_open3d():
    # values from Open3D 0.20's create_rays_pinhole with the same arguments
    rays = widephase.pinhole_rays(60, [0.5, 0.5, 0.5], [0.5, 0.5, 4.0], [0, 1, 0], 32, 24)
    bits = rays.view(np.uint32)
    assert bits[0, 0, 3:].tolist() == [0x3F0F2ED0, 0xBED47703, 0xBF800000]
    assert bits[23, 31, 3:].tolist() == [0xBF0F2ED0, 0x3ED47703, 0xBF800000]
    assert np.all(rays[..., :3] == np.float32([0.5, 0.5, 4.0]))
    o3d = pytest.importorskip("open3d")
    args = (35.5, [0.1, -0.2, 0.3], [-2.0, 0.5, -1.5], [0.3, 1.0, 0.2], 64, 48)
    ref = o3d.t.geometry.RaycastingScene.create_rays_pinhole(*args).numpy()
    assert np.abs(widephase.pinhole_rays(*args) - ref).max() < 1e-6


def test_pinhole_rays_refuse_bad_cameras():
    for args, fragment in [
        ((60, [0, 0, 0], [0, 0, 1], [0, 1, 0], 0, 4), "at least 1"),
        ((180, [0, 0, 0], [0, 0, 1], [0, 1, 0], 4, 4), "(0, 180)"),
        ((60, [0, 0, 0], [0, 0, 0], [0, 1, 0], 4, 4), "the eye must differ"),
        ((60, [0, 0, 0], [0, 0, 1], [0, 0, 2], 4, 4), "not parallel"),
        ((60, [0, 0], [0, 0, 1], [0, 1, 0], 4, 4), "center must have 3 components"),
    ]:
        with pytest.raises(ValueError) as info:
            widephase.pinhole_rays(*args)
        assert fragment in str(info.value)
    # a complex eye is not silently cut to its real part
    with pytest.raises(TypeError, match="eye: expected real numbers"):
        widephase.pinhole_rays(60, [0, 0, 0], np.array([0, 0, 1j]), [0, 1, 0], 4, 4)


@pytest.mark.parametrize(
    "args,exc,fragment",
    [
        (([[0, 0]], [[0, 0, 1]]), ValueError, "origins: expected an (N, 3) array"),
        (([[0, 0, 0]], [[0, 0, 1], [0, 0, 1]]), ValueError, "origins has 1 rows but directions has 2"),
        ((np.zeros((2, 5)),), ValueError, "expected an (N, 6) array"),
        (([["a", "b", "c"]], [[0, 0, 1]]), TypeError, "real numbers"),
    ],
)
def test_bad_rays(args, exc, fragment):
    scene = widephase.RayScene(widephase.builtin_mesh("cube"))
    with pytest.raises(exc) as info:
        scene.cast(*args)
    assert fragment in str(info.value)


def test_bad_scene_and_interval():
    with pytest.raises(ValueError, match="no triangles"):
        widephase.RayScene(np.zeros((3, 3), np.float32), np.zeros((0, 3), np.int32))
    scene = widephase.RayScene(widephase.builtin_mesh("cube"))
    with pytest.raises(ValueError, match="NaN"):
        scene.cast([[0, 0, 0]], [[0, 0, 1]], t_max=float("nan"))
