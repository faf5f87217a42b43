//! The loaders as they were before the parallel OBJ parser and the cast-based
//! binary readers: a line loop for OBJ, `stl_io` for STL, `ply-rs` element
//! readers for PLY. Kept verbatim as the test oracle: the new readers must
//! give the same vertices, triangles and error messages on every file where
//! the old behaviour is still the intended one (not for BOMs, unknown
//! statements, concave polygons or non-finite STL coordinates, which the
//! new readers handle on purpose differently).
#![allow(dead_code, clippy::all)]

use widephase::voxel::{Mesh, VoxelError};
use widephase::Vec3;

/// Parses Wavefront OBJ text (`v` and `f` records; other records ignored).
/// Faces with more than three corners are fanned; `a/b/c` corner forms and
/// negative (relative) indices are accepted. Errors give `name:line`.
///
/// The text is decoded line by line: a `#` comment (whole-line or trailing)
/// is dropped before decoding, so stray non-UTF-8 bytes in comments (common
/// in exporter banners) are harmless; invalid bytes anywhere else are an
/// error naming the line and column.
pub fn old_parse_obj(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
    let mut m = Mesh::default();
    let mut face: Vec<u32> = Vec::with_capacity(8);
    for (ln, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = ln + 1;
        let err = |msg: String| VoxelError::Mesh(format!("{name}:{line_no}: {msg}"));
        let code = match raw.iter().position(|&b| b == b'#') {
            Some(c) => &raw[..c],
            None => raw,
        };
        let line = std::str::from_utf8(code).map_err(|e| {
            err(format!("invalid UTF-8 byte at column {} (outside a comment)", e.valid_up_to() + 1))
        })?;
        let mut it = line.split_ascii_whitespace();
        match it.next() {
            Some("v") => {
                let mut c = [0f32; 3];
                for (k, ck) in c.iter_mut().enumerate() {
                    let tok = it
                        .next()
                        .ok_or_else(|| err(format!("vertex has {k} coordinates, needs 3")))?;
                    *ck = tok.parse().map_err(|_| err(format!("bad vertex coordinate {tok:?}")))?;
                    if !ck.is_finite() {
                        return Err(err(format!("vertex coordinate {tok:?} is not finite")));
                    }
                }
                m.vertices.push(Vec3::from_array(c));
            }
            Some("f") => {
                face.clear();
                for tok in it {
                    let first = tok.split('/').next().unwrap_or("");
                    let i: i64 =
                        first.parse().map_err(|_| err(format!("bad face index {tok:?}")))?;
                    let n = m.vertices.len() as i64;
                    let idx = if i > 0 { i - 1 } else { n + i };
                    if i == 0 || idx < 0 || idx >= n {
                        return Err(err(format!(
                            "face index {i} is out of range (1..={n} vertices defined so far)"
                        )));
                    }
                    face.push(idx as u32);
                }
                if face.len() < 3 {
                    return Err(err(format!("face has {} corners, needs at least 3", face.len())));
                }
                for k in 1..face.len() - 1 {
                    m.indices.push([face[0], face[k], face[k + 1]]);
                }
            }
            _ => {}
        }
    }
    Ok(m)
}

