//! `voxelize`, `VoxelGrid` and `load_mesh`: the voxelizer on NumPy arrays.

use crate::common::{index_rows, indices, mesh_ref, rows, run, voxel_err};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::path::PathBuf;
use widephase::voxel::{
    self, budget, builtin, formats, Grid, Mesh, Mode, Options, Storage, Tile, TileIndex,
    TileVoxels, VoxelSet, Voxels, DENSE_MAX, MAX_RES,
};
use widephase::Vec3;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(voxelize, m)?)?;
    m.add_function(wrap_pyfunction!(load_mesh, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_mesh, m)?)?;
    m.add_function(wrap_pyfunction!(fit_grid, m)?)?;
    m.add_class::<VoxelGrid>()?;
    m.add_class::<MeshIndex>()?;
    m.add_class::<TileGrid>()?;
    Ok(())
}

fn parse_mode(s: &str) -> PyResult<Mode> {
    match s {
        "surface" => Ok(Mode::Surface),
        "thin" => Ok(Mode::Thin),
        "solid" => Ok(Mode::Solid),
        _ => Err(PyValueError::new_err(format!(
            "mode={s:?} is not one of \"surface\", \"thin\", \"solid\""
        ))),
    }
}

fn parse_storage(s: &str) -> PyResult<Storage> {
    match s {
        "auto" => Ok(Storage::Auto),
        "dense" => Ok(Storage::Dense),
        "sparse" => Ok(Storage::Sparse),
        _ => Err(PyValueError::new_err(format!(
            "storage={s:?} is not one of \"auto\", \"dense\", \"sparse\""
        ))),
    }
}

/// The grid from the keyword arguments, the four ways the command line
/// accepts (`--res`, `--voxel-size`, `--voxel-size --origin`, all three of
/// `--voxel-size --origin --dims`), with the same rules.
fn grid_from_args(
    (lo, hi): (Vec3, Vec3),
    resolution: Option<i64>,
    voxel_size: Option<f32>,
    origin: Option<[f32; 3]>,
    dims: Option<[i64; 3]>,
    pad: i64,
) -> PyResult<Grid> {
    if !(0..=MAX_RES as i64).contains(&pad) {
        return Err(PyValueError::new_err(format!(
            "pad={pad} is out of range: must be 0..={MAX_RES}"
        )));
    }
    let pad = pad as u32;
    if pad > 0 && (origin.is_some() || dims.is_some()) {
        return Err(PyValueError::new_err(
            "pad= applies to fitted grids only; it cannot be combined with origin= or dims=",
        ));
    }
    let grid = match (resolution, voxel_size, origin, dims) {
        (Some(res), None, None, None) => {
            if res < 1 || res > MAX_RES as i64 {
                return Err(PyValueError::new_err(format!(
                    "resolution={res} is out of range: must be 1..={MAX_RES}"
                )));
            }
            Grid::fit(lo, hi, res as u32, pad)
        }
        (None, Some(h), None, None) => Grid::fit_voxel(lo, hi, h, pad),
        (None, Some(h), Some(o), None) => Grid::covering(Vec3::from_array(o), h, hi),
        (None, Some(h), Some(o), Some(d)) => {
            let mut du = [0u32; 3];
            for a in 0..3 {
                if d[a] < 1 || d[a] > MAX_RES as i64 {
                    return Err(PyValueError::new_err(format!(
                        "dims={d:?} is out of range: each must be 1..={MAX_RES}"
                    )));
                }
                du[a] = d[a] as u32;
            }
            Grid::new(Vec3::from_array(o), h, du)
        }
        (None, None, None, None) => {
            return Err(PyValueError::new_err(
                "give resolution=N or voxel_size=H (optionally with origin= and dims=)",
            ))
        }
        _ => {
            return Err(PyValueError::new_err(
                "conflicting grid arguments: use resolution=N, voxel_size=H, voxel_size=H with origin=, or all of voxel_size=, origin= and dims=",
            ))
        }
    };
    grid.map_err(voxel_err)
}

