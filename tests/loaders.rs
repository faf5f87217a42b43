//! Mesh readers (`voxel::load`): the current readers against the previous
//! ones (kept verbatim in `loaders/oracle.rs`) on every shared mesh, on the
//! same meshes written as STL and PLY, and on malformed files; the OBJ result
//! against every chunk size; and the fixes of what the previous readers got
//! wrong (byte-order mark, unknown statements, concave polygons, STL
//! non-finite numbers without a line).

#[path = "loaders/oracle.rs"]
mod oracle;

use oracle::{old_parse_obj, old_parse_ply, old_parse_stl};
use std::path::PathBuf;
use widephase::voxel::load::{parse_obj_chunked, parse_obj_with_report};
use widephase::voxel::mesh::{parse_obj, parse_ply, parse_stl};
use widephase::voxel::{Mesh, VoxelError};

type Parsed = Result<Mesh, VoxelError>;

/// Equal vertices (as bits: NaN payloads too), triangles and errors.
fn same(a: &Parsed, b: &Parsed) -> Result<(), String> {
    match (a, b) {
        (Ok(x), Ok(y)) => {
            let bits = |m: &Mesh| -> Vec<[u32; 3]> {
                m.vertices.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
            };
            if bits(x) != bits(y) {
                return Err(format!(
                    "vertices differ ({} vs {})",
                    x.vertices.len(),
                    y.vertices.len()
                ));
            }
            if x.indices != y.indices {
                let k = x.indices.iter().zip(&y.indices).position(|(p, q)| p != q);
                return Err(format!(
                    "triangles differ ({} vs {}, first at {k:?})",
                    x.indices.len(),
                    y.indices.len()
                ));
            }
            Ok(())
        }
        (Err(x), Err(y)) if x.to_string() == y.to_string() => Ok(()),
        _ => Err(format!("{a:?}\nvs\n{b:?}")),
    }
}

fn shared(name: &str) -> Option<Vec<u8>> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes").join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("SKIPPED {name}: {} not present (shared meshes are optional)", p.display());
            None
        }
    }
}

const SHARED: [&str; 6] =
    ["bunny.obj", "spot.obj", "teapot.obj", "armadillo.obj", "dragon.obj", "dragon_sub4.obj"];

#[test]
fn obj_matches_the_previous_reader_on_every_shared_mesh() {
    for name in SHARED {
        let Some(bytes) = shared(name) else { continue };
        let old = old_parse_obj(&bytes, name);
        assert!(old.is_ok(), "{name}: {old:?}");
        let new = parse_obj(&bytes, name);
        same(&new, &old).unwrap_or_else(|e| panic!("{name}: {e}"));
        // and for other chunk sizes (the default only splits large files)
        for chunk in [0, 1 << 16, 1 << 20] {
            let r = parse_obj_chunked(&bytes, name, chunk).map(|(m, _)| m);
            same(&r, &old).unwrap_or_else(|e| panic!("{name}, chunks of {chunk}: {e}"));
        }
    }
}

