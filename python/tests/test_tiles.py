"""Tiles and the Dask-to-Zarr driver against the one-machine voxelizer."""

import os
import pathlib
import time

import numpy as np
import pytest

import widephase
from conftest import shared_mesh


def restrict(ijk, lo, hi):
    keep = np.all((ijk >= lo) & (ijk < hi), axis=1)
    return ijk[keep]


@pytest.mark.parametrize("name,res,size", [("torus", 61, (17, 23, 13)), ("knot", 50, (8, 50, 7))])
@pytest.mark.parametrize("mode", ["surface", "thin"])
def test_tiles_equal_the_whole_grid(name, res, size, mode):
    m = widephase.builtin_mesh(name)
    grid = widephase.fit_grid(m, resolution=res, pad=1)
    whole = widephase.voxelize(m, resolution=res, pad=1, mode=mode).indices()
    index = widephase.mesh_index(m)
    import widephase.dask as wd

    parts = []
    for lo, hi in wd.tiles(grid.dims, size):
        t = widephase.voxelize_tile(index, (lo, hi), grid=grid, mode=mode)
        np.testing.assert_array_equal(t.indices(), restrict(whole, lo, hi))
        assert t.dense().sum() == t.count
        parts.append(t.indices())
    union = np.concatenate(parts)
    union = union[np.lexsort((union[:, 0], union[:, 1], union[:, 2]))]
    np.testing.assert_array_equal(union, whole)


def test_dragon_sub4_tiles(tmp_path):
    path = shared_mesh("dragon_sub4.obj")
    m = widephase.load_mesh(path)
    grid = widephase.fit_grid(m, resolution=256)
    whole = widephase.voxelize(m, resolution=256).indices()
    index = widephase.mesh_index(m)
    for lo, hi in [((0, 0, 0), (97, 256, 256)), ((97, 31, 5), (256, 200, 171))]:
        t = widephase.voxelize_tile(index, (lo, hi), grid=grid)
        np.testing.assert_array_equal(t.indices(), restrict(whole, lo, hi))


def test_occupied_tiles_cover_every_tile_with_voxels():
    m = widephase.builtin_mesh("torus")
    grid = widephase.fit_grid(m, resolution=96)
    whole = widephase.voxelize(m, resolution=96).indices()
    occ = widephase.mesh_index(m).occupied_tiles(grid.origin, grid.voxel_size, grid.dims, (8, 8, 8))
    import widephase.dask as wd

    all_tiles = wd.tiles(grid.dims, (8, 8, 8))
    listed = {(tuple(lo), tuple(hi)) for lo, hi in occ.tolist()}
    for lo, hi in all_tiles:
        if len(restrict(whole, lo, hi)):
            assert (lo, hi) in listed
    assert len(listed) < len(all_tiles) / 2  # the torus's hole and corners are skipped


def test_tile_errors():
    m = widephase.builtin_mesh("cube")
    grid = widephase.fit_grid(m, resolution=8)
    with pytest.raises(ValueError, match="solid mode is not available tile by tile"):
        widephase.voxelize_tile(m, ((0, 0, 0), (4, 4, 4)), grid=grid, mode="solid")
    with pytest.raises(ValueError, match="outside the grid"):
        widephase.voxelize_tile(m, ((0, 0, 0), (9, 4, 4)), grid=grid)
    with pytest.raises(ValueError, match="negative"):
        widephase.voxelize_tile(m, ((-1, 0, 0), (4, 4, 4)), grid=grid)


dask = pytest.importorskip("distributed", reason="SKIPPED: dask[distributed] not installed")
zarr = pytest.importorskip("zarr", reason="SKIPPED: zarr not installed")
import widephase.dask as wd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def chunk_files(store):
    return sorted(p for p in pathlib.Path(store).rglob("*") if p.is_file() and p.name != "zarr.json")


@pytest.mark.parametrize("dtype", ["bool", "uint8"])
def test_store_equals_the_whole_grid(client, tmp_path, dtype):
    m = widephase.builtin_mesh("knot")
    store = tmp_path / "v.zarr"
    seen = []
    summary = wd.voxelize_to_zarr(m, resolution=64, store=store, chunks=23, dtype=dtype, client=client,
                                  progress=lambda d, t: seen.append((d, t)))
    whole = widephase.voxelize(m, resolution=64).indices()
    np.testing.assert_array_equal(wd.read_indices(store), whole)
    assert summary["voxels"] == len(whole) and summary["tiles"] == 27
    submitted = summary["tiles_submitted"]
    assert summary["chunks_written"] <= submitted <= 27 and seen[-1] == (submitted, submitted)
    # every tile, submitted or not, gives the same store
    again = wd.voxelize_to_zarr(m, resolution=64, store=tmp_path / "all.zarr", chunks=23, dtype=dtype,
                                client=client, skip_empty=False)
    assert again["tiles_submitted"] == 27
    np.testing.assert_array_equal(wd.read_indices(tmp_path / "all.zarr"), whole)
    # sparse: one file per non-empty chunk only
    assert len(chunk_files(store)) == summary["chunks_written"] < 27
    grid = wd.read_grid(store)
    np.testing.assert_array_equal(grid.indices(), whole)
    assert grid.dims == (64, 64, 64)
    # another tool reads it as a plain Zarr array
    arr = zarr.open_array(store, mode="r")
    assert int(np.count_nonzero(arr[:])) == len(whole)