/// The grid `(origin, voxel_size, dims)`, with the plane base and index
/// offset of a fitted grid when given (`Grid.base`, `Grid.offset`: a padded
/// grid's planes are `base + (n − offset)·h`, which its rounded `origin`
/// alone does not reproduce); `origin` must then be the corner they give.
fn grid_of(
    origin: [f32; 3],
    voxel_size: f32,
    dims: [i64; 3],
    base: Option<[f32; 3]>,
    offset: i64,
) -> PyResult<Grid> {
    let dims = dims_u32(dims, "dims")?;
    if !(0..=MAX_RES as i64).contains(&offset) {
        return Err(PyValueError::new_err(format!(
            "offset={offset} is out of range: must be 0..={MAX_RES}"
        )));
    }
    let Some(base) = base else {
        if offset != 0 {
            return Err(PyValueError::new_err("offset= needs base= (the planes' base)"));
        }
        return Grid::new(Vec3::from_array(origin), voxel_size, dims).map_err(voxel_err);
    };
    let g = Grid::with_offset(Vec3::from_array(base), voxel_size, dims, offset as u32)
        .map_err(voxel_err)?;
    if g.origin.to_array() != origin {
        return Err(PyValueError::new_err(format!(
            "origin={origin:?} is not the corner of voxel 0 of base={base:?}, offset={offset} ({:?})",
            g.origin.to_array()
        )));
    }
    Ok(g)
}

fn dims_u32(d: [i64; 3], what: &str) -> PyResult<[u32; 3]> {
    if d.iter().any(|&x| x < 1 || x > MAX_RES as i64) {
        return Err(PyValueError::new_err(format!(
            "{what}={d:?} is out of range: each must be 1..={MAX_RES}"
        )));
    }
    Ok(d.map(|x| x as u32))
}

/// The grid `voxelize` would use: `(origin, voxel_size, dims, base, offset)`.
#[pyfunction]
#[pyo3(signature = (vertices, faces, resolution=None, voxel_size=None, origin=None, dims=None, pad=0))]
#[allow(clippy::type_complexity)]
fn fit_grid(
    vertices: PyReadonlyArray2<'_, f32>,
    faces: PyReadonlyArray2<'_, i32>,
    resolution: Option<i64>,
    voxel_size: Option<f32>,
    origin: Option<[f32; 3]>,
    dims: Option<[i64; 3]>,
    pad: i64,
) -> PyResult<([f32; 3], f32, [u32; 3], [f32; 3], u32)> {
    let mesh = mesh_ref(&vertices, &faces)?;
    let g = grid_from_args(mesh.bounds(), resolution, voxel_size, origin, dims, pad)?;
    Ok((g.origin.to_array(), g.voxel, g.dims, g.base.to_array(), g.offset))
}

/// Voxelizes a mesh (the native half of `widephase.voxelize`).
#[pyfunction]
#[pyo3(signature = (vertices, faces, resolution=None, voxel_size=None, origin=None, dims=None, pad=0, mode="surface", storage="auto", threads=None, max_memory=None))]
#[allow(clippy::too_many_arguments)]
fn voxelize(
    py: Python<'_>,
    vertices: PyReadonlyArray2<'_, f32>,
    faces: PyReadonlyArray2<'_, i32>,
    resolution: Option<i64>,
    voxel_size: Option<f32>,
    origin: Option<[f32; 3]>,
    dims: Option<[i64; 3]>,
    pad: i64,
    mode: &str,
    storage: &str,
    threads: Option<usize>,
    max_memory: Option<i64>,
) -> PyResult<VoxelGrid> {
    let mode = parse_mode(mode)?;
    let storage = parse_storage(storage)?;
    let mesh = mesh_ref(&vertices, &faces)?;
    let grid = grid_from_args(mesh.bounds(), resolution, voxel_size, origin, dims, pad)?;
    check_budget(mesh, &grid, mode, storage, max_memory)?;
    let opts = Options { mode, storage, progress: None, no_precull: false };
    let vox = run(py, threads, || voxel::voxelize(mesh, &grid, &opts))?.map_err(voxel_err)?;
    Ok(VoxelGrid {
        vox,
        mode,
        mesh: Some((vertices.as_unbound().clone_ref(py), faces.as_unbound().clone_ref(py))),
    })
}

