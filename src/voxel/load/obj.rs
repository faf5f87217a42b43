//! Wavefront OBJ: `v` and `f` records, parsed in parallel chunks.
//!
//! The file is cut at line boundaries into chunks that rayon parses
//! independently (the layout of rapidobj and fast_obj: vertices and faces are
//! line-local, so only face indices need the vertex count of the chunks
//! before). A chunk that does not start the file does not know that count, so
//! it checks face indices against its own vertices and keeps the largest
//! shortfall; the stitch then checks it against the real count. Any problem
//! in any chunk (an error, a failed stitch check) makes the loader parse the
//! whole file again in one sequential chunk, which stops at the first bad
//! line, so messages name exactly the line the sequential reading names.
//!
//! Tokens are split at ASCII whitespace and a `#` ends the line (a comment),
//! as `str::split_ascii_whitespace` on the text before the first `#`.
//! Coordinates are parsed with `fast-float2` (Eisel–Lemire, correctly rounded
//! like `str::parse::<f32>`, with the same grammar); a token it rejects is
//! handed to `str::parse` so the accepted language is exactly the standard
//! library's.

use super::polygon::{triangulate, Split};
use super::LoadReport;
use crate::math::Vec3;
use crate::voxel::mesh::Mesh;
use crate::voxel::VoxelError;
use rayon::prelude::*;

/// Statements of the OBJ specification (Wavefront's "Object Files (.obj)",
/// appendix B1 of the Advanced Visualizer manual) besides `v` and `f`, which
/// the loader skips silently: attributes and grouping that do not change the
/// surface.
const SKIPPED: &[&[u8]] = &[
    b"vt",
    b"vn",
    b"vp",
    b"o",
    b"g",
    b"s",
    b"mg",
    b"mtllib",
    b"usemtl",
    b"usemap",
    b"maplib",
    b"lod",
    b"shadow_obj",
    b"trace_obj",
    b"ctech",
    b"stech",
    b"bevel",
    b"c_interp",
    b"d_interp",
    b"call",
    b"csh",
];

/// Elements of the specification that describe geometry the loader does not
/// voxelize (points, lines, free-form curves and surfaces): counted and
/// reported.
const UNSUPPORTED: &[&[u8]] = &[
    b"p", b"l", b"cstype", b"deg", b"bmat", b"step", b"curv", b"curv2", b"surf", b"parm", b"trim",
    b"hole", b"scrv", b"sp", b"end", b"con",
];

/// Files at least this large are parsed in parallel chunks.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Parses OBJ text; see [`parse_obj_with_report`].
pub fn parse_obj(bytes: &[u8], name: &str) -> Result<Mesh, VoxelError> {
    parse_obj_with_report(bytes, name).map(|(m, _)| m)
}

/// Parses Wavefront OBJ text (`v` and `f` records) and says what it skipped.
///
/// - Faces with more than three corners: convex ones are fanned from their
///   first corner, concave ones ear-clipped (module `polygon`); a polygon
///   that cannot be triangulated is an error naming its line.
/// - `a/b/c` corner forms and negative (relative) indices are accepted.
/// - A UTF-8 byte-order mark at the start is skipped.
/// - Statements the specification defines but that do not change the
///   surface (`vt`, `vn`, `g`, `usemtl`, …) are skipped silently; points,
///   lines and free-form geometry are counted as unsupported, anything else
///   as unknown ([`LoadReport`]). A file with statements but no face whose
///   statements are not OBJ (an ASCII STL named `.obj`) is an error.
/// - Errors give `name:line`. A `#` comment is dropped before decoding, so
///   stray non-UTF-8 bytes in comments are harmless; invalid bytes anywhere
///   else are an error naming the line and column.
pub fn parse_obj_with_report(bytes: &[u8], name: &str) -> Result<(Mesh, LoadReport), VoxelError> {
    let chunk = (bytes.len() / (8 * rayon::current_num_threads().max(1))).max(1 << 18);
    parse_obj_chunked(bytes, name, if bytes.len() >= PARALLEL_MIN_BYTES { chunk } else { 0 })
}