/// The mesh as ASCII STL, binary STL, ASCII PLY and binary PLY.
fn as_stl_ply(m: &Mesh) -> [(&'static str, Vec<u8>); 4] {
    use std::fmt::Write;
    let mut a = String::from("solid m\n");
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&(m.indices.len() as u32).to_le_bytes());
    for t in &m.indices {
        a.push_str("  facet normal 0 0 1\n    outer loop\n");
        b.extend_from_slice(&[0u8; 12]);
        for &i in t {
            let v = m.vertices[i as usize];
            writeln!(a, "      vertex {:e} {} {}", v.x, v.y, v.z).unwrap();
            for c in v.to_array() {
                b.extend_from_slice(&c.to_le_bytes());
            }
        }
        a.push_str("    endloop\n  endfacet\n");
        b.extend_from_slice(&[0, 0]);
    }
    a.push_str("endsolid m\n");
    let head = |enc: &str| {
        format!(
            "ply\nformat {enc} 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
            m.vertices.len(),
            m.indices.len()
        )
    };
    let mut pa = head("ascii");
    let mut pb = head("binary_little_endian").into_bytes();
    for v in &m.vertices {
        writeln!(pa, "{} {} {}", v.x, v.y, v.z).unwrap();
        for c in v.to_array() {
            pb.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &m.indices {
        writeln!(pa, "3 {} {} {}", t[0], t[1], t[2]).unwrap();
        pb.push(3);
        for i in t {
            pb.extend_from_slice(&(*i as i32).to_le_bytes());
        }
    }
    [("a.stl", a.into_bytes()), ("b.stl", b), ("a.ply", pa.into_bytes()), ("b.ply", pb)]
}

#[test]
fn stl_and_ply_match_the_previous_readers_on_shared_meshes() {
    for name in ["bunny.obj", "teapot.obj", "spot.obj"] {
        let Some(bytes) = shared(name) else { continue };
        let m = parse_obj(&bytes, name).unwrap();
        for (file, data) in as_stl_ply(&m) {
            let (new, old) = if file.ends_with("stl") {
                (parse_stl(&data, file), old_parse_stl(&data, file))
            } else {
                (parse_ply(&data, file), old_parse_ply(&data, file))
            };
            assert!(old.is_ok(), "{name} as {file}: {old:?}");
            same(&new, &old).unwrap_or_else(|e| panic!("{name} as {file}: {e}"));
        }
    }
}

/// Small files, valid and malformed, in each format. Also the fuzzing seeds
/// (`tests/fuzz_corpus`).
pub fn malformed() -> Vec<(&'static str, Vec<u8>)> {
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    let mut v: Vec<(&'static str, Vec<u8>)> = [
        "f 1 2 3\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
        "v 0 0 0\nv 1 x 0\n",
        "v 0 0 nan\n",
        "v 0 0 inf\nv 1 1 1\n",
        "v 0 0 0\nf 1 1\n",
        "# empty\nv 0 0 0\n",
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1/1 2//2 -2 -1\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 +3\n",
        "v 1e40 0 0\n",
        "v 0 0\n",
        "v 0 0 0 1 0.5 0.5 0.5\nv 1 0 0\nv 0 1 0\nf 1 2 3 # tri\n",
        "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n",
        "v\t0\t0\t0\nv 1 0 0\nv 0 1 0\nf\t1\t2\t3",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2/x 3a\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 #3\n",
        "v 0 0 0#c\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        "v .5 5. +1\nv 1e-3 0 0\nv 0 1E2 0\nf 1 2 3\n",
        "v 0x1 0 0\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3\nf 1 2 3\n",
    ]
    .into_iter()
    .map(|s| ("m.obj", s.as_bytes().to_vec()))
    .collect();
    v.push(("m.obj", format!("{tri}f 1 2 3\n\u{b5} 1 2\n").into_bytes()));
    v.push(("m.obj", b"v 0 0 0\nv 1 0 \xff0\n".to_vec()));
    v.push(("m.obj", b"# \xff\xfe banner\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec()));
    let facet = "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n";
    for s in [
        format!("solid t\n{facet}endsolid t\n"),
        format!("solid t\n{facet}{facet}endsolid t\ntrailing junk\n"),
        format!("solid t\n{facet}"),
        "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n".into(),
        "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n".into(),
        format!("solid t\n{}endsolid t\n", facet.replace("vertex 1 0 0", "vertex 1 nan 0")),
        format!("solid t\n{}endsolid t\n", facet.replace("normal 0 0 1", "normal inf 0 1")),
        format!("solid t\n\n  {}\n\nendsolid t\n", facet.replace('\n', "\r\n  ")),
        format!("solid t\n{}endsolid t\n", facet.replace("outer loop", "outer  loop extra")),
        "solid \n".into(),
    ] {
        v.push(("t.stl", s.into_bytes()));
    }
    let mut bin = vec![0u8; 80];
    bin.extend_from_slice(&2u32.to_le_bytes());
    for f in [0.0f32, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 0]);
    for f in [0.0f32, 0.0, 1.0, 1.0, 0.0, 0.0, f32::NAN, 1.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 0]);
    v.push(("b.stl", bin.clone()));
    v.push(("b.stl", bin[..120].to_vec()));
    v.push(("b.stl", bin[..50].to_vec()));
    let mut huge = bin[..84].to_vec();
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    v.push(("b.stl", huge));
    let ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
    for s in [
        format!("{ply}0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
        format!("{ply}0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n"),
        format!("{ply}0 0 0\n1 0 0\n0 1 0\n"),
        format!("{ply}0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n"),
        format!("{ply}0 0 0\n1 0 0\n0 1 0\n4 0 1 2 2\n"),
        format!("{ply}0 0 0\n1 0 0\n0 1 0\n2 0 1\n"),
        ply.replace("element vertex 3", "element vertex 99999999999"),
        ply.replace("format ascii", "format wrong"),
        ply.replace("property float z\n", ""),
    ] {
        v.push(("t.ply", s.into_bytes()));
    }
    let mut pb = ply.replace("ascii", "binary_little_endian").into_bytes();
    for f in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        pb.extend_from_slice(&f.to_le_bytes());
    }
    pb.push(3);
    for i in [0i32, 1, 2] {
        pb.extend_from_slice(&i.to_le_bytes());
    }
    v.push(("b.ply", pb.clone()));
    v.push(("b.ply", pb[..pb.len() - 3].to_vec()));
    let mut be = ply.replace("ascii", "binary_big_endian").into_bytes();
    for f in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        be.extend_from_slice(&f.to_be_bytes());
    }
    be.push(3);
    for i in [0i32, 1, 2] {
        be.extend_from_slice(&i.to_be_bytes());
    }
    v.push(("b.ply", be));
    v
}

/// The readers whose intended behaviour changed: a file where the old reader
/// is not the reference (see `oracle.rs`).
fn changed_on_purpose(name: &str, data: &[u8]) -> bool {
    let t = String::from_utf8_lossy(data);
    name.ends_with(".stl") && (t.contains("nan") || t.contains("inf"))
        || name.ends_with(".obj") && t.contains('\u{b5}')
}

#[test]
fn malformed_files_give_the_previous_errors() {
    for (name, data) in malformed() {
        if changed_on_purpose(name, &data) {
            continue;
        }
        let (new, old) = match &name[name.len() - 3..] {
            "obj" => (parse_obj(&data, name), old_parse_obj(&data, name)),
            "stl" => (parse_stl(&data, name), old_parse_stl(&data, name)),
            _ => (parse_ply(&data, name), old_parse_ply(&data, name)),
        };
        same(&new, &old)
            .unwrap_or_else(|e| panic!("{name} {:?}: {e}", String::from_utf8_lossy(&data)));
        if name.ends_with("obj") {
            for chunk in [1, 2, 5, 8, 13, 64] {
                let r = parse_obj_chunked(&data, name, chunk).map(|(m, _)| m);
                same(&r, &old).unwrap_or_else(|e| panic!("{name} chunks of {chunk}: {e}"));
            }
        }
    }
}

#[test]
fn obj_byte_order_mark_keeps_the_first_vertex() {
    // (the previous reader read "\u{feff}v" as an unknown statement: every
    // face then named the vertex after the intended one)
    let text = b"\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\n";
    let m = parse_obj(text, "bom.obj").unwrap();
    assert_eq!(m.vertices.len(), 4);
    assert_eq!(m.indices, vec![[0, 1, 2]]);
    // (what the previous reader did)
    let old = old_parse_obj(text, "bom.obj").unwrap();
    assert_eq!((old.vertices.len(), old.indices), (3, vec![[0, 1, 2]]));
}

#[test]
fn obj_unknown_statements_are_counted_and_reported_once() {
    let text = b"mtllib a.mtl\nvn 0 0 1\nv 0 0 0\nv 1 0 0\nv 0 1 0\nbogus 1\nusemtl x\nl 1 2\nf 1 2 3\nbogus 2\nweird\n";
    let (m, r) = parse_obj_with_report(text, "u.obj").unwrap();
    assert_eq!(m.indices.len(), 1);
    assert_eq!(r.unknown_statements, 3);
    assert_eq!(r.first_unknown, Some((6, "bogus".to_string())));
    assert_eq!(r.unsupported_elements, 1);
    let w = r.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].contains("3 unknown OBJ statements") && w[0].contains("line 6"), "{w:?}");
    // the same counts from the parallel reader
    let (_, r2) = parse_obj_chunked(text, "u.obj", 8).unwrap();
    assert_eq!(r2, r);
    // a clean file reports nothing
    let (_, r) = parse_obj_with_report(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "c.obj").unwrap();
    assert!(r.warnings().is_empty());
}