/// The command line's memory check before any work: a job whose estimated
/// peak (`budget::estimate_bytes` plus what the process holds) is above
/// `max_memory` bytes, or above the memory available when `None`, is a
/// `MemoryError` saying what it needs and what to change; the storage
/// decision's own errors come first, as on the command line.
fn check_budget(
    mesh: voxel::MeshRef<'_>,
    grid: &Grid,
    mode: Mode,
    storage: Storage,
    max_memory: Option<i64>,
) -> PyResult<()> {
    let limit = match max_memory {
        Some(m) if m <= 0 => {
            return Err(PyValueError::new_err(format!(
                "max_memory must be a positive number of bytes, got {m}"
            )))
        }
        m => m.map(|m| m as u64),
    };
    let dense = voxel::dense_storage(storage, mode, grid.dims).map_err(voxel_err)?;
    let job = budget::Job {
        mode,
        dense,
        out_ext: None,
        npy_dense: false,
        triangles: false,
        preview: false,
    };
    let need = budget::resident() + budget::estimate_bytes(mesh, grid, &job);
    let advice = match (mode, dense) {
        (Mode::Solid, _) => {
            "lower the resolution (the grid's memory grows with its cube) or use mode=\"surface\""
        }
        (_, true) => {
            "lower the resolution, or use storage=\"sparse\" (memory then grows with the surface)"
        }
        (_, false) => "lower the resolution",
    };
    budget::check(need, limit, advice, "max_memory")
        .map_err(pyo3::exceptions::PyMemoryError::new_err)
}

/// Refuses an array a method would build when it cannot fit in the memory
/// available now (`MemAvailable` plus what the process holds, as the
/// command line's default limit): a `MemoryError` naming the method, before
/// anything is allocated. `upper` bounds the array's bytes cheaply (from the
/// grid's size); `exact` (which may scan the set) is asked only when the
/// bound does not fit. Arrays up to 256 MiB are not checked.
fn result_fits(upper: u64, exact: impl FnOnce() -> u64, what: &str) -> PyResult<()> {
    const UNCHECKED: u64 = 256 << 20;
    if upper <= UNCHECKED {
        return Ok(());
    }
    let Some(limit) = budget::default_limit() else { return Ok(()) };
    let held = budget::resident();
    budget::array_fits(upper, exact, held, limit).map_err(|bytes| {
        pyo3::exceptions::PyMemoryError::new_err(format!(
            "{what}: the result needs about {}, more than the available memory, {}",
            budget::human(bytes),
            budget::human(limit.saturating_sub(held))
        ))
    })
}

/// The input arrays a `VoxelGrid` keeps for `triangle_lists`.
type MeshArraysRef = (Py<PyArray2<f32>>, Py<PyArray2<i32>>);

/// A mesh as `(vertices float32 (N, 3), faces int32 (M, 3))` arrays.
type MeshArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<i32>>);

fn mesh_arrays(py: Python<'_>, mesh: Mesh) -> PyResult<MeshArrays<'_>> {
    let (nv, nf) = (mesh.vertices.len(), mesh.indices.len());
    let v: Vec<f32> = bytemuck::cast_slice(&mesh.vertices).to_vec();
    let f: Vec<i32> = mesh.indices.iter().flatten().map(|&i| i as i32).collect();
    Ok((v.into_pyarray(py).reshape([nv, 3])?, f.into_pyarray(py).reshape([nf, 3])?))
}

/// Reads an OBJ, STL, PLY or glTF file with the crate's loaders, welded
/// within `weld` when given. The tolerance is checked here, as the CLI's
/// `--weld` parser checks it: a distance ≥ 0 that is finite as an `f32`
/// (taken as `f64`, so `1e300` is refused by its own value, not as `inf`).
#[pyfunction]
#[pyo3(signature = (path, weld=None))]
fn load_mesh(py: Python<'_>, path: PathBuf, weld: Option<f64>) -> PyResult<MeshArrays<'_>> {
    let weld = match weld {
        Some(tol) if (tol as f32).is_finite() && tol >= 0.0 => Some(tol as f32),
        Some(tol) => {
            return Err(PyValueError::new_err(format!(
                "weld={tol:?}: expected a finite distance ≥ 0, e.g. 0 or 1e-5"
            )))
        }
        None => None,
    };
    let mesh = py
        .detach(|| {
            let mut mesh = Mesh::load(&path)?;
            if let Some(tol) = weld {
                mesh.weld(tol);
            }
            Ok(mesh)
        })
        .map_err(voxel_err)?;
    mesh_arrays(py, mesh)
}

/// One of the command line's built-in meshes (`torus`, `knot`, `cube`).
#[pyfunction]
fn builtin_mesh<'py>(py: Python<'py>, name: &str) -> PyResult<MeshArrays<'py>> {
    let mesh = builtin::by_name(name).ok_or_else(|| {
        PyValueError::new_err(format!("unknown builtin mesh {name:?} (try torus, knot, cube)"))
    })?;
    mesh_arrays(py, mesh)
}