def test_store_recreated_at_the_same_path(client, tmp_path):
    """Workers keep the arrays they opened per store path and metadata: a
    store overwritten at the same path with another grid and chunking is
    written through a fresh array, and again with the first ones."""
    m = widephase.builtin_mesh("torus")
    store = tmp_path / "v.zarr"
    for res, chunks in [(40, 16), (57, 20), (40, 16)]:
        wd.voxelize_to_zarr(m, resolution=res, store=store, chunks=chunks, client=client, overwrite=True)
        np.testing.assert_array_equal(wd.read_indices(store), widephase.voxelize(m, resolution=res).indices())
        assert zarr.open_array(store, mode="r").shape == tuple(widephase.fit_grid(m, resolution=res).dims)


def test_shared_bunny_store(client, tmp_path):
    m = widephase.load_mesh(shared_mesh("bunny.obj"))
    store = tmp_path / "b.zarr"
    wd.voxelize_to_zarr(m, resolution=200, store=store, chunks=(77, 64, 45), client=client)
    np.testing.assert_array_equal(wd.read_indices(store), widephase.voxelize(m, resolution=200).indices())


class FailOnce:
    """Raises (or kills its worker) the first time it sees `tile`; the marker
    file makes "first" hold across worker processes."""

    def __init__(self, tile, marker, kill=False):
        self.tile, self.marker, self.kill = tile, str(marker), kill

    def __call__(self, tile):
        if tuple(map(tuple, tile)) == self.tile and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            if self.kill:
                os._exit(1)
            raise RuntimeError("injected failure")


@pytest.mark.parametrize("kill", [False, True])
def test_failed_tile_is_retried_and_the_store_ends_identical(client, tmp_path, kill):
    m = widephase.builtin_mesh("torus")
    store = tmp_path / "r.zarr"
    hook = FailOnce(((0, 0, 0), (32, 32, 32)), tmp_path / "failed", kill=kill)
    wd.voxelize_to_zarr(m, resolution=48, store=store, chunks=32, client=client, on_tile=hook)
    assert (tmp_path / "failed").exists()
    np.testing.assert_array_equal(wd.read_indices(store), widephase.voxelize(m, resolution=48).indices())
    assert not list(pathlib.Path(store).rglob("*.partial"))


class AlwaysFail:
    def __call__(self, tile):
        if tuple(map(tuple, tile)) == ((0, 0, 0), (32, 32, 32)):
            raise RuntimeError("injected permanent failure")


def test_permanent_failure_raises_and_leaves_no_chunk_of_that_tile(client, tmp_path):
    m = widephase.builtin_mesh("torus")
    store = tmp_path / "f.zarr"
    with pytest.raises(RuntimeError, match=r"1 of \d+ tiles failed"):
        wd.voxelize_to_zarr(m, resolution=48, store=store, chunks=32, client=client, on_tile=AlwaysFail(),
                            retries=1)
    arr = zarr.open_array(store, mode="r")
    assert not (pathlib.Path(store) / arr.metadata.encode_chunk_key((0, 0, 0))).exists()
    assert not list(pathlib.Path(store).rglob("*.partial"))


def test_driver_errors(client, tmp_path):
    m = widephase.builtin_mesh("cube")
    with pytest.raises(ValueError, match="solid"):
        wd.voxelize_to_zarr(m, resolution=8, store=tmp_path / "a", mode="solid", client=client)
    with pytest.raises(ValueError, match="give resolution"):
        wd.voxelize_to_zarr(m, store=tmp_path / "b", client=client)
    with pytest.raises(ValueError, match="not a widephase voxel store"):
        zarr.create_array(store=tmp_path / "c", shape=(2, 2, 2), dtype="bool")
        wd.read_indices(tmp_path / "c")


def test_occupied_tiles_refuse_listing_more_than_the_cap():
    """Tiles of one voxel on a 65536³ grid: trillions of tiles may hold
    voxels; the call says so at once instead of filling memory."""
    m = widephase.builtin_mesh("torus")
    grid = widephase.fit_grid(m, resolution=65536)
    index = widephase.mesh_index(m)
    t = time.perf_counter()
    with pytest.raises(MemoryError, match="use larger tiles"):
        index.occupied_tiles(grid.origin, grid.voxel_size, grid.dims, (1, 1, 1))
    assert time.perf_counter() - t < 5.0
    assert len(index.occupied_tiles(grid.origin, grid.voxel_size, grid.dims, (4096, 4096, 4096))) > 0

