//! Triangle meshes: owned meshes, zero-copy views of caller buffers, and
//! validation with errors that name the file, line or element and the
//! problem. The file readers (OBJ, STL ASCII/binary, PLY) are in
//! [`super::load`]; their parsers are re-exported here.

use super::VoxelError;
use crate::math::Vec3;
use crate::shapes::Triangle;
#[cfg(feature = "loaders")]
use std::path::Path;

#[cfg(feature = "loaders")]
pub use super::load::{parse_obj, parse_ply, parse_stl, LoadReport};

/// An indexed triangle mesh that owns its buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub vertices: Vec<Vec3>,
    /// Triangles as three indices into `vertices`. Orientation is kept as the
    /// file gives it; no mode depends on it (solid mode uses parity).
    pub indices: Vec<[u32; 3]>,
}

/// A borrowed, validated view of an indexed mesh: no copy of the caller's data.
///
/// ```
/// use widephase::voxel::MeshRef;
/// let verts: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
/// let idx: [u32; 3] = [0, 1, 2];
/// let m = MeshRef::from_slices(&verts, &idx).unwrap();
/// assert_eq!(m.triangle_count(), 1);
/// assert!(MeshRef::from_slices(&verts, &[0, 1, 3]).is_err()); // index 3 out of range
/// ```
#[derive(Clone, Copy, Debug)]
pub struct MeshRef<'a> {
    /// Vertex positions.
    pub vertices: &'a [Vec3],
    /// Triangles.
    pub indices: &'a [[u32; 3]],
}

impl<'a> MeshRef<'a> {
    /// Views flat buffers (`x y z` per vertex, three indices per triangle)
    /// without copying (bytemuck casts) and validates them with
    /// [`MeshRef::validate`]. Errors when a length is not a multiple of 3, an
    /// index is out of range, or a referenced coordinate is not finite.
    pub fn from_slices(vertices: &'a [f32], indices: &'a [u32]) -> Result<Self, VoxelError> {
        if !vertices.len().is_multiple_of(3) {
            return Err(VoxelError::Mesh(format!(
                "vertex buffer has {} floats, not a multiple of 3",
                vertices.len()
            )));
        }
        if !indices.len().is_multiple_of(3) {
            return Err(VoxelError::Mesh(format!(
                "index buffer has {} entries, not a multiple of 3",
                indices.len()
            )));
        }
        let m = MeshRef {
            vertices: bytemuck::cast_slice(vertices),
            indices: bytemuck::cast_slice(indices),
        };
        m.validate("<buffers>")?;
        Ok(m)
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    /// Triangle `t` as three points.
    #[inline]
    pub fn triangle(&self, t: usize) -> Triangle {
        let [a, b, c] = self.indices[t];
        Triangle::new(
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        )
    }

    /// Checks that the mesh has a triangle, every index is in range and every
    /// referenced vertex is finite. `what` names the source in the error.
    pub fn validate(&self, what: &str) -> Result<(), VoxelError> {
        if self.indices.is_empty() {
            return Err(VoxelError::Mesh(format!("{what}: mesh has no triangles")));
        }
        let n = self.vertices.len();
        // Fast path (one pass over each array): every index in range and every
        // vertex finite. Otherwise the loop below names the first offending
        // triangle (unreferenced non-finite vertices are allowed).
        // (branch-free folds, so both passes vectorize: the largest index,
        // and the largest exponent field — all ones for inf and NaN)
        let max_index = self.indices.iter().flatten().fold(0u32, |m, &v| m.max(v));
        let max_exp = self
            .vertices
            .iter()
            .flat_map(|p| [p.x, p.y, p.z])
            .fold(0u32, |m, x| m.max(x.to_bits() & 0x7f80_0000));
        if (max_index as usize) < n && max_exp < 0x7f80_0000 {
            return Ok(());
        }
        for (t, tri) in self.indices.iter().enumerate() {
            for &v in tri {
                if v as usize >= n {
                    return Err(VoxelError::Mesh(format!(
                        "{what}: triangle {t} references vertex {v}, but there are only {n} vertices"
                    )));
                }
                let p = self.vertices[v as usize];
                if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
                    return Err(VoxelError::Mesh(format!(
                        "{what}: vertex {v} (used by triangle {t}) has a non-finite coordinate ({}, {}, {})",
                        p.x, p.y, p.z
                    )));
                }
            }
        }
        Ok(())
    }

    /// Bounding box `(min, max)` of the referenced vertices.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut mn = Vec3::splat(f32::INFINITY);
        let mut mx = Vec3::splat(f32::NEG_INFINITY);
        for tri in self.indices {
            for &v in tri {
                let p = self.vertices[v as usize];
                mn = mn.min(p);
                mx = mx.max(p);
            }
        }
        (mn, mx)
    }
}

impl Mesh {
    /// A borrowed view (no copy).
    pub fn as_ref(&self) -> MeshRef<'_> {
        MeshRef { vertices: &self.vertices, indices: &self.indices }
    }

    /// Loads a mesh by file extension (`.obj`, `.stl`, `.ply`, case-insensitive)
    /// and validates it. Errors name the file and, where known, the line or
    /// element. [`Mesh::load_with_report`] also says what the reader skipped.
    #[cfg(feature = "loaders")]
    pub fn load(path: &Path) -> Result<Mesh, VoxelError> {
        Self::load_with_report(path).map(|(m, _)| m)
    }

    /// [`Mesh::load`], plus what the reader skipped or changed (unknown OBJ
    /// statements, ear-clipped polygons): [`LoadReport::warnings`] has one
    /// line per kind, for a caller to print.
    #[cfg(feature = "loaders")]
    pub fn load_with_report(path: &Path) -> Result<(Mesh, LoadReport), VoxelError> {
        let (mesh, report) = super::load::load_file(path)?;
        mesh.as_ref().validate(&path.display().to_string())?;
        Ok((mesh, report))
    }
}