/// The result of `widephase.voxelize`: a grid (origin, voxel size, dims) and
/// the set of its marked voxels, stored as the library stores it (dense bits
/// or sparse 8³ bricks); arrays are made on request.
#[pyclass(module = "widephase._native", frozen)]
pub struct VoxelGrid {
    vox: Voxels,
    mode: Mode,
    // the (normalized) input arrays, for `triangle_lists` (None for a grid
    // read back from a file or store)
    mesh: Option<MeshArraysRef>,
}

#[pymethods]
impl VoxelGrid {
    /// A grid from its description and a `(K, 3)` index list of any integer
    /// dtype (e.g. read back from a Zarr store; int32 is borrowed, others
    /// converted once): dense bits up to 1024³ voxels, sparse bricks above.
    /// Indices outside the grid are an error. `base` and
    /// `offset` as in `Grid` (a padded fitted grid's planes).
    #[staticmethod]
    #[pyo3(signature = (origin, voxel_size, dims, indices, mode, base=None, offset=0))]
    #[allow(clippy::too_many_arguments)]
    fn from_indices(
        py: Python<'_>,
        origin: [f32; 3],
        voxel_size: f32,
        dims: [i64; 3],
        indices: Bound<'_, PyAny>,
        mode: &str,
        base: Option<[f32; 3]>,
        offset: i64,
    ) -> PyResult<VoxelGrid> {
        let mode = parse_mode(mode)?;
        let grid = grid_of(origin, voxel_size, dims, base, offset)?;
        let indices = index_rows(&indices, 3, "indices")?;
        let idx = self::indices(rows(&indices, 3, "indices")?, 3, "indices")?;
        if let Some(at) = idx.chunks_exact(3).position(|v| (0..3).any(|a| v[a] >= grid.dims[a])) {
            let v = &idx[3 * at..3 * at + 3];
            return Err(PyValueError::new_err(format!(
                "indices: row {at} ({}, {}, {}) is outside the grid of {:?} voxels",
                v[0], v[1], v[2], grid.dims
            )));
        }
        let set = py.detach(|| VoxelSet::from_indices(grid.dims, idx));
        Ok(VoxelGrid { vox: Voxels { grid, set }, mode, mesh: None })
    }

