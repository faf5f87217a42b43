//! STL, ASCII and binary.
//!
//! Binary files are read straight from the facet records after the 84-byte
//! header (fixed offsets in 50-byte records, no per-facet reader calls); ASCII files by a one-pass line reader
//! of `stl_io`'s grammar. Either way equal vertices (equal bit patterns) are
//! merged in order of first appearance, as `stl_io`'s `read_stl` does, so the
//! result is the one `stl_io` gave. When the line reader finds anything
//! unusual (not ASCII, a grammar error, a non-finite number) the file goes
//! through `stl_io` and the error scan as before, so messages are unchanged.

use crate::math::Vec3;
use crate::voxel::mesh::Mesh;
use crate::voxel::weld::BuildBitsHasher;
use crate::voxel::VoxelError;

/// Parses binary or ASCII STL; equal vertices are merged. Errors name the
/// file and the line (ASCII) or facet (binary).
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
    if !ascii {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        // (50-byte records: [u8; 50] is not `Pod` without bytemuck's
        // const-generics feature, and exact chunks compile to the same loads)
        return Ok(merge(bytes[84..84 + 50 * n].chunks_exact(50).map(|r| {
            let f = |o: usize| f32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
            [[f(12), f(16), f(20)], [f(24), f(28), f(32)], [f(36), f(40), f(44)]]
        })));
    }
    if let Some(tris) = ascii_triangles(bytes) {
        return Ok(merge(tris.into_iter()));
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
            let x = t.parse::<f32>().map_err(|_| format!("bad {what} coordinate {t:?}"))?;
            // (`stl_io` rejects these too, without saying where)
            if !x.is_finite() {
                return Err(format!("{what} coordinate {t:?} is not finite"));
            }
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

/// Merges equal vertices (equal bits) in order of first appearance, as
/// `stl_io::read_stl` does.
fn merge(tris: impl Iterator<Item = [[f32; 3]; 3]>) -> Mesh {
    let mut slot: std::collections::HashMap<[u32; 3], u32, BuildBitsHasher> = Default::default();
    let mut m = Mesh::default();
    for t in tris {
        let mut tri = [0u32; 3];
        for (k, v) in t.iter().enumerate() {
            let next = m.vertices.len() as u32;
            tri[k] = *slot.entry(v.map(f32::to_bits)).or_insert_with(|| {
                m.vertices.push(Vec3::from_array(*v));
                next
            });
        }
        m.indices.push(tri);
    }
    m
}

/// The facets of an ASCII STL in one pass over its lines, in `stl_io`'s
/// grammar (after the `solid` line, blank lines skipped: `facet normal x y
/// z`, `outer loop`, three `vertex x y z`, `endloop`, `endfacet`, … until a
/// line starting `endsolid`; whatever follows it is not read). `None` for
/// anything else, including non-ASCII text and non-finite numbers.
fn ascii_triangles(bytes: &[u8]) -> Option<Vec<[[f32; 3]; 3]>> {
    if !bytes.is_ascii() {
        return None;
    }
    // (Unicode whitespace as `str::split_whitespace` sees it, in ASCII)
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r');
    let mut lines = bytes.split(|&b| b == b'\n').skip(1).filter_map(|l| {
        let mut toks = [&l[..0]; 6];
        let mut n = 0;
        for t in l.split(|&b| space(b)).filter(|t| !t.is_empty()) {
            if n == toks.len() {
                n += 1;
                break;
            }
            toks[n] = t;
            n += 1;
        }
        (n > 0).then_some((toks, n))
    });
    let num = |t: &[u8]| -> Option<f32> {
        let x = match fast_float2::parse::<f32, _>(t) {
            Ok(x) => x,
            Err(_) => std::str::from_utf8(t).ok()?.parse().ok()?,
        };
        x.is_finite().then_some(x)
    };
    let mut out = Vec::with_capacity(bytes.len() / 256);
    loop {
        let (t, n) = lines.next()?;
        if t[0] == b"endsolid" {
            return Some(out);
        }
        if n != 5 || t[0] != b"facet" || t[1] != b"normal" {
            return None;
        }
        for x in &t[2..5] {
            num(x)?;
        }
        let (t, n) = lines.next()?;
        if n != 2 || t[0] != b"outer" || t[1] != b"loop" {
            return None;
        }
        let mut tri = [[0f32; 3]; 3];
        for v in &mut tri {
            let (t, n) = lines.next()?;
            if n != 4 || t[0] != b"vertex" {
                return None;
            }
            for (c, x) in v.iter_mut().zip(&t[1..4]) {
                *c = num(x)?;
            }
        }
        for kw in [&b"endloop"[..], b"endfacet"] {
            let (t, n) = lines.next()?;
            if n != 1 || t[0] != kw {
                return None;
            }
        }
        out.push(tri);
    }
}
