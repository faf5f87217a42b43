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
    use ply_rs::ply::{DefaultElement, Encoding};
    use std::io::BufRead;
    header_numbers_in_range(bytes, name)?;
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
    // Elements are turned into coordinates and index lists as they are read
    // (not kept as `ply-rs` maps: memory stays proportional to the file). A
    // problem converting one is kept and reported after the whole body has
    // been read, in the order the body errors, then the vertices, then the
    // faces would have been reported.
    let mut verts: Option<(Vec<Vec3>, Option<String>)> = None;
    // (corner lists flattened, with the corner count of each face)
    let mut faces: Option<(Vec<i64>, Vec<u32>, Option<(usize, String)>)> = None;
    let mut line = String::new();
    for (ename, def) in &header.elements {
        let is_vertex = ename == "vertex";
        let is_face = ename == "face";
        if is_vertex {
            // (a later element of the same name replaces an earlier one)
            verts = Some((Vec::with_capacity(def.count.min(bytes.len() / 3)), None));
        }
        if is_face {
            faces = Some((Vec::new(), Vec::with_capacity(def.count.min(bytes.len() / 4)), None));
        }
        let binary = header.encoding != Encoding::Ascii;
        if binary && def.properties.is_empty() {
            // nothing to read (and no end of file to stop a loop over a
            // huge count): only the first element's missing data matters
            if def.count > 0 {
                let empty = DefaultElement::new();
                if let Some((_, err)) = verts.as_mut().filter(|_| is_vertex) {
                    *err = vertex_problem(&empty, 0, name).err();
                }
                if let Some((_, _, err)) = faces.as_mut().filter(|_| is_face) {
                    *err = face_corners(&empty, 0, name).err().map(|e| (0, e));
                }
            }
            continue;
        }
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
            let e = r.map_err(VoxelError::Mesh)?;
            if is_vertex {
                let (vs, err) = verts.as_mut().expect("set above");
                if err.is_none() {
                    match vertex_problem(&e, i, name) {
                        Ok(v) => vs.push(v),
                        Err(m) => *err = Some(m),
                    }
                }
            } else if is_face {
                let (corners, lens, err) = faces.as_mut().expect("set above");
                if err.is_none() {
                    match face_corners(&e, i, name) {
                        Ok(list) => {
                            corners.extend_from_slice(&list);
                            lens.push(list.len() as u32);
                        }
                        Err(m) => *err = Some((i, m)),
                    }
                }
            }
        }
    }
    let (vertices, verr) =
        verts.ok_or_else(|| VoxelError::Mesh(format!("{name}: PLY has no vertex element")))?;
    if let Some(m) = verr {
        return Err(VoxelError::Mesh(m));
    }
    let mut m = Mesh { vertices, indices: Vec::new() };
    let (corners, lens, ferr) =
        faces.ok_or_else(|| VoxelError::Mesh(format!("{name}: PLY has no face element")))?;
    let n = m.vertices.len() as i64;
    let mut at = 0;
    for (t, &len) in lens.iter().enumerate() {
        let list = &corners[at..at + len as usize];
        at += len as usize;
        if list.len() < 3 {
            return Err(VoxelError::Mesh(format!("{name}: face {t}: {} corners", list.len())));
        }
        for &i in list {
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
    // (faces after a face that could not be converted were not kept)
    if let Some((_, msg)) = ferr {
        return Err(VoxelError::Mesh(msg));
    }
    Ok(m)
}

fn num(p: Option<&ply_rs::ply::Property>) -> Option<f64> {
    use ply_rs::ply::Property;
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
}

/// Vertex `i`'s position, or the message for a missing coordinate.
fn vertex_problem(v: &ply_rs::ply::DefaultElement, i: usize, name: &str) -> Result<Vec3, String> {
    let mut c = [0f32; 3];
    for (k, key) in ["x", "y", "z"].iter().enumerate() {
        c[k] = num(v.get(*key))
            .ok_or_else(|| format!("{name}: vertex {i}: missing numeric property {key}"))?
            as f32;
    }
    Ok(Vec3::from_array(c))
}

/// Face `t`'s corner list, or the message for a missing or non-integer one.
fn face_corners(f: &ply_rs::ply::DefaultElement, t: usize, name: &str) -> Result<Vec<i64>, String> {
    use ply_rs::ply::Property;
    let p = f
        .get("vertex_indices")
        .or_else(|| f.get("vertex_index"))
        .ok_or_else(|| format!("{name}: face {t}: no vertex_indices property"))?;
    Ok(match p {
        Property::ListInt(v) => v.iter().map(|&x| x as i64).collect(),
        Property::ListUInt(v) => v.iter().map(|&x| x as i64).collect(),
        Property::ListShort(v) => v.iter().map(|&x| x as i64).collect(),
        Property::ListUShort(v) => v.iter().map(|&x| x as i64).collect(),
        Property::ListChar(v) => v.iter().map(|&x| x as i64).collect(),
        Property::ListUChar(v) => v.iter().map(|&x| x as i64).collect(),
        _ => return Err(format!("{name}: face {t}: vertex_indices is not an integer list")),
    })
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

/// `ply-rs` panics on a header number (an element count, a version) beyond
/// `u64` (its grammar unwraps the parse): such a number is an error here,
/// naming its line, before the header reaches `ply-rs`.
fn header_numbers_in_range(bytes: &[u8], name: &str) -> Result<(), VoxelError> {
    for (k, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line == b"end_header" {
            break;
        }
        if !(line.starts_with(b"element") || line.starts_with(b"format")) {
            continue;
        }
        for run in line.split(|b| !b.is_ascii_digit()).filter(|r| !r.is_empty()) {
            let digits = std::str::from_utf8(run).unwrap_or("");
            if digits.parse::<u64>().is_err() {
                return Err(VoxelError::Mesh(format!(
                    "{name}:{}: invalid PLY header: number {digits} is out of range",
                    k + 1
                )));
            }
        }
    }
    Ok(())
}