    /// Grid origin (the min corner of voxel (0, 0, 0), rounded down to
    /// float32), float32 (3,). The exact planes are `base + (n − offset)·h`.
    #[getter]
    fn origin<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.vox.grid.origin.to_array().to_vec().into_pyarray(py)
    }

    /// The planes' base, float32 (3,): the min corner of voxel `(offset,
    /// offset, offset)` exactly (the mesh's min corner for a fitted grid).
    #[getter]
    fn base<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.vox.grid.base.to_array().to_vec().into_pyarray(py)
    }

    /// The index offset of the planes (the padding of a fitted grid).
    #[getter]
    fn offset(&self) -> u32 {
        self.vox.grid.offset
    }

    /// Edge length of a voxel.
    #[getter]
    fn voxel_size(&self) -> f32 {
        self.vox.grid.voxel
    }

    /// Voxels per axis `(nx, ny, nz)`.
    #[getter]
    fn dims(&self) -> (u32, u32, u32) {
        let [x, y, z] = self.vox.grid.dims;
        (x, y, z)
    }

    /// Number of marked voxels.
    #[getter]
    fn count(&self) -> u64 {
        self.vox.set.count()
    }

    /// "surface", "thin" or "solid".
    #[getter]
    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::Surface => "surface",
            Mode::Thin => "thin",
            Mode::Solid => "solid",
        }
    }

    /// "dense" or "sparse".
    #[getter]
    fn storage(&self) -> &'static str {
        match self.vox.set {
            VoxelSet::Dense(_) => "dense",
            VoxelSet::Sparse(_) => "sparse",
        }
    }

    fn __len__(&self) -> usize {
        self.vox.set.count() as usize
    }

    fn __repr__(&self) -> String {
        let [x, y, z] = self.vox.grid.dims;
        format!(
            "VoxelGrid(dims=({x}, {y}, {z}), voxel_size={}, count={}, mode={:?}, storage={:?})",
            self.vox.grid.voxel,
            self.vox.set.count(),
            self.mode(),
            self.storage()
        )
    }

    /// Whether voxel `(i, j, k)` is marked (False outside the grid).
    fn __contains__(&self, ijk: (i64, i64, i64)) -> bool {
        let (i, j, k) = ijk;
        let ok = |v: i64| (0..=u32::MAX as i64).contains(&v);
        ok(i) && ok(j) && ok(k) && self.vox.set.get([i as u32, j as u32, k as u32])
    }

    /// The marked voxels as an int32 `(K, 3)` array of `(i, j, k)`, sorted
    /// by `(k, j, i)`: the rows the command line writes to `.npy`.
    fn indices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let set = &self.vox.set;
        result_fits(12 * self.vox.grid.len(), || 12 * set.count(), "indices()")?;
        // (indices are below 2¹⁶, so the u32 buffer reads as i32 unchanged)
        let flat: Vec<i32> = bytemuck::cast_vec(py.detach(|| self.vox.set.indices_flat()));
        let k = flat.len() / 3;
        flat.into_pyarray(py).reshape([k, 3])
    }

    /// The grid as a bool array of shape `(nx, ny, nz)`, indexed `[i, j, k]`
    /// (trimesh's `VoxelGrid.matrix`); written into `out` (of that shape,
    /// C-contiguous) when given. Refused above 2³³ voxels.
    #[pyo3(signature = (out=None))]
    fn dense<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<bool>>> {
        let [nx, ny, nz] = self.vox.grid.dims.map(|d| d as usize);
        let n = (nx * ny * nz) as u64;
        if n > DENSE_MAX {
            return Err(pyo3::exceptions::PyMemoryError::new_err(format!(
                "dense(): {nx}×{ny}×{nz} = {n} voxels is above the dense limit {DENSE_MAX}; use indices()"
            )));
        }
        let set = &self.vox.set;
        bool_array(py, self.vox.grid.dims, out, |f| set.for_each(f))
    }

    /// Centres of the marked voxels, float64 `(K, 3)`, in `indices()` order
    /// (trimesh's `VoxelGrid.points`).
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        // (the indices, then 24 bytes of centre per voxel)
        let set = &self.vox.set;
        result_fits(36 * self.vox.grid.len(), || 36 * set.count(), "points()")?;
        let idx = self.indices(py)?;
        let idx = idx.readonly();
        let idx = idx.as_slice()?;
        let g = self.vox.grid;
        let pts: Vec<f64> = py.detach(|| {
            idx.par_chunks(3 * 4096)
                .flat_map_iter(|c| {
                    c.chunks_exact(3)
                        .flat_map(|v| [0, 1, 2].map(|a| g.centre_f64(a, v[a] as i64)))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        let k = pts.len() / 3;
        pts.into_pyarray(py).reshape([k, 3])
    }

    /// Writes the voxels to `path`, the format chosen by its extension as
    /// the command line's `--out` does: `.binvox` (a cube: a non-cubic grid
    /// is padded to its largest side), `.vox` (MagicaVoxel) or `.npy` (the
    /// `indices()` rows, or with `dense_npy=True` a uint8 `(nx, ny, nz)`
    /// array). The file is written to a temporary name and renamed when
    /// complete: a failure leaves nothing behind.
    #[pyo3(signature = (path, dense_npy=false))]
    fn save(&self, py: Python<'_>, path: PathBuf, dense_npy: bool) -> PyResult<()> {
        py.detach(|| save(&self.vox, &path, dense_npy)).map_err(voxel_err)
    }

    /// Per-voxel triangle lists: a uint32 `(P, 4)` array of rows
    /// `(i, j, k, triangle)` sorted by voxel `(k, j, i)`, then triangle (the
    /// command line's `--triangles`). Its voxels are the conservative
    /// surface whatever the mode. Computed from the input arrays as they are
    /// now (they are borrowed, not copied).
    #[pyo3(signature = (threads=None))]
    fn triangle_lists<'py>(
        &self,
        py: Python<'py>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let (v, f) = self.mesh.as_ref().ok_or_else(|| {
            PyValueError::new_err(
                "triangle_lists() needs the mesh: this grid was read back, not voxelized here",
            )
        })?;
        let (v, f) = (v.bind(py).readonly(), f.bind(py).readonly());
        let mesh = mesh_ref(&v, &f)?;
        let grid = self.vox.grid;
        // (the command line's whole-job estimate with `--triangles`, whose
        // lists take 96 bytes per expected surface voxel; cautious here, as
        // it also counts the set this grid already holds)
        let job = budget::Job {
            mode: Mode::Surface,
            dense: matches!(self.vox.set, VoxelSet::Dense(_)),
            out_ext: None,
            npy_dense: false,
            triangles: true,
            preview: false,
        };
        let need = budget::estimate_bytes(mesh, &grid, &job);
        result_fits(need, || need, "triangle_lists()")?;
        let lists = run(py, threads, || voxel::triangle_lists(mesh, &grid))?.map_err(voxel_err)?;
        let flat: Vec<u32> = lists
            .iter()
            .flat_map(|(v, tris)| tris.iter().flat_map(move |&t| [v[0], v[1], v[2], t]))
            .collect();
        let p = flat.len() / 4;
        flat.into_pyarray(py).reshape([p, 4])
    }
}

