"""Type stubs of the compiled module (``widephase._native``); the public API
is re-exported and documented by ``widephase/__init__.py``."""

from os import PathLike
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

MAX_THREADS: int
MAX_CONTACTS: int

F32Rows = npt.NDArray[np.float32]
I32Rows = npt.NDArray[np.int32]

def voxelize(
    vertices: F32Rows,
    faces: I32Rows,
    resolution: Optional[int] = None,
    voxel_size: Optional[float] = None,
    origin: Optional[Tuple[float, float, float]] = None,
    dims: Optional[Tuple[int, int, int]] = None,
    pad: int = 0,
    mode: str = "surface",
    storage: str = "auto",
    threads: Optional[int] = None,
    max_memory: Optional[int] = None,
) -> VoxelGrid: ...
def fit_grid(
    vertices: F32Rows,
    faces: I32Rows,
    resolution: Optional[int] = None,
    voxel_size: Optional[float] = None,
    origin: Optional[Tuple[float, float, float]] = None,
    dims: Optional[Tuple[int, int, int]] = None,
    pad: int = 0,
) -> Tuple[Tuple[float, float, float], float, Tuple[int, int, int], Tuple[float, float, float], int]: ...
def load_mesh(path: Union[str, PathLike[str]], weld: Optional[float] = None) -> Tuple[F32Rows, I32Rows]: ...
def builtin_mesh(name: str) -> Tuple[F32Rows, I32Rows]: ...

class VoxelGrid:
    """The result of ``widephase.voxelize``."""

    @property
    def origin(self) -> npt.NDArray[np.float32]: ...
    @property
    def base(self) -> npt.NDArray[np.float32]: ...
    @property
    def offset(self) -> int: ...
    @property
    def voxel_size(self) -> float: ...
    @property
    def dims(self) -> Tuple[int, int, int]: ...
    @property
    def count(self) -> int: ...
    @property
    def mode(self) -> str: ...
    @property
    def storage(self) -> str: ...
    def __len__(self) -> int: ...
    def __contains__(self, ijk: Tuple[int, int, int]) -> bool: ...
    def indices(self) -> npt.NDArray[np.int32]: ...
    def dense(self, out: Optional[npt.NDArray[np.bool_]] = None) -> npt.NDArray[np.bool_]: ...
    def points(self) -> npt.NDArray[np.float64]: ...
    def save(self, path: Union[str, PathLike[str]], dense_npy: bool = False) -> None: ...
    def triangle_lists(self, threads: Optional[int] = None) -> npt.NDArray[np.uint32]: ...
    @staticmethod
    def from_indices(
        origin: Tuple[float, float, float],
        voxel_size: float,
        dims: Tuple[int, int, int],
        indices: Union[npt.NDArray[np.integer[Any]], Sequence[Sequence[int]]],
        mode: str,
        base: Optional[Tuple[float, float, float]] = None,
        offset: int = 0,
    ) -> VoxelGrid: ...

class MeshIndex:
    """A mesh and its bounds index, for voxelizing tiles."""

    def __init__(self, vertices: F32Rows, faces: I32Rows, threads: Optional[int] = None) -> None: ...
    @property
    def triangle_count(self) -> int: ...
    @property
    def bounds(self) -> Tuple[Tuple[float, float, float], Tuple[float, float, float]]: ...
    def occupied_tiles(
        self,
        origin: Tuple[float, float, float],
        voxel_size: float,
        dims: Tuple[int, int, int],
        size: Tuple[int, int, int],
        base: Optional[Tuple[float, float, float]] = None,
        offset: int = 0,
    ) -> npt.NDArray[np.int64]: ...
    def voxelize_tile(
        self,
        origin: Tuple[float, float, float],
        voxel_size: float,
        dims: Tuple[int, int, int],
        lo: Tuple[int, int, int],
        hi: Tuple[int, int, int],
        mode: str = "surface",
        threads: Optional[int] = None,
        base: Optional[Tuple[float, float, float]] = None,
        offset: int = 0,
    ) -> TileGrid: ...

class TileGrid:
    """The voxels of one tile."""

    @property
    def lo(self) -> Tuple[int, int, int]: ...
    @property
    def hi(self) -> Tuple[int, int, int]: ...
    @property
    def count(self) -> int: ...
    def indices(self) -> npt.NDArray[np.int32]: ...
    def dense(self, out: Optional[npt.NDArray[np.bool_]] = None) -> npt.NDArray[np.bool_]: ...

def pinhole_rays(
    fov_deg: float,
    center: list[float],
    eye: list[float],
    up: list[float],
    width_px: int,
    height_px: int,
) -> npt.NDArray[np.float32]: ...

class RayScene:
    def __init__(self, vertices: F32Rows, faces: I32Rows, threads: Optional[int] = None) -> None: ...
    @property
    def triangle_count(self) -> int: ...
    def cast(
        self,
        origins: F32Rows,
        directions: Optional[F32Rows] = None,
        t_min: float = 0.0,
        t_max: float = ...,
        threads: Optional[int] = None,
        uv: bool = True,
    ) -> Tuple[
        npt.NDArray[np.float32], npt.NDArray[np.int32], Optional[npt.NDArray[np.float32]]
    ]: ...
    def occluded(
        self,
        origins: F32Rows,
        directions: Optional[F32Rows] = None,
        t_min: float = 0.0,
        t_max: float = ...,
        threads: Optional[int] = None,
    ) -> npt.NDArray[np.bool_]: ...
    def count_hits(
        self,
        origins: F32Rows,
        directions: Optional[F32Rows] = None,
        t_min: float = 0.0,
        t_max: float = ...,
        threads: Optional[int] = None,
    ) -> int: ...

def pairs(boxes: F32Rows, threads: Optional[int] = None) -> npt.NDArray[np.uint32]: ...
def bipartite_pairs(
    a: F32Rows, b: F32Rows, threads: Optional[int] = None
) -> npt.NDArray[np.uint32]: ...
def contacts(
    spheres: F32Rows,
    capsules: F32Rows,
    boxes: F32Rows,
    triangles: F32Rows,
    pairs: I32Rows,
    margin: float = 0.0,
    threads: Optional[int] = None,
) -> Tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.int32],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.uint32],
]: ...
