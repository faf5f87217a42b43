"""widephase: SIMD-batched collision kernels on NumPy arrays.

The voxelizer, ray casting, the broad phase and contact manifolds of the
widephase Rust crate. Inputs are borrowed without copying when they are
C-contiguous ``float32`` (coordinates) and ``int32`` (indices) arrays; other
dtypes are converted once. Every call releases the GIL for the whole
computation and runs on rayon worker threads: ``threads=None`` (or 0) uses
one worker per core, ``threads=N`` a pool of N workers (at most
``MAX_THREADS``).

>>> import numpy as np, widephase
>>> v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
>>> f = np.array([[0, 1, 2]], dtype=np.int32)
>>> grid = widephase.voxelize(v, f, resolution=8)
>>> grid.dims, grid.count
((8, 8, 8), 43)

Errors are Python exceptions (``ValueError`` for bad input, ``OSError`` for
files, ``MemoryError`` for a grid that storage cannot hold) carrying the
messages of the ``widephase`` command line.
"""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import MAX_CONTACTS, MAX_THREADS, MeshIndex, TileGrid, VoxelGrid

__all__ = [
    "Mesh",
    "VoxelGrid",
    "Grid",
    "MeshIndex",
    "TileGrid",
    "fit_grid",
    "mesh_index",
    "voxelize_tile",
    "RayScene",
    "Contacts",
    "voxelize",
    "load_mesh",
    "builtin_mesh",
    "pairs",
    "bipartite_pairs",
    "contacts",
    "box_rows",
    "pinhole_rays",
    "MAX_THREADS",
    "MAX_CONTACTS",
]

__version__ = "0.1.0"


class Mesh(NamedTuple):
    """A triangle mesh: ``vertices`` float32 ``(N, 3)``, ``faces`` int32 ``(M, 3)``.

    Unpacks as ``vertices, faces = mesh`` and is accepted wherever a mesh is
    (as are trimesh meshes and Open3D ``TriangleMesh`` objects).
    """

    vertices: np.ndarray
    faces: np.ndarray


def load_mesh(path: Union[str, os.PathLike], *, weld: Optional[float] = None) -> Mesh:
    """Reads an OBJ, STL (ASCII or binary), PLY or glTF (.gltf, .glb) file with widephase's loaders.

    Errors name the file and the line or element, as the command line does.
    ``weld=TOL`` merges every vertex into the earliest kept vertex within
    ``TOL`` (Euclidean distance; ``0`` merges equal positions) and renumbers
    the faces, as ``widephase voxelize --weld TOL`` does; kept vertices keep
    their order and coordinates.

    >>> import widephase, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.obj")
    >>> _ = open(p, "w").write("v 0 0 0\\nv 1 0 0\\nv 0 1 0\\nf 1 2 3\\n")
    >>> widephase.load_mesh(p).faces.tolist()
    [[0, 1, 2]]
    """
    v, f = _native.load_mesh(os.fspath(path), weld)
    return Mesh(v, f)


def builtin_mesh(name: str) -> Mesh:
    """One of the command line's built-in meshes: ``"torus"``, ``"knot"`` or
    ``"cube"`` (``widephase voxelize builtin:torus``).

    >>> import widephase
    >>> widephase.builtin_mesh("cube").faces.shape
    (12, 3)
    """
    v, f = _native.builtin_mesh(str(name))
    return Mesh(v, f)


