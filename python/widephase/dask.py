"""Tiled voxelization of large grids on Dask, into a Zarr v3 store.

``voxelize_to_zarr`` cuts the grid into tiles aligned to the store's chunks
(one tile = one chunk), submits one task per tile to a Dask client (a
``LocalCluster`` when none is given), and each worker voxelizes its tile with
``widephase.voxelize_tile`` — exactly the whole-grid answer inside the tile —
and writes the chunk straight into the store. Empty chunks are not written,
so the store stays sparse. A task that raises is retried (``retries``); a
worker that dies has its tasks rerun elsewhere by the scheduler. Zarr's
local store writes each chunk to a temporary file and renames it, so a chunk
is whole or absent; leftovers of a killed write are removed at the end, and
if a tile still fails, its chunk is removed and the call raises.

Memory per worker is bounded by the tile: the tile's bits, its uint8/bool
chunk (``chunk³`` bytes, one buffer kept per worker thread and shape), and 48
bytes per triangle near the tile (their binned records). The mesh reaches every worker once
(``client.scatter(..., broadcast=True)``), where its bounds index is rebuilt.

Requires ``dask[distributed]`` and ``zarr>=3`` (``pip install ./python[dask]``).
"""

from __future__ import annotations

import os
import pathlib
import threading
import time
from typing import Any, Callable, Dict, Optional, Sequence, Union

import numpy as np

import widephase

__all__ = ["voxelize_to_zarr", "read_indices", "read_grid", "tiles"]

ATTRS_KEY = "widephase"