/// `VoxelGrid.save`: the command line's output formats by extension.
fn save(vox: &Voxels, path: &std::path::Path, dense_npy: bool) -> Result<(), voxel::VoxelError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let (grid, set) = (&vox.grid, &vox.set);
    let staged = match ext.as_str() {
        "binvox" => {
            let side = grid.dims.into_iter().max().unwrap_or(1) as u64;
            if side.pow(3) > DENSE_MAX {
                return Err(voxel::VoxelError::Format(format!("{}: binvox is run-length coded over all {side}³ voxels of its cube; cubes above {DENSE_MAX} voxels are not written (use .vox or .npy)", path.display())));
            }
            formats::stage(path, |w| formats::write_binvox_cube(w, grid, set))?
        }
        "vox" => formats::stage(path, |w| formats::write_vox(w, set))?,
        "npy" => {
            if dense_npy && grid.len() > DENSE_MAX {
                return Err(voxel::VoxelError::TooLarge(format!(
                    "{}: dense .npy of {} voxels is too large",
                    path.display(),
                    grid.len()
                )));
            }
            formats::stage(path, |w| formats::write_npy(w, set, dense_npy))?
        }
        _ => {
            return Err(voxel::VoxelError::Format(format!(
                "{}: unknown output format {ext:?} (use .binvox, .vox or .npy)",
                path.display()
            )))
        }
    };
    formats::commit_all(vec![staged])
}

/// A mesh (copied once) and its bounds index, for voxelizing tiles of a grid
/// ([`voxel::tile`]). Pickles as its arrays, so a Dask worker rebuilds the
/// index once when it receives it.
#[pyclass(module = "widephase._native", frozen)]
pub struct MeshIndex {
    mesh: Mesh,
    index: TileIndex,
}