def _rows(a: Any, cols: int, what: str, dtype: Any) -> np.ndarray:
    """``a`` as a C-contiguous ``(N, cols)`` array of ``dtype`` (no copy when it
    already is one); a clear error for any other shape or kind of data."""
    arr = np.asarray(a)
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, cols)
    if arr.ndim != 2 or arr.shape[1] != cols:
        raise ValueError(f"{what}: expected an (N, {cols}) array, got shape {arr.shape}")
    kind = arr.dtype.kind
    if np.dtype(dtype).kind == "f":
        if kind not in "fiu":
            raise TypeError(f"{what}: expected real numbers, got dtype {arr.dtype}")
    else:
        if kind not in "iu":
            raise TypeError(f"{what}: expected integer indices, got dtype {arr.dtype}")
        if arr.size and arr.dtype != np.int32:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < 0:
                row = int(np.argwhere(arr == lo)[0][0])
                raise ValueError(f"{what}: row {row} has a negative index {lo}")
            if hi > np.iinfo(np.int32).max:
                row = int(np.argwhere(arr == hi)[0][0])
                raise ValueError(f"{what}: row {row} has index {hi}, outside 0..=2147483647")
    # (float64 values beyond float32's range become inf here, which the
    # library then reports as a non-finite coordinate naming the vertex)
    # (and an array from an out-of-band pickle buffer may be unaligned)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.require(arr, dtype=dtype, requirements=["C_CONTIGUOUS", "ALIGNED"])