def tiles(dims: Sequence[int], chunk: Sequence[int]):
    """The chunk-aligned tiles ``((i0, j0, k0), (i1, j1, k1))`` of a grid, x fastest."""
    n = [-(-int(d) // int(c)) for d, c in zip(dims, chunk)]
    out = []
    for k in range(n[2]):
        for j in range(n[1]):
            for i in range(n[0]):
                lo = (i * chunk[0], j * chunk[1], k * chunk[2])
                hi = tuple(min(lo[a] + chunk[a], dims[a]) for a in range(3))
                out.append((lo, hi))
    return out


def _tile_task(index, grid, tile, store, mode, dtype, on_tile, threads):
    """One tile on a worker: voxelize, write its chunk when not empty."""
    import zarr

    t0 = time.perf_counter()
    got = widephase.voxelize_tile(index, tile, grid=grid, mode=mode, threads=threads)
    t1 = time.perf_counter()
    if on_tile is not None:
        on_tile(tile)
    count = got.count
    if count:
        arr = _open_for_writing(store, zarr)
        (i0, j0, k0), (i1, j1, k1) = tile
        chunk = got.dense(out=_chunk_buffer((i1 - i0, j1 - j0, k1 - k0)))
        # (bool and uint8 share their bytes: 0 or 1)
        arr[i0:i1, j0:j1, k0:k1] = chunk if dtype == "bool" else chunk.view(np.uint8)
    t2 = time.perf_counter()
    return {"tile": tile, "count": count, "voxelize_s": t1 - t0, "write_s": t2 - t1}


# Each worker thread's chunk buffers, by shape: Dask starts its workers with
# MALLOC_TRIM_THRESHOLD_ set, which makes glibc map and unmap every large
# buffer, so a fresh 256³ chunk per tile was faulted in anew each time (5.2
# ms per tile on dragon_sub4 at 8192³, 0.9 ms without that setting). Zarr encodes (compresses)
# a chunk before the write returns, so the buffer is free again after it.
_CHUNKS = threading.local()


def _chunk_buffer(shape) -> np.ndarray:
    bufs = _CHUNKS.__dict__.setdefault("by_shape", {})
    if shape not in bufs:
        bufs[shape] = np.zeros(shape, np.bool_)
    return bufs[shape]


# The arrays a worker process has opened for writing, by store path and
# metadata: opening reads and parses the array's metadata (1.2 ms per tile on
# dragon_sub4's 256³ chunks, a tenth of a tile's work), once per process here.
_OPEN_ARRAYS: Dict[Any, Any] = {}


def _open_for_writing(store, zarr):
    """``zarr.open_array(store, mode="r+")``, kept per process for path stores.
    The key includes the array's metadata document, so a store re-created
    with another shape, chunking or dtype is opened afresh."""
    if not isinstance(store, (str, os.PathLike)):
        return zarr.open_array(store, mode="r+")
    path = pathlib.Path(store)
    try:
        meta = (path / "zarr.json").read_bytes()
    except OSError:
        return zarr.open_array(store, mode="r+")
    key = (str(path.resolve()), meta)
    arr = _OPEN_ARRAYS.get(key)
    if arr is None:
        if len(_OPEN_ARRAYS) >= 16:
            _OPEN_ARRAYS.clear()
        arr = _OPEN_ARRAYS[key] = zarr.open_array(store, mode="r+")
    return arr


def _store_path(store) -> Optional[pathlib.Path]:
    if isinstance(store, (str, os.PathLike)):
        return pathlib.Path(store)
    root = getattr(store, "root", None)
    return pathlib.Path(root) if root is not None else None


def _chunk_key(arr, tile) -> str:
    coords = tuple(lo // c for lo, c in zip(tile[0], arr.chunks))
    return arr.metadata.encode_chunk_key(coords)


def voxelize_to_zarr(
    mesh: Any,
    *,
    store: Union[str, os.PathLike, Any],
    resolution: Optional[int] = None,
    grid: Optional[widephase.Grid] = None,
    chunks: Union[int, Sequence[int]] = 256,
    mode: str = "surface",
    dtype: str = "bool",
    client: Any = None,
    retries: int = 2,
    overwrite: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
    on_tile: Optional[Callable[[Any], None]] = None,
    threads_per_tile: Optional[int] = 1,
    skip_empty: bool = True,
) -> Dict[str, Any]:
    """Voxelizes ``mesh`` on a Dask cluster into a Zarr v3 array at ``store``.

    ``mesh``: arrays, a ``widephase.Mesh``, a trimesh mesh or a
    ``widephase.MeshIndex``. The grid is ``grid`` (a ``widephase.Grid``) or
    the one ``widephase.fit_grid(mesh, resolution=resolution)`` gives.
    ``chunks``: the chunk (= tile) edge, or three edges. ``dtype``: ``"bool"``
    or ``"uint8"`` (1 per marked voxel). ``mode``: ``"surface"`` or ``"thin"``.
    ``client``: a ``distributed.Client``; without one, a ``LocalCluster`` with
    one single-threaded worker per core is started and closed. ``progress``
    is called as ``progress(tiles_done, tiles_total)``. ``on_tile(tile)`` runs
    on the worker after a tile is computed and before its chunk is written
    (logging, or fault injection in tests). ``skip_empty``: submit only the
    tiles some triangle comes near (``MeshIndex.occupied_tiles``); the others
    are empty by construction, so the work follows the surface, not the
    grid's volume.

    The array's attributes hold the grid (``origin``, ``voxel_size``,
    ``dims``) and the mode under ``"widephase"``. Returns a summary: tiles,
    chunks written, voxels, seconds, the summed per-tile voxelize and write
    times, the store's size on disk (local stores), and ``per_tile``: each
    tile's count and times.
    """
    import zarr
    from distributed import Client, LocalCluster, as_completed

    if mode not in ("surface", "thin"):
        raise ValueError(f"mode={mode!r}: tiles support \"surface\" and \"thin\" (solid needs whole axis lines)")
    if dtype not in ("bool", "uint8"):
        raise ValueError(f"dtype={dtype!r} is not \"bool\" or \"uint8\"")
    index = widephase.mesh_index(mesh)
    if grid is None:
        if resolution is None:
            raise ValueError("give resolution=N or grid=widephase.Grid(...)")
        if isinstance(mesh, widephase.MeshIndex):
            raise ValueError("with a MeshIndex, give grid= (fitting needs the mesh arrays)")
        grid = widephase.fit_grid(mesh, resolution=resolution)
    grid = widephase.Grid(*grid)
    edges = [int(chunks)] * 3 if isinstance(chunks, (int, np.integer)) else [int(c) for c in chunks]
    if len(edges) != 3 or min(edges) < 1:
        raise ValueError(f"chunks={chunks!r}: give one positive edge or three")
    chunk = (edges[0], edges[1], edges[2])
    arr = zarr.create_array(
        store=store,
        shape=tuple(grid.dims),
        chunks=chunk,
        dtype=dtype,
        fill_value=0,
        overwrite=overwrite,
        attributes={ATTRS_KEY: {"origin": list(grid.origin), "voxel_size": grid.voxel_size,
                                "dims": list(grid.dims), "mode": mode,
                                "base": None if grid.base is None else list(grid.base),
                                "offset": int(grid.offset)}},
        config={"write_empty_chunks": False},
    )
    all_tiles = len(tiles(grid.dims, chunk)) if skip_empty else None
    if skip_empty:
        # only the tiles a triangle comes near: the rest are known empty, and
        # their chunks stay absent (fill value 0)
        work = [tuple(map(tuple, t)) for t in
                index.occupied_tiles(grid.origin, grid.voxel_size, grid.dims, chunk,
                                     *widephase._planes(grid)).tolist()]
    else:
        work = tiles(grid.dims, chunk)
    own = client is None
    cluster = None
    if own:
        cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    t0 = time.perf_counter()
    failed = []
    results = []
    try:
        [index_f] = client.scatter([index], broadcast=True, hash=False)
        futures = [
            client.submit(_tile_task, index_f, tuple(grid), t, store, mode, dtype, on_tile,
                          threads_per_tile, retries=retries, pure=False)
            for t in work
        ]
        tile_of = {f.key: t for f, t in zip(futures, work)}
        for done, fut in enumerate(as_completed(futures), 1):
            if fut.status == "error":
                failed.append((tile_of[fut.key], repr(fut.exception())))
            else:
                results.append(fut.result())
            if progress is not None:
                progress(done, len(work))
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
    seconds = time.perf_counter() - t0
    root = _store_path(store)
    if root is not None and root.exists():
        for p in root.rglob("*.partial"):  # a write killed mid-way
            p.unlink(missing_ok=True)
    if failed:
        for tile, _ in failed:
            key = _chunk_key(arr, tile)
            if root is not None:
                (root / key).unlink(missing_ok=True)
        raise RuntimeError(f"{len(failed)} of {len(work)} tiles failed after {retries} retries "
                           f"(their chunks were removed): {failed[:3]}")
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root is not None else None
    return {
        "tiles": all_tiles if skip_empty else len(work),
        "tiles_submitted": len(work),
        "chunks_written": sum(1 for r in results if r["count"]),
        "voxels": sum(r["count"] for r in results),
        "seconds": seconds,
        "voxelize_s": sum(r["voxelize_s"] for r in results),
        "write_s": sum(r["write_s"] for r in results),
        "store_bytes": size,
        "grid": grid,
        "per_tile": results,
    }


def _open(store):
    import zarr

    arr = zarr.open_array(store, mode="r")
    meta = arr.attrs.get(ATTRS_KEY)
    if meta is None:
        raise ValueError(f"{store}: not a widephase voxel store (no {ATTRS_KEY!r} attributes)")
    return arr, meta


def read_indices(store: Union[str, os.PathLike, Any]) -> np.ndarray:
    """The marked voxels of a store as int32 ``(K, 3)``, sorted by ``(k, j, i)``
    (the order of ``VoxelGrid.indices()``); only the chunks present are read."""
    arr, meta = _open(store)
    root = _store_path(store)
    chunk = arr.chunks
    parts = []
    for lo, hi in tiles(arr.shape, chunk):
        key = _chunk_key(arr, (lo, hi))
        if root is not None and not (root / key).exists():
            continue
        block = np.asarray(arr[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]])
        ijk = np.argwhere(block != 0)
        if len(ijk):
            parts.append(ijk + np.array(lo))
    if not parts:
        return np.zeros((0, 3), np.int32)
    ijk = np.concatenate(parts).astype(np.int32)
    order = np.lexsort((ijk[:, 0], ijk[:, 1], ijk[:, 2]))
    return ijk[order]


def read_grid(store: Union[str, os.PathLike, Any]) -> widephase.VoxelGrid:
    """The store as a ``widephase.VoxelGrid`` (dense bits up to 1024³ voxels,
    sparse bricks above), e.g. to ``.save()`` it as ``.binvox`` or ``.vox``."""
    _, meta = _open(store)
    base = meta.get("base")
    return widephase.VoxelGrid.from_indices(tuple(meta["origin"]), float(meta["voxel_size"]),
                                            tuple(meta["dims"]), read_indices(store), meta["mode"],
                                            None if base is None else tuple(base),
                                            int(meta.get("offset", 0)))