#[pymethods]
impl MeshIndex {
    #[new]
    #[pyo3(signature = (vertices, faces, threads=None))]
    fn new(
        py: Python<'_>,
        vertices: PyReadonlyArray2<'_, f32>,
        faces: PyReadonlyArray2<'_, i32>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let r = mesh_ref(&vertices, &faces)?;
        let mesh = Mesh { vertices: r.vertices.to_vec(), indices: r.indices.to_vec() };
        let index = run(py, threads, || TileIndex::new(mesh.as_ref()))?.map_err(voxel_err)?;
        Ok(MeshIndex { mesh, index })
    }

    /// Pickles as `widephase.mesh_index(vertices, faces)`, which normalizes
    /// the arrays it gets back (out-of-band pickle buffers, as Dask sends
    /// them, need not arrive C-contiguous) and rebuilds the index.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, MeshArrays<'py>)> {
        let py = slf.py();
        let rebuild = py.import("widephase")?.getattr("mesh_index")?;
        Ok((rebuild, mesh_arrays(py, slf.get().mesh.clone())?))
    }

    /// Number of triangles.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.mesh.indices.len()
    }

    /// The mesh's bounding box `(min, max)`.
    #[getter]
    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let (lo, hi) = self.mesh.as_ref().bounds();
        (lo.to_array(), hi.to_array())
    }

    /// The chunk-aligned tiles of edge `size` that can hold voxels (a
    /// superset of those that do; every other tile is empty), as int64
    /// `(T, 2, 3)` rows `(lo, hi)`, x fastest. `base` and `offset` as in `Grid`.
    #[pyo3(signature = (origin, voxel_size, dims, size, base=None, offset=0))]
    #[allow(clippy::too_many_arguments)]
    fn occupied_tiles<'py>(
        &self,
        py: Python<'py>,
        origin: [f32; 3],
        voxel_size: f32,
        dims: [i64; 3],
        size: [i64; 3],
        base: Option<[f32; 3]>,
        offset: i64,
    ) -> PyResult<Bound<'py, PyArray3<i64>>> {
        let grid = grid_of(origin, voxel_size, dims, base, offset)?;
        let size = dims_u32(size, "size")?;
        let tiles = py.detach(|| self.index.occupied_tiles(&grid, size)).map_err(voxel_err)?;
        let flat: Vec<i64> =
            tiles.iter().flat_map(|t| t.lo.into_iter().chain(t.hi).map(|x| x as i64)).collect();
        flat.into_pyarray(py).reshape([tiles.len(), 2, 3])
    }

    /// The voxels of tile `[lo, hi)` of the grid `(origin, voxel_size,
    /// dims)` (with `base` and `offset` as in `Grid`): exactly the
    /// whole-grid answer inside the tile.
    #[pyo3(signature = (origin, voxel_size, dims, lo, hi, mode="surface", threads=None, base=None, offset=0))]
    #[allow(clippy::too_many_arguments)]
    fn voxelize_tile(
        &self,
        py: Python<'_>,
        origin: [f32; 3],
        voxel_size: f32,
        dims: [i64; 3],
        lo: [i64; 3],
        hi: [i64; 3],
        mode: &str,
        threads: Option<usize>,
        base: Option<[f32; 3]>,
        offset: i64,
    ) -> PyResult<TileGrid> {
        let mode = parse_mode(mode)?;
        let grid = grid_of(origin, voxel_size, dims, base, offset)?;
        let u = |v: [i64; 3]| v.map(|x| x.clamp(0, u32::MAX as i64) as u32);
        if lo.iter().chain(&hi).any(|&x| x < 0) {
            return Err(PyValueError::new_err(format!("tile {lo:?}..{hi:?} has a negative index")));
        }
        let tile = Tile { lo: u(lo), hi: u(hi) };
        let m = self.mesh.as_ref();
        let tv = run(py, threads, || voxel::voxelize_tile(m, &self.index, &grid, &tile, mode))?
            .map_err(voxel_err)?;
        Ok(TileGrid { tv })
    }
}

/// The voxels of one tile (`MeshIndex.voxelize_tile`).
#[pyclass(module = "widephase._native", frozen)]
pub struct TileGrid {
    tv: TileVoxels,
}

#[pymethods]
impl TileGrid {
    /// First voxel index of the tile on each axis.
    #[getter]
    fn lo(&self) -> (u32, u32, u32) {
        let [x, y, z] = self.tv.tile.lo;
        (x, y, z)
    }

