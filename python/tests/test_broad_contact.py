"""pairs / bipartite_pairs against brute force and the command line;
contacts against analytic answers."""

import numpy as np
import pytest

import widephase
from conftest import read_npy, run_cli


def brute_pairs(a, b=None):
    bb = a if b is None else b
    lo_ok = (a[:, None, :3] <= bb[None, :, 3:]).all(-1)
    hi_ok = (bb[None, :, :3] <= a[:, None, 3:]).all(-1)
    valid_a = (a[:, :3] <= a[:, 3:]).all(-1) & np.isfinite(a).all(-1)
    valid_b = (bb[:, :3] <= bb[:, 3:]).all(-1) & np.isfinite(bb).all(-1)
    m = lo_ok & hi_ok & valid_a[:, None] & valid_b[None, :]
    if b is None:
        m = np.triu(m, 1)
    return np.argwhere(m).astype(np.uint32)


def random_boxes(rng, n, grid=8):
    # integer corners: plenty of exactly touching faces, edges and corners
    lo = rng.integers(0, grid, size=(n, 3)).astype(np.float32)
    return np.concatenate([lo, lo + rng.integers(0, 3, size=(n, 3))], 1).astype(np.float32)


def test_pairs_match_brute_force_and_threads():
    rng = np.random.default_rng(1)
    b = random_boxes(rng, 600)
    b[5] = [1, 1, 1, 0, 0, 0]  # inverted: never pairs
    b[6, 4] = np.inf  # infinite extent: never pairs
    expected = brute_pairs(b)
    for threads in (None, 1, 2):
        got = widephase.pairs(b, threads=threads)
        assert got.dtype == np.uint32 and got.shape[1] == 2
        np.testing.assert_array_equal(got, expected)
    a, c = b[:250], b[250:]
    np.testing.assert_array_equal(widephase.bipartite_pairs(a, c), brute_pairs(a, c))
    assert widephase.pairs(np.zeros((0, 6))).shape == (0, 2)


def test_pairs_same_as_cli(cli, tmp_path):
    rng = np.random.default_rng(2)
    b = (rng.random((5000, 6)) * [100, 100, 100, 2, 2, 2]).astype(np.float32)
    b[:, 3:] += b[:, :3]
    src, out = tmp_path / "b.npy", tmp_path / "p.npy"
    np.save(src, b)
    r = run_cli(cli, "pairs", src, "--out", out)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(widephase.pairs(b), read_npy(out))


def test_pairs_errors():
    with pytest.raises(ValueError, match=r"boxes: row 1 contains NaN"):
        widephase.pairs([[0, 0, 0, 1, 1, 1], [0, 0, np.nan, 1, 1, 1]])
    with pytest.raises(ValueError, match=r"expected an \(N, 6\) array"):
        widephase.pairs(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="out of range"):
        widephase.pairs(np.zeros((3, 6)), threads=100000)


def test_contacts_analytic():
    spheres = [[0, 0, 0, 1], [1.5, 0, 0, 1], [10, 0, 0, 1]]
    capsules = [[0, 3, 0, 0, 5, 0, 0.5]]  # from y=3 to y=5
    boxes = widephase.box_rows([[0, -1.4, 0]], [[0, 0, 0, 1]], [[1, 0.5, 1]])  # top face y = -0.9
    c = widephase.contacts(
        [[0, 1], [0, 2], [0, 3], [0, 4]], spheres=spheres, capsules=capsules, boxes=boxes, margin=0.05
    )
    assert c.point_count.tolist() == [1, 0, 0, 1]
    assert c.depth[0, 0] == pytest.approx(0.5) and c.normal[0].tolist() == [1, 0, 0]
    # sphere (index 0) against the box (index 4): depth 0.1 along -y
    assert c.depth[3, 0] == pytest.approx(0.1, abs=1e-6)
    np.testing.assert_allclose(c.normal[3], [0, -1, 0], atol=1e-6)
    np.testing.assert_allclose(c.position[3, 0], [0, -0.9, 0], atol=1e-6)
    # speculative: the capsule (index 3) is 2 from the sphere: no contact at margin 0.05,
    # one within a margin of 2.5 with negative depth
    far = widephase.contacts([[0, 3]], spheres=spheres, capsules=capsules, margin=2.5)
    assert far.point_count[0] == 1 and far.depth[0, 0] == pytest.approx(-1.5)


def test_contacts_box_stack_and_threads():
    rng = np.random.default_rng(4)
    n = 500
    centers = rng.random((n, 3)) * 10
    q = rng.normal(size=(n, 4))
    boxes = widephase.box_rows(centers, q, rng.random((n, 3)) * 0.8 + 0.2)
    b = np.concatenate([boxes[:, :3] - 2, boxes[:, :3] + 2], 1)
    pr = widephase.pairs(b).astype(np.int64)
    a = widephase.contacts(pr, boxes=boxes, margin=0.01, threads=1)
    c = widephase.contacts(pr, boxes=boxes, margin=0.01, threads=2)
    for x, y in zip(a, c):
        np.testing.assert_array_equal(x, y)
    assert (a.point_count > 0).sum() > 50
    n_ok = np.abs(np.linalg.norm(a.normal[a.point_count > 0], axis=1) - 1) < 1e-5
    assert n_ok.all()


def test_contacts_errors():
    with pytest.raises(ValueError, match="references collider 5, but there are only 2"):
        widephase.contacts([[0, 5]], spheres=[[0, 0, 0, 1], [1, 0, 0, 1]])
    with pytest.raises(ValueError, match="negative index"):
        widephase.contacts([[0, -1]], spheres=[[0, 0, 0, 1], [1, 0, 0, 1]])
    with pytest.raises(ValueError, match="margin"):
        widephase.contacts([[0, 1]], spheres=[[0, 0, 0, 1], [1, 0, 0, 1]], margin=-1)
    with pytest.raises(ValueError, match=r"boxes: expected an \(N, 15\) array"):
        widephase.contacts([[0, 1]], boxes=np.zeros((2, 10)))
    with pytest.raises(ValueError, match="quaternion"):
        widephase.box_rows([[0, 0, 0]], [[0, 0, 0, 0]], [[1, 1, 1]])
    # box_rows reads its arrays as the other entry points do: an (N, 6) array
    # of centres is not 2N boxes, and only real numbers are numbers
    one_q, one_h = [[0, 0, 0, 1]] * 4, [[1, 1, 1]] * 4
    with pytest.raises(ValueError, match=r"box_rows: centers: expected an \(N, 3\) array"):
        widephase.box_rows(np.zeros((2, 6)), one_q, one_h)
    with pytest.raises(ValueError, match=r"box_rows: quaternions: expected an \(N, 4\) array"):
        widephase.box_rows(np.zeros((1, 3)), np.zeros(8), [[1, 1, 1]])
    for bad in (np.zeros((1, 3), np.complex64), np.zeros((1, 3), bool), np.array([["0", "0", "0"]])):
        with pytest.raises(TypeError, match="box_rows: centers: expected real numbers"):
            widephase.box_rows(bad, [[0, 0, 0, 1]], [[1, 1, 1]])
    with pytest.raises(ValueError, match="1 centres, 2 quaternions, 1 half extents"):
        widephase.box_rows([[0, 0, 0]], [[0, 0, 0, 1]] * 2, [[1, 1, 1]])
    # NaN shapes follow the library's rule: no contact, no error
    c = widephase.contacts([[0, 1]], spheres=[[0, 0, 0, np.nan], [1, 0, 0, 1]])
    assert c.point_count[0] == 0