/// [`parse_obj_with_report`] with chunks of about `chunk_bytes` (0: one
/// sequential chunk). The result does not depend on the chunk size; tests
/// check that.
#[doc(hidden)]
pub fn parse_obj_chunked(
    bytes: &[u8],
    name: &str,
    chunk_bytes: usize,
) -> Result<(Mesh, LoadReport), VoxelError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let parsed = if chunk_bytes == 0 || bytes.len() <= chunk_bytes {
        None
    } else {
        parallel(bytes, chunk_bytes)
    };
    let (mesh, stats) = match parsed {
        Some(r) => r,
        None => {
            let mut out = parse_chunk(bytes, true)
                .map_err(|(line, msg)| VoxelError::Mesh(format!("{name}:{line}: {msg}")))?;
            let mesh = Mesh {
                vertices: std::mem::take(&mut out.vertices),
                indices: std::mem::take(&mut out.tris),
            };
            (mesh, out.stats)
        }
    };
    let report = LoadReport {
        format: "OBJ",
        unknown_statements: stats.unknown,
        first_unknown: stats.first_unknown,
        unsupported_elements: stats.unsupported,
        concave_polygons: stats.concave,
    };
    if mesh.indices.is_empty() {
        if let Some((line, kw)) = &report.first_unknown {
            let hint = if matches!(kw.as_str(), "solid" | "facet" | "endsolid") {
                " (it reads like an ASCII STL file: give it the .stl extension)"
            } else {
                ""
            };
            return Err(VoxelError::Mesh(format!(
                "{name}: not an OBJ mesh: no faces, and {} statements are not OBJ (the first, {kw:?}, on line {line}){hint}",
                report.unknown_statements
            )));
        }
    }
    Ok((mesh, report))
}

/// What a chunk skipped; lines are the chunk's own (1-based).
#[derive(Default)]
struct Stats {
    unknown: usize,
    first_unknown: Option<(usize, String)>,
    unsupported: usize,
    concave: usize,
}

/// A polygon whose corners name vertices of earlier chunks: triangulated at
/// the stitch into `tris[at..at + corners - 2]`.
struct Deferred {
    at: usize,
    /// Absolute indices, or (for negative OBJ indices) indices relative to
    /// the chunk's first vertex, offset at the stitch.
    corners: Vec<(bool, i64)>,
}

struct ChunkOut {
    vertices: Vec<Vec3>,
    tris: Vec<[u32; 3]>,
    /// Corners (flat positions in `tris`) from negative indices, relative to
    /// the chunk's first vertex.
    relative: Vec<(usize, i64)>,
    /// Largest `index - vertices defined so far in this chunk` over positive
    /// indices: the stitch needs it below the vertex count of earlier chunks.
    max_shortfall: i64,
    /// Smallest relative index: the stitch needs it ≥ −(earlier vertices).
    min_relative: i64,
    deferred: Vec<Deferred>,
    /// Newline bytes in the chunk.
    newlines: usize,
    stats: Stats,
}

#[inline(always)]
fn is_space(b: u8) -> bool {
    // exactly `u8::is_ascii_whitespace` (what `split_ascii_whitespace` uses)
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0C' | b'\r')
}

/// The next token of `line` from `*pos`; a `#` ends the line.
#[inline(always)]
fn token<'a>(line: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let mut p = *pos;
    while p < line.len() && is_space(line[p]) {
        p += 1;
    }
    if p >= line.len() || line[p] == b'#' {
        *pos = line.len();
        return None;
    }
    let s = p;
    while p < line.len() && !is_space(line[p]) && line[p] != b'#' {
        p += 1;
    }
    *pos = p;
    Some(&line[s..p])
}

fn text(tok: &[u8]) -> String {
    String::from_utf8_lossy(tok).into_owned()
}

#[inline(always)]
fn parse_f32(tok: &[u8]) -> Option<f32> {
    match fast_float2::parse::<f32, _>(tok) {
        Ok(x) => Some(x),
        // (the standard library decides what fast-float2 rejects)
        Err(_) => std::str::from_utf8(tok).ok()?.parse().ok(),
    }
}

#[inline(always)]
fn parse_i64(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() || digits.len() > 18 {
        return std::str::from_utf8(tok).ok()?.parse().ok();
    }
    let mut v = 0i64;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as i64;
    }
    Some(if neg { -v } else { v })
}