    /// One past the last voxel index on each axis.
    #[getter]
    fn hi(&self) -> (u32, u32, u32) {
        let [x, y, z] = self.tv.tile.hi;
        (x, y, z)
    }

    /// Number of marked voxels.
    #[getter]
    fn count(&self) -> u64 {
        self.tv.count()
    }

    fn __repr__(&self) -> String {
        format!("TileGrid(lo={:?}, hi={:?}, count={})", self.lo(), self.hi(), self.count())
    }

    /// The marked voxels by their whole-grid indices, int32 `(K, 3)`, sorted
    /// by `(k, j, i)`.
    fn indices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let tile_voxels = self.tv.bits.dims.iter().map(|&d| d as u64).product::<u64>();
        result_fits(12 * tile_voxels, || 12 * self.tv.count(), "indices()")?;
        let flat: Vec<i32> =
            self.tv.indices().into_iter().flat_map(|v| v.map(|x| x as i32)).collect();
        let k = flat.len() / 3;
        flat.into_pyarray(py).reshape([k, 3])
    }

    /// The tile as a bool array of its own dims, indexed `[i, j, k]` from
    /// `lo`; written into `out` (of that shape, C-contiguous) when given.
    #[pyo3(signature = (out=None))]
    fn dense<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<bool>>> {
        let bits = &self.tv.bits;
        bool_array(py, bits.dims, out, |f| bits.for_each(f))
    }
}

/// A bool array of `dims`, indexed `[i, j, k]` (C order), holding the voxels
/// `each` visits: written into `out` when given (cleared first; it must have
/// that shape, be C-contiguous and writeable), else a new array. A kept
/// `out` spares a fresh allocation per call: under Dask's workers, whose
/// `MALLOC_TRIM_THRESHOLD_` makes glibc map and unmap every large buffer, a
/// fresh 256³ array cost 5.2 ms per tile, against 0.9 ms without that
/// setting.
fn bool_array<'py>(
    py: Python<'py>,
    dims: [u32; 3],
    out: Option<Bound<'py, PyAny>>,
    each: impl FnOnce(&mut dyn FnMut([u32; 3])) + Send,
) -> PyResult<Bound<'py, PyArray3<bool>>> {
    let [nx, ny, nz] = dims.map(|d| d as usize);
    let mark = |out: &mut [bool]| {
        each(&mut |[i, j, k]: [u32; 3]| {
            out[(i as usize * ny + j as usize) * nz + k as usize] = true
        })
    };
    let Some(out) = out else {
        let n = (nx * ny * nz) as u64;
        result_fits(n, || n, "dense()")?;
        let v = py.detach(|| {
            let mut v = vec![false; nx * ny * nz];
            mark(&mut v);
            v
        });
        return v.into_pyarray(py).reshape([nx, ny, nz]);
    };
    // (a wrong dtype is named here, not left to PyO3's conversion error)
    let out = out.cast_into::<PyArray3<bool>>().map_err(|e| {
        let given = e.into_inner();
        let got = match given.cast::<PyUntypedArray>() {
            Ok(a) => format!("dtype {} and shape {:?}", a.dtype(), a.shape()),
            Err(_) => format!("{}", given.get_type()),
        };
        PyTypeError::new_err(format!(
            "out: expected a bool array of shape ({nx}, {ny}, {nz}), got {got}"
        ))
    })?;
    if out.shape() != [nx, ny, nz] {
        return Err(PyValueError::new_err(format!(
            "out: expected a bool array of shape ({nx}, {ny}, {nz}), got shape {:?}",
            out.shape()
        )));
    }
    if !out.is_c_contiguous() {
        // (`as_slice_mut` also takes Fortran order, whose bytes are not
        // indexed `[i, j, k]` in C order)
        return Err(PyValueError::new_err("out: array is not C-contiguous"));
    }
    {
        let mut w = out
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("out: array is not writeable ({e})")))?;
        let s = w
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("out: array is not C-contiguous"))?;
        py.detach(|| {
            s.fill(false);
            mark(s)
        });
    }
    Ok(out)
}
