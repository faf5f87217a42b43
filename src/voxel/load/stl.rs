//! STL, ASCII and binary.

use crate::math::Vec3;
use crate::voxel::mesh::Mesh;
use crate::voxel::VoxelError;

/// Parses binary or ASCII STL (via `stl_io`); equal vertices are merged by the
/// reader. Errors name the file and the line (ASCII) or facet (binary).
///
/// `stl_io` reports neither: a truncated binary file comes back as "failed
/// to fill whole buffer" and an ASCII error carries no position. So the
/// binary size is checked first against the header's facet count
/// (84 + 50·n bytes), and when `stl_io` rejects an ASCII file its lines are
/// scanned here (`ascii_stl_problem`) to name the first bad one.
pub fn parse_stl(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
    // (the same test as `stl_io`'s probe: ASCII iff the file starts "solid ")
    let ascii = bytes.starts_with(b"solid ");
    if !ascii {
        if bytes.len() < 84 {
            return Err(VoxelError::Mesh(format!(
                "{name}: not an ASCII STL (no \"solid \" line) and {} bytes is shorter than a binary STL's 84-byte header",
                bytes.len()
            )));
        }
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
        let expected = 84 + 50 * n;
        if (bytes.len() as u64) < expected {
            return Err(VoxelError::Mesh(format!(
                "{name}: truncated binary STL: the header declares {n} facets ({expected} bytes) but the file has {} bytes ({} complete facets)",
                bytes.len(),
                (bytes.len() as u64 - 84) / 50
            )));
        }
    }
    let mut cur = std::io::Cursor::new(bytes);
    let im = stl_io::read_stl(&mut cur).map_err(|e| {
        VoxelError::Mesh(match ascii.then(|| ascii_stl_problem(bytes)).flatten() {
            Some((line, msg)) => format!("{name}:{line}: invalid ASCII STL: {msg}"),
            None => format!("{name}: invalid {} STL: {e}", if ascii { "ASCII" } else { "binary" }),
        })
    })?;
    let vertices = im.vertices.iter().map(|v| Vec3::new(v[0], v[1], v[2])).collect();
    let mut indices = Vec::with_capacity(im.faces.len());
    for (t, f) in im.faces.iter().enumerate() {
        let ix = f.vertices;
        let mut out = [0u32; 3];
        for k in 0..3 {
            out[k] = u32::try_from(ix[k])
                .map_err(|_| VoxelError::Mesh(format!("{name}: facet {t}: index too large")))?;
        }
        indices.push(out);
    }
    Ok(Mesh { vertices, indices })
}

/// The first line (1-based) of an ASCII STL that breaks the grammar
/// `solid … (facet normal x y z / outer loop / vertex x y z ×3 / endloop /
/// endfacet)* endsolid`, and what is wrong with it; `None` if the scan finds
/// nothing (the caller then reports `stl_io`'s message).
fn ascii_stl_problem(bytes: &[u8]) -> Option<(usize, String)> {
    // states: 0 between facets, 1 after "facet", 2 after "outer loop" (with
    // `verts` vertices), 3 after "endloop", 4 after "endsolid"
    let (mut state, mut verts, mut last) = (0, 0, 1);
    let floats = |it: &mut std::str::SplitAsciiWhitespace<'_>, what: &str| -> Result<(), String> {
        for k in 0..3 {
            let t = it.next().ok_or_else(|| format!("{what} has {k} coordinates, needs 3"))?;
            t.parse::<f32>().map_err(|_| format!("bad {what} coordinate {t:?}"))?;
        }
        Ok(())
    };
    for (ln, raw) in bytes.split(|&b| b == b'\n').enumerate().skip(1) {
        let line_no = ln + 1;
        let Ok(line) = std::str::from_utf8(raw) else {
            return Some((line_no, "not UTF-8 text".into()));
        };
        let mut it = line.split_ascii_whitespace();
        let Some(kw) = it.next() else { continue };
        last = line_no;
        let r = match (state, kw) {
            (0, "facet") => match it.next() {
                Some("normal") => floats(&mut it, "normal").map(|_| state = 1),
                _ => Err("expected \"facet normal x y z\"".into()),
            },
            (0, "endsolid") => {
                state = 4;
                Ok(())
            }
            (1, "outer") => {
                verts = 0;
                state = 2;
                Ok(())
            }
            (2, "vertex") if verts < 3 => floats(&mut it, "vertex").map(|_| verts += 1),
            (2, "vertex") => Err("a facet has more than 3 vertices".into()),
            (2, "endloop") if verts == 3 => {
                state = 3;
                Ok(())
            }
            (2, "endloop") => Err(format!("a facet has {verts} vertices, needs 3")),
            (3, "endfacet") => {
                state = 0;
                Ok(())
            }
            (4, _) => Err("text after endsolid".into()),
            _ => Err(format!(
                "unexpected {kw:?} (expected {})",
                ["facet or endsolid", "outer loop", "vertex or endloop", "endfacet", ""][state]
            )),
        };
        if let Err(m) = r {
            return Some((line_no, m));
        }
    }
    (state != 4 && state != 0).then(|| (last, "file ends inside a facet".to_string()))
}