/// Parses one chunk. `first` says it starts the file (vertex offset 0), so
/// every check is made here with the final message; otherwise checks that
/// need the earlier chunks are left to the stitch. Errors are (chunk line,
/// message).
fn parse_chunk(bytes: &[u8], first: bool) -> Result<ChunkOut, (usize, String)> {
    let mut o = ChunkOut {
        // (enough for the usual line lengths, so the vectors rarely grow;
        // untouched capacity costs address space, not memory)
        vertices: Vec::with_capacity(bytes.len() / 24),
        tris: Vec::with_capacity(bytes.len() / 16),
        relative: Vec::new(),
        max_shortfall: i64::MIN,
        min_relative: i64::MAX,
        deferred: Vec::new(),
        newlines: 0,
        stats: Stats::default(),
    };
    let ascii = bytes.is_ascii();
    let mut face: Vec<i64> = Vec::with_capacity(8);
    let mut pos = 0;
    let mut line_no = 0;
    while pos < bytes.len() || (pos == bytes.len() && line_no == 0) {
        line_no += 1;
        // the common lines, read in one pass without splitting into tokens
        // first; `None` when the line is anything else (including every
        // error), which the token reader below then reads from its start
        if ascii {
            let fast = match bytes.get(pos..pos + 2) {
                Some(b"v ") => fast_vertex(bytes, pos + 2).map(|(c, end)| {
                    o.vertices.push(Vec3::from_array(c));
                    end
                }),
                Some(b"f ") => {
                    face.clear();
                    match fast_face(bytes, pos + 2, &mut face) {
                        Some(end) if face.len() >= 3 => {
                            let n_local = o.vertices.len() as i64;
                            let mut ok = true;
                            for c in face.iter_mut() {
                                ok &= index(&mut o, *c, first, n_local).map(|r| *c = r).is_ok();
                            }
                            if ok && face.len() == 3 && face.iter().all(|&c| c >= 0) {
                                // (a triangle of absolute corners: the common case)
                                o.tris.push([face[0] as u32, face[1] as u32, face[2] as u32]);
                                Some(end)
                            } else if ok {
                                push_face(&mut o, &face, first).map_err(|m| (line_no, m))?;
                                Some(end)
                            } else {
                                None
                            }
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(end) = fast {
                if end < bytes.len() {
                    o.newlines += 1;
                }
                pos = end + 1;
                continue;
            }
        }
        let end = match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(i) => {
                o.newlines += 1;
                pos + i
            }
            None => bytes.len(),
        };
        let line = &bytes[pos..end];
        pos = end + 1;
        if !ascii {
            let code = match memchr::memchr(b'#', line) {
                Some(c) => &line[..c],
                None => line,
            };
            if let Err(e) = std::str::from_utf8(code) {
                return Err((
                    line_no,
                    format!(
                        "invalid UTF-8 byte at column {} (outside a comment)",
                        e.valid_up_to() + 1
                    ),
                ));
            }
        }
        let mut p = 0;
        let Some(kw) = token(line, &mut p) else { continue };
        match kw {
            b"v" => {
                let mut c = [0f32; 3];
                for (k, ck) in c.iter_mut().enumerate() {
                    let Some(tok) = token(line, &mut p) else {
                        return Err((line_no, format!("vertex has {k} coordinates, needs 3")));
                    };
                    *ck = parse_f32(tok).ok_or_else(|| {
                        (line_no, format!("bad vertex coordinate {:?}", text(tok)))
                    })?;
                    if !ck.is_finite() {
                        return Err((
                            line_no,
                            format!("vertex coordinate {:?} is not finite", text(tok)),
                        ));
                    }
                }
                o.vertices.push(Vec3::from_array(c));
            }
            b"f" => {
                face.clear();
                let n_local = o.vertices.len() as i64;
                while let Some(tok) = token(line, &mut p) {
                    let first_part = match memchr::memchr(b'/', tok) {
                        Some(s) => &tok[..s],
                        None => tok,
                    };
                    let i = parse_i64(first_part)
                        .ok_or_else(|| (line_no, format!("bad face index {:?}", text(tok))))?;
                    face.push(index(&mut o, i, first, n_local).map_err(|m| (line_no, m))?);
                }
                if face.len() < 3 {
                    return Err((
                        line_no,
                        format!("face has {} corners, needs at least 3", face.len()),
                    ));
                }
                push_face(&mut o, &face, first).map_err(|m| (line_no, m))?;
            }
            _ => {
                if UNSUPPORTED.contains(&kw) {
                    o.stats.unsupported += 1;
                } else if !SKIPPED.contains(&kw) {
                    o.stats.unknown += 1;
                    if o.stats.first_unknown.is_none() {
                        o.stats.first_unknown = Some((line_no, text(kw)));
                    }
                }
            }
        }
    }
    Ok(o)
}

/// Checks OBJ face index `i` (1-based, or negative: relative to the last
/// vertex) and returns the stored corner. A chunk that starts the file checks
/// the range here (with the message of the sequential reading); others keep
/// what the stitch must check.
#[inline(always)]
fn index(o: &mut ChunkOut, i: i64, first: bool, n_local: i64) -> Result<i64, String> {
    if first {
        let idx = if i > 0 { i - 1 } else { n_local + i };
        if i == 0 || idx < 0 || idx >= n_local {
            return Err(format!(
                "face index {i} is out of range (1..={n_local} vertices defined so far)"
            ));
        }
        Ok(idx)
    } else if i > 0 {
        if i - 1 > u32::MAX as i64 {
            return Err("face index too large".into());
        }
        o.max_shortfall = o.max_shortfall.max(i - 1 - n_local);
        Ok(i - 1)
    } else if i == 0 || n_local + i < -(1 << 38) {
        Err("face index out of range".into())
    } else {
        // relative to the chunk's first vertex, tagged (see `corner`)
        o.min_relative = o.min_relative.min(n_local + i);
        Ok(-(n_local + i) - (1 << 40))
    }
}

/// `v x y z …` from `p` (just after `"v "`): the coordinates and the position
/// of the line's end (its newline, or the end of the chunk). `None` unless
/// every coordinate is a plain finite number followed by whitespace.
#[inline(always)]
fn fast_vertex(bytes: &[u8], mut p: usize) -> Option<([f32; 3], usize)> {
    let mut c = [0f32; 3];
    for ck in &mut c {
        while p < bytes.len() && matches!(bytes[p], b' ' | b'\t') {
            p += 1;
        }
        let (x, n) = fast_float2::parse_partial::<f32, _>(&bytes[p..]).ok()?;
        p += n;
        // a token must end here, and inf/nan/overlong tokens go the long way
        if !(x.is_finite() && bytes.get(p).is_none_or(|&b| is_space(b))) {
            return None;
        }
        *ck = x;
    }
    Some((c, line_end(bytes, p)))
}

/// `f a b c …` from `p` (just after `"f "`), corner forms `i`, `i/…`:
/// the raw indices into `face` and the line's end; `None` unless every token
/// is an optionally negative integer of at most 18 digits, optionally followed
/// by `/` and anything but whitespace or `#`.
#[inline(always)]
fn fast_face(bytes: &[u8], mut p: usize, face: &mut Vec<i64>) -> Option<usize> {
    loop {
        while p < bytes.len() && matches!(bytes[p], b' ' | b'\t' | b'\r' | b'\x0C') {
            p += 1;
        }
        match bytes.get(p) {
            None | Some(b'\n') => return Some(p),
            Some(b'#') => return Some(line_end(bytes, p)),
            _ => {}
        }
        let neg = bytes[p] == b'-';
        p += neg as usize;
        let start = p;
        let mut v = 0i64;
        while p < bytes.len() && bytes[p].is_ascii_digit() && p - start < 18 {
            v = v * 10 + (bytes[p] - b'0') as i64;
            p += 1;
        }
        if p == start {
            return None;
        }
        if bytes.get(p) == Some(&b'/') {
            while p < bytes.len() && !is_space(bytes[p]) && bytes[p] != b'#' {
                p += 1;
            }
        }
        if !bytes.get(p).is_none_or(|&b| is_space(b) || b == b'#') {
            return None;
        }
        face.push(if neg { -v } else { v });
    }
}

/// The position of the newline ending the line that holds `p` (or the end).
#[inline(always)]
fn line_end(bytes: &[u8], p: usize) -> usize {
    match bytes.get(p) {
        Some(b'\n') => p,
        _ => memchr::memchr(b'\n', &bytes[p.min(bytes.len())..]).map_or(bytes.len(), |i| p + i),
    }
}

/// Decodes a stored corner: `(relative, index)`. Relative corners of chunks
/// that do not start the file are stored as `-(index) - 2^40` (indices are
/// far below 2^40 in magnitude).
#[inline(always)]
fn corner(c: i64) -> (bool, i64) {
    if c < -(1 << 39) {
        (true, -(c + (1 << 40)))
    } else {
        (false, c)
    }
}

fn push_face(o: &mut ChunkOut, face: &[i64], first: bool) -> Result<(), String> {
    let at = o.tris.len();
    let absolute = face.iter().all(|&c| !corner(c).0);
    if face.len() == 3 {
        if absolute {
            o.tris.push([face[0] as u32, face[1] as u32, face[2] as u32]);
        } else {
            o.tris.push([0; 3]);
            for (k, &c) in face.iter().enumerate() {
                match corner(c) {
                    (true, r) => o.relative.push((3 * at + k, r)),
                    (false, a) => o.tris[at][k] = a as u32,
                }
            }
        }
        return Ok(());
    }
    o.tris.resize(at + face.len() - 2, [0; 3]);
    if first {
        let corners: Vec<u32> = face.iter().map(|&c| c as u32).collect();
        if triangulate(&o.vertices, &corners, &mut o.tris[at..])? == Split::EarClipped {
            o.stats.concave += 1;
        }
    } else {
        o.deferred.push(Deferred { at, corners: face.iter().map(|&c| corner(c)).collect() });
    }
    Ok(())
}

/// Parses in chunks and stitches; `None` when any chunk or stitch check
/// fails (the caller then parses sequentially for the exact message).
fn parallel(bytes: &[u8], chunk_bytes: usize) -> Option<(Mesh, Stats)> {
    let mut cuts = vec![0usize];
    let mut at = 0;
    while at + chunk_bytes < bytes.len() {
        match memchr::memchr(b'\n', &bytes[at + chunk_bytes..]) {
            Some(i) if at + chunk_bytes + i + 1 < bytes.len() => {
                at += chunk_bytes + i + 1;
                cuts.push(at);
            }
            _ => break,
        }
    }
    cuts.push(bytes.len());
    let outs: Vec<Result<ChunkOut, (usize, String)>> = cuts
        .par_windows(2)
        .enumerate()
        .map(|(k, w)| parse_chunk(&bytes[w[0]..w[1]], k == 0))
        .collect();
    let outs: Vec<ChunkOut> = outs.into_iter().collect::<Result<_, _>>().ok()?;
    // vertex offsets, and the checks chunks could not make alone
    let mut voff = Vec::with_capacity(outs.len());
    let mut toff = Vec::with_capacity(outs.len());
    let (mut nv, mut nt) = (0usize, 0usize);
    for o in &outs {
        if o.max_shortfall >= nv as i64 || o.min_relative.saturating_add(nv as i64) < 0 {
            return None;
        }
        voff.push(nv);
        toff.push(nt);
        nv += o.vertices.len();
        nt += o.tris.len();
    }
    if nv > u32::MAX as usize {
        return None;
    }
    let mut vertices: Vec<Vec3> = bytemuck::zeroed_vec(nv);
    let mut tris: Vec<[u32; 3]> = bytemuck::zeroed_vec(nt);
    // (untouched zero pages until the parallel copy below)
    crate::mem::advise_huge_pages(&vertices);
    crate::mem::advise_huge_pages(&tris);
    {
        let mut vrest: &mut [Vec3] = &mut vertices;
        let mut trest: &mut [[u32; 3]] = &mut tris;
        let mut jobs = Vec::with_capacity(outs.len());
        for (k, o) in outs.iter().enumerate() {
            let (v, vr) = vrest.split_at_mut(o.vertices.len());
            let (t, tr) = trest.split_at_mut(o.tris.len());
            vrest = vr;
            trest = tr;
            jobs.push((k, v, t));
        }
        jobs.into_par_iter().for_each(|(k, v, t)| {
            let o = &outs[k];
            v.copy_from_slice(&o.vertices);
            t.copy_from_slice(&o.tris);
            for &(flat, r) in &o.relative {
                t[flat / 3][flat % 3] = (r + voff[k] as i64) as u32;
            }
        });
    }
    let mut stats = Stats::default();
    let mut first_line = 1;
    let mut corners = Vec::new();
    for (k, o) in outs.iter().enumerate() {
        for d in &o.deferred {
            corners.clear();
            corners.extend(
                d.corners.iter().map(|&(rel, c)| (if rel { c + voff[k] as i64 } else { c }) as u32),
            );
            let at = toff[k] + d.at;
            match triangulate(&vertices, &corners, &mut tris[at..at + corners.len() - 2]) {
                Ok(Split::EarClipped) => stats.concave += 1,
                Ok(Split::Fan) => {}
                Err(_) => return None,
            }
        }
        stats.concave += o.stats.concave;
        stats.unknown += o.stats.unknown;
        stats.unsupported += o.stats.unsupported;
        if stats.first_unknown.is_none() {
            stats.first_unknown =
                o.stats.first_unknown.clone().map(|(l, kw)| (l + first_line - 1, kw));
        }
        first_line += o.newlines;
    }
    Some((Mesh { vertices, indices: tris }, stats))
}