/// Parses binary or ASCII STL (via `stl_io`); equal vertices are merged by the
/// reader. Errors name the file and the line (ASCII) or facet (binary).
///
/// `stl_io` reports neither: a truncated binary file comes back as "failed
/// to fill whole buffer" and an ASCII error carries no position. So the
/// binary size is checked first against the header's facet count
/// (84 + 50·n bytes), and when `stl_io` rejects an ASCII file its lines are
/// scanned here (`ascii_stl_problem`) to name the first bad one.
pub fn old_parse_stl(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
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

/// Parses ASCII or binary PLY (via `ply-rs`): `vertex` elements with `x y z`
/// and `face` elements with a `vertex_indices` (or `vertex_index`) list.
///
/// The header goes through `ply-rs`; the body is read here element by element
/// with `ply-rs`'s per-element readers, so an error names the element and its
/// index (and, in ASCII files, the line), on one line (`ply-rs`'s own
/// messages span several lines with debug output).
pub fn old_parse_ply(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
    use ply_rs::parser::Parser;
    use ply_rs::ply::{DefaultElement, Encoding, Property};
    use std::io::BufRead;
    let mut cur = std::io::Cursor::new(bytes);
    let parser = Parser::<DefaultElement>::new();
    let header = parser.read_header(&mut cur).map_err(|e| {
        let msg = ply_message(&e.to_string());
        // ply-rs counts header lines from 1 and says "Line N: …"
        VoxelError::Mesh(match msg.strip_prefix("Line ").and_then(|r| r.split_once(": ")) {
            Some((n, rest)) if n.parse::<usize>().is_ok() => {
                format!("{name}:{n}: invalid PLY header: {rest}")
            }
            _ => format!("{name}: invalid PLY header: {msg}"),
        })
    })?;
    let mut line_no = bytes[..cur.position() as usize].iter().filter(|&&b| b == b'\n').count();
    let mut payload: std::collections::HashMap<String, Vec<DefaultElement>> = Default::default();
    let mut line = String::new();
    for (ename, def) in &header.elements {
        let mut elems = Vec::with_capacity(def.count.min(1 << 20));
        for i in 0..def.count {
            let r = match header.encoding {
                Encoding::Ascii => {
                    line.clear();
                    line_no += 1;
                    let n = cur.read_line(&mut line).map_err(|e| {
                        VoxelError::Mesh(format!("{name}:{line_no}: {ename} {i}: {e}"))
                    })?;
                    if n == 0 {
                        return Err(VoxelError::Mesh(format!(
                            "{name}: file ends at {ename} {i}; the header declares {} {ename} elements",
                            def.count
                        )));
                    }
                    parser.read_ascii_element(&line, def).map_err(|e| {
                        format!(
                            "{name}:{line_no}: {ename} {i}: {} in {:?}",
                            ply_message(&e.to_string()).trim_end_matches('.'),
                            line.trim()
                        )
                    })
                }
                Encoding::BinaryLittleEndian | Encoding::BinaryBigEndian => {
                    let r = if header.encoding == Encoding::BinaryBigEndian {
                        parser.read_big_endian_element(&mut cur, def)
                    } else {
                        parser.read_little_endian_element(&mut cur, def)
                    };
                    // (ply-rs reports a list cut short by the end of the
                    // file as a missing list element, not as an EOF)
                    let at_end = cur.position() as usize >= bytes.len();
                    r.map_err(|e| {
                        if at_end || e.kind() == std::io::ErrorKind::UnexpectedEof {
                            format!(
                                "{name}: truncated binary PLY: file ends inside {ename} {i}; the header declares {} {ename} elements",
                                def.count
                            )
                        } else {
                            format!("{name}: {ename} {i}: {}", ply_message(&e.to_string()))
                        }
                    })
                }
            };
            elems.push(r.map_err(VoxelError::Mesh)?);
        }
        payload.insert(ename.clone(), elems);
    }
    let num = |p: Option<&Property>| -> Option<f64> {
        match p? {
            Property::Float(x) => Some(*x as f64),
            Property::Double(x) => Some(*x),
            Property::Int(x) => Some(*x as f64),
            Property::UInt(x) => Some(*x as f64),
            Property::Short(x) => Some(*x as f64),
            Property::UShort(x) => Some(*x as f64),
            Property::Char(x) => Some(*x as f64),
            Property::UChar(x) => Some(*x as f64),
            _ => None,
        }
    };
    let mut m = Mesh::default();
    let verts = payload
        .get("vertex")
        .ok_or_else(|| VoxelError::Mesh(format!("{name}: PLY has no vertex element")))?;
    for (i, v) in verts.iter().enumerate() {
        let mut c = [0f32; 3];
        for (k, key) in ["x", "y", "z"].iter().enumerate() {
            c[k] = num(v.get(*key)).ok_or_else(|| {
                VoxelError::Mesh(format!("{name}: vertex {i}: missing numeric property {key}"))
            })? as f32;
        }
        m.vertices.push(Vec3::from_array(c));
    }
    let faces = payload
        .get("face")
        .ok_or_else(|| VoxelError::Mesh(format!("{name}: PLY has no face element")))?;
    for (t, f) in faces.iter().enumerate() {
        let p = f.get("vertex_indices").or_else(|| f.get("vertex_index")).ok_or_else(|| {
            VoxelError::Mesh(format!("{name}: face {t}: no vertex_indices property"))
        })?;
        let list: Vec<i64> = match p {
            Property::ListInt(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUInt(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListShort(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUShort(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListChar(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUChar(v) => v.iter().map(|&x| x as i64).collect(),
            _ => {
                return Err(VoxelError::Mesh(format!(
                    "{name}: face {t}: vertex_indices is not an integer list"
                )))
            }
        };
        if list.len() < 3 {
            return Err(VoxelError::Mesh(format!("{name}: face {t}: {} corners", list.len())));
        }
        let n = m.vertices.len() as i64;
        for &i in &list {
            if i < 0 || i >= n {
                return Err(VoxelError::Mesh(format!(
                    "{name}: face {t}: vertex index {i} out of range (0..{n})"
                )));
            }
        }
        for k in 1..list.len() - 1 {
            m.indices.push([list[0] as u32, list[k] as u32, list[k + 1] as u32]);
        }
    }
    Ok(m)
}

/// One line from a `ply-rs` message: its lines joined, the `String: '…'`
/// echo of the input line and the `Error: …` debug dump dropped, the parsed
/// `Value: 'x'` kept ("Parse error. Value: 'x'").
fn ply_message(msg: &str) -> String {
    let parts: Vec<&str> = msg
        .lines()
        .map(str::trim)
        // (the echoed line may end in its own newline: a lone `'` follows)
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .filter(|l| !l.starts_with("String:") && !l.starts_with("Error:"))
        .collect();
    parts.join(" ").trim_end_matches([',', ' ']).to_string()
}
