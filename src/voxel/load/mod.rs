//! Mesh file readers: Wavefront OBJ, STL (ASCII and binary), PLY (ASCII
//! and binary) and glTF 2.0 (`.gltf`, `.glb`), chosen by file extension.
//! Each returns the vertices and triangles in file order and a
//! [`LoadReport`] of what it skipped; errors name the file and the line
//! (text), element (binary) or glTF object.

mod gltf;
mod obj;
mod ply;
mod polygon;
mod stl;

pub use self::gltf::parse_gltf;
#[doc(hidden)]
pub use obj::parse_obj_chunked;
pub use obj::{parse_obj, parse_obj_with_report};
pub use ply::parse_ply;
pub use polygon::MAX_CLIPPED_CORNERS;
pub use stl::parse_stl;

use super::mesh::Mesh;
use super::VoxelError;
use std::path::Path;

/// What a reader skipped or changed while loading a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// `"OBJ"`, `"STL"`, `"PLY"`, `"glTF"` or `"GLB"`.
    pub format: &'static str,
    /// OBJ statements that the OBJ specification does not define (skipped).
    pub unknown_statements: usize,
    /// The first of them: its line and keyword.
    pub first_unknown: Option<(usize, String)>,
    /// OBJ points, lines and free-form curves or surfaces, glTF point and
    /// line primitives (skipped: only faces are read).
    pub unsupported_elements: usize,
    /// Concave OBJ polygons, ear-clipped instead of fanned.
    pub concave_polygons: usize,
}

impl LoadReport {
    /// One line per kind of thing skipped or changed, empty when nothing was.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if let Some((line, kw)) = &self.first_unknown {
            w.push(format!(
                "skipped {} unknown {} statement{} (the first, {kw:?}, on line {line})",
                self.unknown_statements,
                self.format,
                if self.unknown_statements == 1 { "" } else { "s" }
            ));
        }
        if self.unsupported_elements > 0 {
            w.push(format!(
                "skipped {} point, line or free-form element{} (only faces are read)",
                self.unsupported_elements,
                if self.unsupported_elements == 1 { "" } else { "s" }
            ));
        }
        if self.concave_polygons > 0 {
            w.push(format!(
                "ear-clipped {} concave polygon{}",
                self.concave_polygons,
                if self.concave_polygons == 1 { "" } else { "s" }
            ));
        }
        w
    }
}

/// Reads and parses `path` by its extension (not validated: see
/// [`Mesh::load_with_report`]).
pub(crate) fn load_file(path: &Path) -> Result<(Mesh, LoadReport), VoxelError> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let known = matches!(ext.as_str(), "obj" | "stl" | "ply" | "gltf" | "glb");
    if !known {
        return Err(VoxelError::Mesh(format!(
            "{name}: unknown mesh extension {ext:?} (expected .obj, .stl, .ply, .gltf or .glb)"
        )));
    }
    let bytes = read_file(path).map_err(|e| VoxelError::Io(format!("{name}: {e}")))?;
    Ok(match ext.as_str() {
        "obj" => parse_obj_with_report(&bytes, &name)?,
        "stl" => (parse_stl(&bytes, &name)?, LoadReport { format: "STL", ..Default::default() }),
        "gltf" | "glb" => parse_gltf(&bytes, &name, Some(path.parent().unwrap_or(Path::new("."))))?,
        _ => (parse_ply(&bytes, &name)?, LoadReport { format: "PLY", ..Default::default() }),
    })
}

/// Reads a whole file into a buffer on huge pages ([`crate::mem::HugeBuf`]:
/// the copy out of the page cache and the page faults of the fresh buffer
/// are most of a read's time). Large files on Unix are read in pieces by
/// the rayon threads (positioned reads into disjoint parts of the buffer),
/// so they split across cores like the parsing.
fn read_file(path: &Path) -> std::io::Result<crate::mem::HugeBuf<u8>> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len < isize::MAX as u64 {
        let mut buf = crate::mem::HugeBuf::<u8>::zeroed(len as usize);
        #[cfg(unix)]
        let read = {
            use rayon::prelude::*;
            use std::os::unix::fs::FileExt;
            const PIECE: usize = 4 << 20;
            buf.par_chunks_mut(PIECE)
                .enumerate()
                .try_for_each(|(k, piece)| file.read_exact_at(piece, (k * PIECE) as u64))
        };
        #[cfg(not(unix))]
        let read = std::io::Read::read_exact(&mut &file, &mut buf);
        // (a file that changed size meanwhile is read again in one go, with
        // its end found by reading)
        let mut probe = [0u8];
        #[cfg(unix)]
        let at_end = {
            use std::os::unix::fs::FileExt;
            file.read_at(&mut probe, len).ok() == Some(0)
        };
        #[cfg(not(unix))]
        let at_end = std::io::Read::read(&mut &file, &mut probe).ok() == Some(0);
        if read.is_ok() && at_end {
            return Ok(buf);
        }
    }
    std::fs::read(path).map(Into::into)
}