#[test]
fn ascii_stl_named_obj_says_so() {
    let stl = b"solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
    let e = parse_obj(stl, "t.obj").unwrap_err().to_string();
    assert!(e.contains("t.obj") && e.contains("ASCII STL") && e.contains("line 1"), "{e}");
    // (the previous reader: an empty mesh, then "mesh has no triangles")
    assert!(old_parse_obj(stl, "t.obj").unwrap().indices.is_empty());
    let dir = std::env::temp_dir().join(format!("wp-loaders-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.obj"), stl).unwrap();
    let e = Mesh::load(&dir.join("t.obj")).unwrap_err().to_string();
    assert!(e.contains("ASCII STL") && !e.contains("no triangles"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Twice the signed area of triangle `t` in the z = 0 plane.
fn area2(m: &Mesh, t: [u32; 3]) -> f32 {
    let [a, b, c] = t.map(|i| m.vertices[i as usize]);
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

#[test]
fn concave_obj_polygons_are_ear_clipped() {
    // an L: (0,0) (2,0) (2,1) (1,1) (1,2) (0,2), area 3; fanned from the
    // first corner, the triangle (0,0) (2,1) (1,1) is fine but (0,0) (1,1)
    // (1,2) … a fan from a corner that cannot see the whole polygon covers
    // the notch; start the L at the reflex corner's neighbour so it does
    let l = "v 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 0 0\nv 2 0 0\nf 1 2 3 4 5 6\n";
    let (m, r) = parse_obj_with_report(l.as_bytes(), "l.obj").unwrap();
    assert_eq!(r.concave_polygons, 1);
    assert_eq!(m.indices.len(), 4);
    // every triangle keeps the polygon's orientation and the areas add up to
    // the L's (a fan from vertex 1 would give 1.5 + … with a flipped one)
    let areas: Vec<f32> = m.indices.iter().map(|&t| area2(&m, t)).collect();
    assert!(areas.iter().all(|&a| a > 0.0), "{areas:?}");
    assert_eq!(areas.iter().sum::<f32>(), 6.0, "{areas:?}");
    // the notch's centre (1.5, 1.5) is in no triangle
    let inside = |t: [u32; 3]| {
        let [a, b, c] = t.map(|i| m.vertices[i as usize]);
        let s = |p: widephase::Vec3, q: widephase::Vec3| {
            (q.x - p.x) * (1.5 - p.y) - (q.y - p.y) * (1.5 - p.x)
        };
        s(a, b) >= 0.0 && s(b, c) >= 0.0 && s(c, a) >= 0.0
    };
    assert!(!m.indices.iter().any(|&t| inside(t)));
    // (the previous reader's fan has a flipped triangle)
    let old = old_parse_obj(l.as_bytes(), "l.obj").unwrap();
    assert!(old.indices.iter().any(|&t| area2(&old, t) < 0.0));
    // the same in another plane and orientation (x = 5, clockwise seen from +x)
    let rot: String = l
        .lines()
        .map(|s| match s.strip_prefix("v ") {
            Some(c) => {
                let c: Vec<&str> = c.split(' ').collect();
                format!("v 5 {} {}\n", c[1], c[0])
            }
            None => format!("{s}\n"),
        })
        .collect();
    let (m2, r2) = parse_obj_with_report(rot.as_bytes(), "l2.obj").unwrap();
    assert_eq!((r2.concave_polygons, m2.indices.len()), (1, 4));
    // and through the parallel reader (vertices in an earlier chunk)
    let (m3, r3) = parse_obj_chunked(l.as_bytes(), "l.obj", 16).unwrap();
    assert_eq!((m3, r3.concave_polygons), (m, 1));
    // convex polygons are still fanned from the first corner
    let q = parse_obj(b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", "q.obj").unwrap();
    assert_eq!(q.indices, vec![[0, 1, 2], [0, 2, 3]]);
}

#[test]
fn self_intersecting_obj_polygons_are_rejected() {
    // a figure eight with unequal lobes (edges 1 and 3 cross at (4/3, 4/3)),
    // after a convex quad; fanned it would cover the crossing's wedge
    let text = b"v 0 0 0\nv 4 4 0\nv 4 0 0\nv 0 2 0\nf 1 3 2 4\nf 1 2 3 4\n";
    let e = parse_obj(text, "x.obj").unwrap_err().to_string();
    assert!(e.contains("x.obj:6") && e.contains("self-intersecting"), "{e}");
    let e = parse_obj_chunked(text, "x.obj", 8).unwrap_err().to_string();
    assert!(e.contains("x.obj:6") && e.contains("edges 1 and 3 cross"), "{e}");
}

#[test]
fn ascii_stl_non_finite_numbers_name_the_line() {
    let s = b"solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 nan 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
    let e = parse_stl(s, "n.stl").unwrap_err().to_string();
    assert!(e.contains("n.stl:5") && e.contains("not finite"), "{e}");
    // (the previous reader: stl_io's message, no line)
    let old = old_parse_stl(s, "n.stl").unwrap_err().to_string();
    assert!(!old.contains("n.stl:5"), "{old}");
    let s = b"solid t\nfacet normal inf 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
    let e = parse_stl(s, "n.stl").unwrap_err().to_string();
    assert!(e.contains("n.stl:2") && e.contains("not finite"), "{e}");
}

#[test]
fn obj_errors_in_large_files_name_the_line() {
    // large enough for the parallel reader; the bad line is in the last chunk
    let Some(mut bytes) = shared("dragon.obj") else { return };
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + !bytes.ends_with(b"\n") as usize;
    if !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"f 1 2 999999999\nv 0 0 x\n");
    let e = parse_obj(&bytes, "d.obj").unwrap_err().to_string();
    assert!(e.contains(&format!("d.obj:{}: face index 999999999", lines + 1)), "{e}");
    same(&Err(parse_obj(&bytes, "d.obj").unwrap_err()), &old_parse_obj(&bytes, "d.obj")).unwrap();
    // and a bad coordinate near the start, with a bad face later
    let mut early = b"v 0 0 0\nv 1 x 0\n".to_vec();
    early.extend_from_slice(&bytes);
    let e = parse_obj(&early, "d.obj").unwrap_err().to_string();
    assert!(e.contains("d.obj:2: bad vertex coordinate \"x\""), "{e}");
}
