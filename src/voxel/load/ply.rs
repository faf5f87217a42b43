//! PLY, ASCII and binary.

use crate::math::Vec3;
use crate::voxel::mesh::Mesh;
use crate::voxel::VoxelError;

/// Parses ASCII or binary PLY (via `ply-rs`): `vertex` elements with `x y z`
/// and `face` elements with a `vertex_indices` (or `vertex_index`) list.
///
/// The header goes through `ply-rs`. A body of the usual layout (elements of
/// scalar properties, and a face element of one integer list, with an
/// unsigned count in binary files) is read straight from the bytes: binary at
/// fixed offsets (`binary_fast`), ASCII line by line in `ply-rs`'s data-line
/// grammar (`ascii_fast`); anything else, and every error, goes through `ply-rs`'s
/// per-element readers, so an error names the element and its index (and,
/// in ASCII files, the line), on one line (`ply-rs`'s own messages span
/// several lines with debug output).
pub fn parse_ply(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
    use ply_rs::parser::Parser;
    use ply_rs::ply::{DefaultElement, Encoding};
    use std::io::BufRead;
    let parser = Parser::<DefaultElement>::new();
    let header_error = |e: std::io::Error| {
        let msg = ply_message(&e.to_string());
        // ply-rs counts header lines from 1 and says "Line N: …"
        VoxelError::Mesh(match msg.strip_prefix("Line ").and_then(|r| r.split_once(": ")) {
            Some((n, rest)) if n.parse::<usize>().is_ok() => {
                format!("{name}:{n}: invalid PLY header: {rest}")
            }
            _ => format!("{name}: invalid PLY header: {msg}"),
        })
    };
    if let Some((line, at, digits)) = header_number_out_of_range(bytes) {
        // the header up to that line: an earlier error is the one to report
        // (`ply-rs` would stop there); else the number
        let e = parser.read_header(&mut std::io::Cursor::new(&bytes[..at])).map(|_| ());
        let earlier = e.err().map(header_error).filter(|e| {
            let VoxelError::Mesh(m) = e else { return false };
            let n = m.strip_prefix(name).and_then(|r| r.strip_prefix(':'));
            let n = n.and_then(|r| r.split(':').next()).and_then(|n| n.parse::<usize>().ok());
            n.is_some_and(|n| n < line)
        });
        return Err(earlier.unwrap_or_else(|| {
            VoxelError::Mesh(format!(
                "{name}:{line}: invalid PLY header: number {digits} is out of range"
            ))
        }));
    }
    let mut cur = std::io::Cursor::new(bytes);
    let header = parser.read_header(&mut cur).map_err(header_error)?;
    let body = &bytes[cur.position() as usize..];
    let fast = match header.encoding {
        Encoding::Ascii => ascii_fast(body, &header.elements),
        e => binary_fast(body, &header.elements, e == Encoding::BinaryBigEndian),
    };
    if let Some(m) = fast {
        return Ok(m);
    }
    let mut line_no = bytes[..cur.position() as usize].iter().filter(|&&b| b == b'\n').count();
    // Elements are turned into coordinates and index lists as they are read
    // (not kept as `ply-rs` maps: memory stays proportional to the file). A
    // problem converting one is kept and reported after the whole body has
    // been read, in the order the body errors, then the vertices, then the
    // faces would have been reported.
    let mut verts: Option<(Vec<Vec3>, Option<String>)> = None;
    let mut faces: Option<FaceLists> = None;
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

/// `ply-rs` panics on a header number beyond `u64` (an element count or a
/// format version: its grammar unwraps the parse as soon as the number
/// matches). The first such number: its line (1-based), the byte offset
/// where that line starts, and its digits.
fn header_number_out_of_range(bytes: &[u8]) -> Option<(usize, usize, String)> {
    let mut start = 0;
    for (k, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let at = start;
        start += line.len() + 1;
        if line.starts_with(b"end_header") || std::str::from_utf8(line).is_err() {
            // (the header ends; or ply-rs stops at a line that is not text)
            break;
        }
        if let Some(d) = grammar_uint_overflow(line) {
            return Some((k + 1, at, d));
        }
    }
    None
}

/// The `uint`s of `ply-rs`'s grammar on one header line (`format ENC
/// MAJ.MIN`, `element NAME COUNT`, spaces being runs of ' ' and '\t'): the
/// first one that does not fit a `u64`.
fn grammar_uint_overflow(line: &[u8]) -> Option<String> {
    fn spaces(l: &[u8]) -> Option<&[u8]> {
        let n = l.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        (n > 0).then(|| &l[n..])
    }
    fn uint(l: &[u8]) -> (&[u8], &[u8]) {
        let n = l.iter().take_while(|b| b.is_ascii_digit()).count();
        (&l[..n], &l[n..])
    }
    let big = |run: &[u8]| {
        let d = std::str::from_utf8(run).unwrap_or("");
        (!run.is_empty() && d.parse::<u64>().is_err()).then(|| d.to_string())
    };
    if let Some(r) = line.strip_prefix(b"format") {
        let r = spaces(r)?;
        let enc = [&b"ascii"[..], b"binary_big_endian", b"binary_little_endian"];
        let r = enc.iter().find_map(|e| r.strip_prefix(*e))?;
        let (maj, r) = uint(spaces(r)?);
        if maj.is_empty() {
            return None;
        }
        return big(maj).or_else(|| big(uint(r.strip_prefix(b".")?).0));
    }
    let r = spaces(line.strip_prefix(b"element")?)?;
    r.first().filter(|b| b.is_ascii_alphabetic() || **b == b'_')?;
    let n = r.iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')).count();
    big(uint(spaces(&r[n..])?).0)
}

/// Face corner lists flattened, the corner count of each face, and the first
/// face that could not be converted (its index and message).
type FaceLists = (Vec<i64>, Vec<u32>, Option<(usize, String)>);

/// Bytes of one scalar.
fn scalar_size(t: &ply_rs::ply::ScalarType) -> usize {
    use ply_rs::ply::ScalarType::*;
    match t {
        Char | UChar => 1,
        Short | UShort => 2,
        Int | UInt | Float => 4,
        Double => 8,
    }
}

/// The scalar at the start of `b` as `f64` (as `ply-rs` reads it, then the
/// slow path converts it: integers exactly, floats widened).
#[inline]
fn scalar(b: &[u8], t: &ply_rs::ply::ScalarType, big: bool) -> f64 {
    use ply_rs::ply::ScalarType::*;
    let w2 = [b[0], b[1 % b.len()]];
    let w4 = |b: &[u8]| {
        let a = [b[0], b[1], b[2], b[3]];
        if big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    };
    let s2 = if big { u16::from_be_bytes(w2) } else { u16::from_le_bytes(w2) };
    match t {
        Char => b[0] as i8 as f64,
        UChar => b[0] as f64,
        Short => s2 as i16 as f64,
        UShort => s2 as f64,
        Int => w4(b) as i32 as f64,
        UInt => w4(b) as f64,
        Float => f32::from_bits(w4(b)) as f64,
        Double => {
            let a = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
            f64::from_bits(if big { u64::from_be_bytes(a) } else { u64::from_le_bytes(a) })
        }
    }
}

/// A binary body read from fixed offsets; `None` when its layout is not the
/// usual one or anything is wrong (the caller then reads it element by
/// element for the exact message). Equal to that reading when `Some`.
fn binary_fast(
    body: &[u8],
    elements: &ply_rs::ply::KeyMap<ply_rs::ply::ElementDef>,
    big: bool,
) -> Option<Mesh> {
    use ply_rs::ply::{PropertyType, ScalarType};
    let mut at = 0usize;
    let mut vertices: Option<Vec<Vec3>> = None;
    let mut faces: Option<Vec<[u32; 3]>> = None;
    let int = |t: &ScalarType| !matches!(t, ScalarType::Float | ScalarType::Double);
    for (ename, def) in elements {
        let props: Vec<_> = def.properties.values().collect();
        let scalars: Option<Vec<&ScalarType>> = props
            .iter()
            .map(|p| match &p.data_type {
                PropertyType::Scalar(t) => Some(t),
                PropertyType::List(..) => None,
            })
            .collect();
        if let Some(types) = scalars {
            let stride: usize = types.iter().map(|t| scalar_size(t)).sum();
            let len = stride.checked_mul(def.count)?;
            let data = body.get(at..at.checked_add(len)?)?;
            at += len;
            if ename == "vertex" {
                // (offsets of x, y, z; a missing one is the slow path's error)
                let mut off = [None; 3];
                let mut o = 0;
                for (p, t) in props.iter().zip(&types) {
                    if let Some(k) = ["x", "y", "z"].iter().position(|&n| n == p.name) {
                        off[k] = Some((o, *t));
                    }
                    o += scalar_size(t);
                }
                let [Some(x), Some(y), Some(z)] = off else { return None };
                let mut v = Vec::with_capacity(data.len() / stride.max(1));
                if stride > 0 {
                    for r in data.chunks_exact(stride) {
                        let c = |(o, t): (usize, &ScalarType)| scalar(&r[o..], t, big) as f32;
                        v.push(Vec3::new(c(x), c(y), c(z)));
                    }
                }
                vertices = Some(v);
            } else if ename == "face" {
                return None;
            }
            continue;
        }
        // a face element of exactly one integer list with an unsigned count
        let [p] = props[..] else { return None };
        let PropertyType::List(ct, it) = &p.data_type else { return None };
        let unsigned = matches!(ct, ScalarType::UChar | ScalarType::UShort | ScalarType::UInt);
        let named = p.name == "vertex_indices" || p.name == "vertex_index";
        if ename != "face" || !named || !unsigned || !int(it) {
            return None;
        }
        let (cs, is) = (scalar_size(ct), scalar_size(it));
        let mut corners = Vec::new();
        let mut tris = Vec::with_capacity(def.count.min(body.len() / 4));
        for _ in 0..def.count {
            let n = scalar(body.get(at..at + cs)?, ct, big) as usize;
            at += cs;
            let list = body.get(at..at.checked_add(n.checked_mul(is)?)?)?;
            at += list.len();
            if n < 3 {
                return None;
            }
            corners.clear();
            for b in list.chunks_exact(is) {
                let i = scalar(b, it, big);
                // (range against the vertex count after the loop)
                if !(0.0..u32::MAX as f64).contains(&i) {
                    return None;
                }
                corners.push(i as u32);
            }
            for k in 1..n - 1 {
                tris.push([corners[0], corners[k], corners[k + 1]]);
            }
        }
        faces = Some(tris);
    }
    let vertices = vertices?;
    let indices = faces?;
    let n = vertices.len() as u32;
    if indices.iter().flatten().any(|&i| i >= n) {
        return None;
    }
    Some(Mesh { vertices, indices })
}

/// One ASCII data line in `ply-rs`'s grammar (`data_line`: numbers
/// `[-+]?[0-9]+(.[0-9]+)?(e[-+]?[0-9]+)?` separated by runs of ' ' and '\t',
/// optional spaces around, an optional line break): its tokens into `out`,
/// or `false` when the grammar rejects the line.
fn data_line<'a>(line: &'a [u8], out: &mut Vec<&'a [u8]>) -> bool {
    out.clear();
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    for t in line.split(|&b| b == b' ' || b == b'\t').filter(|t| !t.is_empty()) {
        let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut r = t.strip_prefix(b"-").or_else(|| t.strip_prefix(b"+")).unwrap_or(t);
        let n = digits(r);
        if n == 0 {
            return false;
        }
        r = &r[n..];
        if let Some(f) = r.strip_prefix(b".") {
            let n = digits(f);
            if n == 0 {
                return false;
            }
            r = &f[n..];
        }
        if let Some(e) = r.strip_prefix(b"e") {
            let e = e.strip_prefix(b"-").or_else(|| e.strip_prefix(b"+")).unwrap_or(e);
            let n = digits(e);
            if n == 0 {
                return false;
            }
            r = &e[n..];
        }
        if !r.is_empty() {
            return false;
        }
        out.push(t);
    }
    true
}