def _mesh_arrays(vertices: Any, faces: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Vertices and faces from arrays, a ``Mesh``, a trimesh mesh
    (``.vertices``/``.faces``) or an Open3D mesh (``.vertices``/``.triangles``)."""
    if faces is None:
        m = vertices
        if hasattr(m, "vertices") and hasattr(m, "faces"):
            vertices, faces = m.vertices, m.faces
        elif hasattr(m, "vertices") and hasattr(m, "triangles"):
            vertices, faces = np.asarray(m.vertices), np.asarray(m.triangles)
        elif isinstance(m, tuple) and len(m) == 2:
            vertices, faces = m
        else:
            raise TypeError(
                "give vertices and faces arrays, or a mesh with .vertices and .faces "
                "(trimesh, widephase.Mesh) or .vertices and .triangles (Open3D)"
            )
    return _rows(vertices, 3, "vertices", np.float32), _rows(faces, 3, "faces", np.int32)


def _vec3f(x: Sequence[float], what: str) -> Tuple[float, float, float]:
    v = tuple(float(c) for c in x)
    if len(v) != 3:
        raise ValueError(f"{what}: expected 3 numbers, got {len(v)}")
    return (v[0], v[1], v[2])


def _vec3i(x: Sequence[int], what: str) -> Tuple[int, int, int]:
    v = tuple(int(c) for c in x)
    if len(v) != 3:
        raise ValueError(f"{what}: expected 3 integers, got {len(v)}")
    return (v[0], v[1], v[2])


def _threads(threads: Optional[int]) -> Optional[int]:
    if threads is None:
        return None
    t = int(threads)
    if t < 0 or t > MAX_THREADS:
        raise ValueError(f"threads={t} is out of range: must be 0 (all cores) to {MAX_THREADS}")
    return t


def voxelize(
    vertices: Any,
    faces: Any = None,
    *,
    resolution: Optional[int] = None,
    voxel_size: Optional[float] = None,
    origin: Optional[Sequence[float]] = None,
    dims: Optional[Sequence[int]] = None,
    pad: int = 0,
    mode: str = "surface",
    storage: str = "auto",
    threads: Optional[int] = None,
    max_memory: Optional[int] = None,
) -> VoxelGrid:
    """Voxelizes a triangle mesh; the same voxels as ``widephase voxelize``.

    The grid, as on the command line: ``resolution=N`` (a cube of N voxels
    along the mesh's largest extent), ``voxel_size=H`` (fitted to the mesh),
    ``voxel_size=H, origin=(x, y, z)`` (from that origin to the mesh's max),
    or all of ``voxel_size``, ``origin`` and ``dims``. ``pad`` adds empty
    voxels on every side of a fitted grid.

    ``mode``: ``"surface"`` (every voxel whose closed box the surface touches:
    exact, zero misses), ``"thin"`` (a 6-separating subset) or ``"solid"``
    (surface plus the voxels whose centre is inside). ``storage``:
    ``"auto"``, ``"dense"`` or ``"sparse"``.

    The job's peak memory is estimated before any work, as on the command
    line: above ``max_memory`` bytes (default: the memory available now plus
    what the process holds) it raises ``MemoryError`` saying what it needs
    and what to change.

    >>> import numpy as np, widephase
    >>> v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    >>> f = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    >>> g = widephase.voxelize(v, f, resolution=16, mode="solid")
    >>> g.count > widephase.voxelize(v, f, resolution=16).count
    True
    """
    v, f = _mesh_arrays(vertices, faces)
    return _native.voxelize(
        v,
        f,
        resolution=None if resolution is None else int(resolution),
        voxel_size=None if voxel_size is None else float(voxel_size),
        origin=None if origin is None else _vec3f(origin, "origin"),
        dims=None if dims is None else _vec3i(dims, "dims"),
        pad=int(pad),
        mode=mode,
        storage=storage,
        threads=_threads(threads),
        max_memory=None if max_memory is None else int(max_memory),
    )


class Grid(NamedTuple):
    """A voxel grid: voxel ``(i, j, k)`` is the closed box between the planes
    ``base + ((i, j, k) − offset)·voxel_size`` and ``base + ((i+1, j+1, k+1) −
    offset)·voxel_size`` (exact). ``origin`` is the corner of voxel 0, rounded
    down to float32. A fitted grid has ``base`` = the mesh's min corner and
    ``offset`` = its padding (padding only shifts indices); ``base=None``
    means ``origin`` with offset 0."""

    origin: Tuple[float, float, float]
    voxel_size: float
    dims: Tuple[int, int, int]
    base: Optional[Tuple[float, float, float]] = None
    offset: int = 0


def fit_grid(
    vertices: Any,
    faces: Any = None,
    *,
    resolution: Optional[int] = None,
    voxel_size: Optional[float] = None,
    origin: Optional[Sequence[float]] = None,
    dims: Optional[Sequence[int]] = None,
    pad: int = 0,
) -> Grid:
    """The grid ``voxelize`` would use for these arguments (same rules).

    >>> import widephase
    >>> widephase.fit_grid(widephase.builtin_mesh("cube"), resolution=4)
    Grid(origin=(0.0, 0.0, 0.0), voxel_size=0.25, dims=(4, 4, 4), base=(0.0, 0.0, 0.0), offset=0)
    """
    v, f = _mesh_arrays(vertices, faces)
    o, h, d, b, off = _native.fit_grid(
        v, f, None if resolution is None else int(resolution),
        None if voxel_size is None else float(voxel_size),
        None if origin is None else _vec3f(origin, "origin"),
        None if dims is None else _vec3i(dims, "dims"), int(pad),
    )
    return Grid(_vec3f(o, "origin"), float(h), _vec3i(d, "dims"), _vec3f(b, "base"), int(off))


def mesh_index(vertices: Any, faces: Any = None, *, threads: Optional[int] = None) -> MeshIndex:
    """A mesh (copied once, validated) and its bounds index, for ``voxelize_tile``.

    It pickles as its arrays: sent to a Dask worker, it is rebuilt there once.
    """
    if isinstance(vertices, MeshIndex) and faces is None:
        return vertices
    v, f = _mesh_arrays(vertices, faces)
    return MeshIndex(v, f, _threads(threads))


def voxelize_tile(
    mesh: Any,
    tile: Sequence[Sequence[int]],
    *,
    grid: Grid,
    mode: str = "surface",
    threads: Optional[int] = None,
) -> TileGrid:
    """The voxels of one tile ``((i0, j0, k0), (i1, j1, k1))`` (half-open) of
    ``grid``: exactly the voxels ``voxelize`` marks on the whole grid inside
    it, computed from the triangles near the tile only. ``mesh`` is a
    ``MeshIndex`` (build it once for many tiles) or anything ``voxelize``
    accepts. Surface and thin mode; solid mode needs whole axis lines and is
    refused.

    >>> import widephase
    >>> m = widephase.builtin_mesh("torus")
    >>> g = widephase.fit_grid(m, resolution=40)
    >>> t = widephase.voxelize_tile(m, ((0, 0, 0), (20, 40, 40)), grid=g)
    >>> whole = widephase.voxelize(m, resolution=40).indices()
    >>> bool((t.indices() == whole[whole[:, 0] < 20]).all())
    True
    """
    index = mesh_index(mesh)
    if len(tile) != 2:
        raise ValueError(f"tile: expected ((i0, j0, k0), (i1, j1, k1)), got {tile!r}")
    lo, hi = _vec3i(tile[0], "tile start"), _vec3i(tile[1], "tile end")
    g = Grid(*grid)
    return index.voxelize_tile(_vec3f(g.origin, "origin"), float(g.voxel_size), _vec3i(g.dims, "dims"),
                               lo, hi, mode, _threads(threads), *_planes(g))


def _planes(g: Grid) -> Tuple[Optional[Tuple[float, float, float]], int]:
    """``(base, offset)`` of a grid for the native tile functions."""
    return (None if g.base is None else _vec3f(g.base, "base")), int(g.offset)


class RayScene:
    """A mesh built once into widephase's 8-wide BVH, for casting rays.

    Like Open3D's ``RaycastingScene``: ``cast`` returns the closest hit
    ``t`` (in units of the direction vector, ``inf`` for a miss) and the
    triangle id (``-1`` for a miss); ties go to the smaller id. The answers
    are exactly those of testing every triangle (watertight ray–triangle
    test), for any thread count.

    >>> import numpy as np, widephase
    >>> v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    >>> scene = widephase.RayScene(v, np.array([[0, 1, 2]]))
    >>> t, tri = scene.cast([[0.25, 0.25, 1.0]], [[0, 0, -1]])
    >>> float(t[0]), int(tri[0])
    (1.0, 0)
    """

    def __init__(self, vertices: Any, faces: Any = None, *, threads: Optional[int] = None):
        v, f = _mesh_arrays(vertices, faces)
        self._scene = _native.RayScene(v, f, threads=_threads(threads))

    @property
    def triangle_count(self) -> int:
        """Number of triangles."""
        return self._scene.triangle_count

    @staticmethod
    def _rays(origins: Any, directions: Any) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        if directions is None:
            # one (..., 6) array of rays: passed on whole, read in place
            rays = np.asarray(origins)
            if rays.ndim < 1 or rays.shape[-1] != 6:
                raise ValueError(f"rays: expected an (N, 6) array, got shape {rays.shape}")
            return _rows(rays.reshape(-1, 6), 6, "rays", np.float32), None
        return (
            _rows(origins, 3, "origins", np.float32),
            _rows(directions, 3, "directions", np.float32),
        )

    def cast(
        self,
        origins: Any,
        directions: Any = None,
        *,
        t_min: float = 0.0,
        t_max: float = math.inf,
        threads: Optional[int] = None,
        return_uv: bool = False,
    ):
        """Closest hits of rays ``origin + t·direction``, ``t`` in ``[t_min, t_max]``.

        ``origins`` and ``directions`` are ``(N, 3)``; or pass one ``(..., 6)``
        array of rays (Open3D's layout, e.g. from ``pinhole_rays``). Returns
        ``(t_hit, triangle_id)`` as float32 and int32 arrays of N (and the
        barycentric weights of vertices b and c, float32 ``(N, 2)``, with
        ``return_uv=True``). Rays with NaN or infinite components never hit.
        """
        o, d = self._rays(origins, directions)
        t, tri, uv = self._scene.cast(
            o, d, float(t_min), float(t_max), _threads(threads), bool(return_uv)
        )
        return (t, tri, uv) if return_uv else (t, tri)

    def occluded(
        self,
        origins: Any,
        directions: Any = None,
        *,
        t_min: float = 0.0,
        t_max: float = math.inf,
        threads: Optional[int] = None,
    ) -> np.ndarray:
        """Whether each ray hits anything within ``[t_min, t_max]`` (bool array)."""
        o, d = self._rays(origins, directions)
        return self._scene.occluded(o, d, float(t_min), float(t_max), _threads(threads))

    def count_hits(
        self, origins: Any, directions: Any = None, *, threads: Optional[int] = None
    ) -> int:
        """Number of rays that hit (no per-ray output)."""
        o, d = self._rays(origins, directions)
        return self._scene.count_hits(o, d, 0.0, math.inf, _threads(threads))

    def depth_image(self, rays: np.ndarray, *, threads: Optional[int] = None) -> np.ndarray:
        """``t_hit`` of an ``(H, W, 6)`` ray image (``pinhole_rays``), shape ``(H, W)``."""
        rays = np.asarray(rays)
        # (`cast` checks the last axis: an (H, W, 3) array is not half as many rays)
        t, _ = self.cast(rays, threads=threads)
        return t.reshape(rays.shape[:-1])


def pinhole_rays(
    fov_deg: float,
    center: Sequence[float],
    eye: Sequence[float],
    up: Sequence[float],
    width_px: int,
    height_px: int,
) -> np.ndarray:
    """Camera rays as an ``(height_px, width_px, 6)`` float32 array (origin,
    direction), as Open3D's ``RaycastingScene.create_rays_pinhole`` makes
    them from the same arguments: ``fov_deg`` is the horizontal field of
    view in degrees, ``center`` the point looked at, ``eye`` the camera
    position, ``up`` the up vector. Directions are not normalized: their
    component along the view axis is 1, so ``t_hit`` is the depth along
    that axis. The first image row looks toward ``-up`` and the first column
    toward ``-right``, as in Open3D. The same rays as
    ``widephase raycast --camera``.
    """
    w, h = int(width_px), int(height_px)
    if w < 1 or h < 1:
        raise ValueError(f"image size {w}x{h}: both must be at least 1")

    def vec3(v: Sequence[float], name: str) -> list:
        a = np.asarray(v)
        if a.dtype.kind not in "fiu":
            raise TypeError(f"{name}: expected real numbers, got dtype {a.dtype}")
        if a.size != 3:
            raise ValueError(f"{name} must have 3 components, got {a.size}")
        return a.astype(np.float64).reshape(-1).tolist()

    return _native.pinhole_rays(
        float(fov_deg), vec3(center, "center"), vec3(eye, "eye"), vec3(up, "up"), w, h
    )


def pairs(boxes: Any, *, threads: Optional[int] = None) -> np.ndarray:
    """Every overlapping pair among ``(N, 6)`` boxes (``min xyz, max xyz``
    rows): a sorted uint32 ``(P, 2)`` array of ``(i, j)``, ``i < j``.

    Closed boxes (touching counts); a NaN row is an error, an inverted or
    infinite box never pairs. The same pairs as ``widephase pairs``.

    >>> import numpy as np, widephase
    >>> b = np.array([[0, 0, 0, 1, 1, 1], [1, 0, 0, 2, 1, 1], [5, 5, 5, 6, 6, 6]])
    >>> widephase.pairs(b).tolist()
    [[0, 1]]
    """
    return _native.pairs(_rows(boxes, 6, "boxes", np.float32), _threads(threads))


def bipartite_pairs(a: Any, b: Any, *, threads: Optional[int] = None) -> np.ndarray:
    """Every overlapping pair ``(index in a, index in b)``, sorted, uint32 ``(P, 2)``."""
    return _native.bipartite_pairs(
        _rows(a, 6, "a", np.float32), _rows(b, 6, "b", np.float32), _threads(threads)
    )


def box_rows(centers: Any, quaternions: Any, half_extents: Any) -> np.ndarray:
    """Oriented boxes as the ``(N, 15)`` rows ``contacts`` takes: centre, the
    three unit axes (the rotation's columns), half extents. Quaternions are
    ``(x, y, z, w)`` and are normalized here. Each argument is an ``(N, 3)``
    or ``(N, 4)`` array of real numbers (one box may be a flat row).

    >>> import widephase
    >>> widephase.box_rows([0, 0, 1], [0, 0, 0, 1], [1, 2, 3]).tolist()
    [[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0]]
    """

    def rows(x: Any, cols: int, what: str) -> np.ndarray:
        # one box may be given as a flat row; any other shape is an error
        # (an (N, 6) array of centres must not be read as 2N boxes)
        a = np.asarray(x)
        if a.ndim == 1 and a.size == cols:
            a = a.reshape(1, cols)
        return _rows(a, cols, f"box_rows: {what}", np.float64)

    c = rows(centers, 3, "centers")
    q = rows(quaternions, 4, "quaternions")
    h = rows(half_extents, 3, "half_extents")
    if not (len(c) == len(q) == len(h)):
        raise ValueError(f"box_rows: {len(c)} centres, {len(q)} quaternions, {len(h)} half extents")
    norm = np.linalg.norm(q, axis=1, keepdims=True)
    if np.any(norm == 0) or not np.all(np.isfinite(norm)):
        raise ValueError("box_rows: every quaternion must be finite and non-zero")
    x, y, z, w = (q / norm).T
    # the rotation's columns: the images of the box's local x, y and z axes
    ax = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], 1)
    ay = np.stack([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)], 1)
    az = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)], 1)
    return np.ascontiguousarray(np.concatenate([c, ax, ay, az, h], 1), dtype=np.float32)


class Contacts(NamedTuple):
    """Contact manifolds, one row per pair (normal from the first collider
    of the pair to the second; ``point_count`` valid points, the rest zero)."""

    normal: np.ndarray  # float32 (P, 3)
    point_count: np.ndarray  # int32 (P,)
    position: np.ndarray  # float32 (P, 4, 3): points on the second collider
    depth: np.ndarray  # float32 (P, 4): penetration (negative: speculative gap)
    feature_id: np.ndarray  # uint32 (P, 4): stable across frames for the same features


def contacts(
    pairs: Any,
    *,
    spheres: Any = None,
    capsules: Any = None,
    boxes: Any = None,
    triangles: Any = None,
    margin: float = 0.0,
    threads: Optional[int] = None,
) -> Contacts:
    """Contact manifolds for ``pairs`` (``(P, 2)`` collider indices).

    Colliders are numbered in the order spheres, capsules, boxes, triangles.
    Rows: spheres ``(N, 4)`` centre and radius; capsules ``(N, 7)`` segment
    ends and radius; boxes ``(N, 15)`` centre, three unit axes, half extents
    (see ``box_rows``); triangles ``(N, 9)`` (one-sided: front is
    counter-clockwise). ``margin`` adds speculative contacts for pairs
    within that distance.

    >>> import widephase
    >>> c = widephase.contacts([[0, 1]], spheres=[[0, 0, 0, 1], [1.5, 0, 0, 1]])
    >>> int(c.point_count[0]), float(c.depth[0, 0]), c.normal[0].tolist()
    (1, 0.5, [1.0, 0.0, 0.0])
    """
    def rows(a: Any, cols: int, what: str) -> np.ndarray:
        if a is None:
            return np.zeros((0, cols), np.float32)
        return _rows(a, cols, what, np.float32)

    margin = float(margin)
    out = _native.contacts(
        rows(spheres, 4, "spheres"),
        rows(capsules, 7, "capsules"),
        rows(boxes, 15, "boxes"),
        rows(triangles, 9, "triangles"),
        _rows(pairs, 2, "pairs", np.int32),
        margin,
        _threads(threads),
    )
    return Contacts(*out)
