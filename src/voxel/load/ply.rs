//! PLY, ASCII and binary.

use crate::math::Vec3;
use crate::voxel::mesh::Mesh;
use crate::voxel::VoxelError;

/// Parses ASCII or binary PLY (via `ply-rs`): `vertex` elements with `x y z`
/// and `face` elements with a `vertex_indices` (or `vertex_index`) list.
///
/// The header goes through `ply-rs`; the body is read here element by element
/// with `ply-rs`'s per-element readers, so an error names the element and its
/// index (and, in ASCII files, the line), on one line (`ply-rs`'s own
/// messages span several lines with debug output).
pub fn parse_ply(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
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