/// An ASCII token as `ply-rs` reads a scalar of type `t` (`FromStr` of
/// the Rust type), widened to `f64` as the slow path converts it.
fn ascii_scalar(tok: &[u8], t: &ply_rs::ply::ScalarType) -> Option<f64> {
    use ply_rs::ply::ScalarType::*;
    let s = std::str::from_utf8(tok).ok()?;
    Some(match t {
        Char => s.parse::<i8>().ok()? as f64,
        UChar => s.parse::<u8>().ok()? as f64,
        Short => s.parse::<i16>().ok()? as f64,
        UShort => s.parse::<u16>().ok()? as f64,
        Int => s.parse::<i32>().ok()? as f64,
        UInt => s.parse::<u32>().ok()? as f64,
        Float => match fast_float2::parse::<f32, _>(tok) {
            Ok(x) => x as f64,
            Err(_) => s.parse::<f32>().ok()? as f64,
        },
        Double => match fast_float2::parse::<f64, _>(tok) {
            Ok(x) => x,
            Err(_) => s.parse::<f64>().ok()?,
        },
    })
}

/// An ASCII body read line by line; `None` as for [`binary_fast`].
fn ascii_fast(
    body: &[u8],
    elements: &ply_rs::ply::KeyMap<ply_rs::ply::ElementDef>,
) -> Option<Mesh> {
    use ply_rs::ply::PropertyType;
    let mut lines = body.split_inclusive(|&b| b == b'\n');
    let mut vertices: Option<Vec<Vec3>> = None;
    let mut faces: Option<Vec<[u32; 3]>> = None;
    let mut toks = Vec::new();
    let mut corners = Vec::new();
    for (ename, def) in elements {
        let props: Vec<_> = def.properties.values().collect();
        let is_vertex = ename == "vertex";
        let is_face = ename == "face";
        let lists = props.iter().filter(|p| matches!(p.data_type, PropertyType::List(..))).count();
        // a list only as the face's one property
        if lists > 0 && !(is_face && props.len() == 1) || is_face && lists == 0 {
            return None;
        }
        let xyz = if is_vertex {
            let at = |n: &str| props.iter().position(|p| p.name == n);
            Some([at("x")?, at("y")?, at("z")?])
        } else {
            None
        };
        if is_face {
            let p = props[0];
            let PropertyType::List(_, it) = &p.data_type else { return None };
            let int =
                !matches!(it, ply_rs::ply::ScalarType::Float | ply_rs::ply::ScalarType::Double);
            if !(int && (p.name == "vertex_indices" || p.name == "vertex_index")) {
                return None;
            }
        }
        let mut vs = Vec::with_capacity(if is_vertex { def.count.min(body.len() / 6) } else { 0 });
        let mut ts = Vec::with_capacity(if is_face { def.count.min(body.len() / 8) } else { 0 });
        for _ in 0..def.count {
            if !data_line(lines.next()?, &mut toks) {
                return None;
            }
            if is_face {
                let PropertyType::List(_, it) = &props[0].data_type else { return None };
                let n: usize = std::str::from_utf8(toks.first()?).ok()?.parse().ok()?;
                if n < 3 || toks.len() < 1 + n {
                    return None;
                }
                corners.clear();
                for t in &toks[1..1 + n] {
                    let i = ascii_scalar(t, it)?;
                    if !(0.0..u32::MAX as f64).contains(&i) {
                        return None;
                    }
                    corners.push(i as u32);
                }
                for k in 1..n - 1 {
                    ts.push([corners[0], corners[k], corners[k + 1]]);
                }
                continue;
            }
            // every scalar must parse (the slow path reads them all)
            if toks.len() < props.len() {
                return None;
            }
            let mut vals = [0f64; 3];
            for (k, p) in props.iter().enumerate() {
                let PropertyType::Scalar(t) = &p.data_type else { return None };
                let x = ascii_scalar(toks[k], t)?;
                if let Some(j) = xyz.and_then(|xyz| xyz.iter().position(|&q| q == k)) {
                    vals[j] = x;
                }
            }
            if is_vertex {
                vs.push(Vec3::new(vals[0] as f32, vals[1] as f32, vals[2] as f32));
            }
        }
        if is_vertex {
            vertices = Some(vs);
        } else if is_face {
            faces = Some(ts);
        }
    }
    let vertices = vertices?;
    let indices = faces?;
    let n = vertices.len() as u32;
    if indices.iter().flatten().any(|&i| i >= n) {
        return None;
    }
    Some(Mesh { vertices, indices })
}
