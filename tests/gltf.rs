//! glTF 2.0 reading (`voxel::load::parse_gltf`, `Mesh::load` on `.gltf` and
//! `.glb`): documents written here byte by byte, so every expected vertex
//! and triangle is computed independently of the reader — node transforms
//! composed down the hierarchy, mirrors keeping the winding, instancing,
//! strips and fans, quantized positions, the three kinds of buffer — and
//! every malformed or oversized document refused with its own message.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use widephase::voxel::mesh::parse_gltf;
use widephase::voxel::{builtin, Mesh};
use widephase::Vec3;

/// A document under construction: the JSON and one binary buffer.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Doc {
    /// Appends `bytes` as a buffer view (4-byte aligned) and an accessor of
    /// `count` elements over it; returns the accessor's index.
    fn accessor(
        &mut self,
        bytes: &[u8],
        component: u32,
        ty: &str,
        count: usize,
        extra: Value,
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        let mut a = json!({"bufferView": self.views.len() - 1, "componentType": component, "type": ty, "count": count});
        if let (Some(a), Some(e)) = (a.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn positions(&mut self, p: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = p.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        self.accessor(&bytes, 5126, "VEC3", p.len(), json!({}))
    }

    fn indices_u16(&mut self, i: &[u16]) -> usize {
        let bytes: Vec<u8> = i.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.accessor(&bytes, 5123, "SCALAR", i.len(), json!({}))
    }

    /// The JSON with `meshes`, `nodes` and `scenes` added; `buffer_uri`
    /// `None` is the GLB chunk.
    fn json(&self, rest: Value, buffer_uri: Option<&str>) -> Value {
        let mut buffer = json!({"byteLength": self.bin.len()});
        if let Some(uri) = buffer_uri {
            buffer["uri"] = json!(uri);
        }
        let mut j = json!({
            "asset": {"version": "2.0"},
            "buffers": [buffer],
            "bufferViews": self.views,
            "accessors": self.accessors,
        });
        for (k, v) in rest.as_object().unwrap() {
            j[k] = v.clone();
        }
        j
    }

    fn glb(&self, rest: Value) -> Vec<u8> {
        glb(&self.json(rest, None), &self.bin)
    }
}

/// A GLB container: the 12-byte header, the JSON chunk (space-padded) and the
/// BIN chunk (zero-padded).
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    out
}

fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("widephase-gltf-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Column-major 4×4 product in `f64` (the test's own).
fn mat_mul(a: &[[f64; 4]; 4], b: &[[f64; 4]; 4]) -> [[f64; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for c in 0..4 {
        for r in 0..4 {
            for k in 0..4 {
                m[c][r] += a[k][r] * b[c][k];
            }
        }
    }
    m
}

fn apply(m: &[[f64; 4]; 4], p: [f32; 3]) -> Vec3 {
    let q = p.map(f64::from);
    let r = |i: usize| (m[0][i] * q[0] + m[1][i] * q[1] + m[2][i] * q[2] + m[3][i]) as f32;
    Vec3::new(r(0), r(1), r(2))
}

fn translation(t: [f64; 3]) -> [[f64; 4]; 4] {
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [t[0], t[1], t[2], 1.0]]
}

/// Six times the signed volume enclosed by triangles `tris` (outward winding
/// gives a positive volume).
fn volume6(m: &Mesh, tris: &[[u32; 3]]) -> f64 {
    tris.iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.vertices[i as usize].to_array().map(f64::from));
            a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0])
        })
        .sum()
}

const TETRA: [[f32; 3]; 4] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// Outward-wound faces of `TETRA`.
const TETRA_FACES: [u16; 12] = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];

/// A scene exercising the hierarchy: node 0 (translated, the tetrahedron)
/// has child 1 (mirrored in x, the tetrahedron again); node 2 (a matrix: a
/// quarter turn about z and a translation) holds a strip, an indexed fan
/// and a point primitive; node 3 holds a mesh but is in no scene.
fn scene_doc() -> (Doc, Value) {
    let mut d = Doc::default();
    let tp = d.positions(&TETRA);
    let ti = d.indices_u16(&TETRA_FACES);
    let sp = d.positions(&[
        [0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [2.0, 0.0, 0.0],
    ]);
    let fp = d.positions(&[
        [0.0, 0.0, 5.0],
        [1.0, 0.0, 5.0],
        [1.0, 1.0, 5.0],
        [0.0, 1.0, 5.0],
        [-1.0, 0.5, 5.0],
    ]);
    let fi = d.accessor(&[0, 1, 2, 3, 4, 1], 5121, "SCALAR", 6, json!({}));
    let rest = json!({
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": tp}, "indices": ti}]},
            {"primitives": [
                {"attributes": {"POSITION": sp}, "mode": 5},
                {"attributes": {"POSITION": fp}, "indices": fi, "mode": 6},
                {"attributes": {"POSITION": sp}, "mode": 0}
            ]}
        ],
        "nodes": [
            {"mesh": 0, "translation": [1.0, 2.0, 3.0], "children": [1]},
            {"mesh": 0, "scale": [-1.0, 1.0, 1.0]},
            {"mesh": 1, "matrix": [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 10.0, 0.0, 0.0, 1.0]},
            {"mesh": 1}
        ],
        "scenes": [{"nodes": [0, 2]}],
        "scene": 0
    });
    (d, rest)
}

/// What `scene_doc` must load as, built without the reader.
fn scene_expected() -> Mesh {
    let mut m = Mesh::default();
    let t0 = translation([1.0, 2.0, 3.0]);
    let mut mirror = translation([0.0, 0.0, 0.0]);
    mirror[0][0] = -1.0;
    let t1 = mat_mul(&t0, &mirror);
    let rot =
        [[0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [10.0, 0.0, 0.0, 1.0]];
    let faces: Vec<[u32; 3]> =
        TETRA_FACES.chunks(3).map(|f| [f[0] as u32, f[1] as u32, f[2] as u32]).collect();
    for (world, flip) in [(t0, false), (t1, true)] {
        let base = m.vertices.len() as u32;
        m.vertices.extend(TETRA.iter().map(|&p| apply(&world, p)));
        m.indices.extend(faces.iter().map(|f| {
            let f = f.map(|i| base + i);
            if flip {
                [f[0], f[2], f[1]]
            } else {
                f
            }
        }));
    }
    // the strip, triangle i = (i, i + 1 + i % 2, i + 2 − i % 2) (§3.7.2.1):
    // (0 1 2), (1 3 2), (2 3 4); the fan over 0 1 2 3 4 1:
    // (1 2 0), (2 3 0), (3 4 0), (4 1 0)
    let base = m.vertices.len() as u32;
    let strip =
        [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [2.0, 0.0, 0.0]];
    m.vertices.extend(strip.iter().map(|&p| apply(&rot, p)));
    m.indices.extend([[0, 1, 2], [1, 3, 2], [2, 3, 4]].map(|t: [u32; 3]| t.map(|i| base + i)));
    let base = m.vertices.len() as u32;
    let fan =
        [[0.0, 0.0, 5.0], [1.0, 0.0, 5.0], [1.0, 1.0, 5.0], [0.0, 1.0, 5.0], [-1.0, 0.5, 5.0]];
    m.vertices.extend(fan.iter().map(|&p| apply(&rot, p)));
    // fan corners 0 1 2 3 4 1 → vertices; triangle i = (c[i+1], c[i+2], c[0])
    let c = [0u32, 1, 2, 3, 4, 1];
    m.indices.extend((0..4).map(|i| [base + c[i + 1], base + c[i + 2], base + c[0]]));
    m
}

#[test]
fn gltf_scene_is_transformed_instanced_and_unrolled() {
    let (d, rest) = scene_doc();
    let bytes = d.glb(rest);
    let (m, report) = parse_gltf(&bytes, "scene.glb", None).unwrap();
    let want = scene_expected();
    assert_eq!(m.indices, want.indices);
    let bits = |m: &Mesh| -> Vec<[u32; 3]> {
        m.vertices.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
    };
    assert_eq!(bits(&m), bits(&want));
    assert_eq!(report.format, "GLB");
    assert_eq!(report.unsupported_elements, 1, "the point primitive is skipped and counted");
    assert!(
        report.warnings().iter().any(|w| w.contains("skipped 1 point, line")),
        "{:?}",
        report.warnings()
    );
    // the mirrored instance keeps the outward winding: both tetrahedra
    // enclose +1/6 (six times: +1)
    for k in 0..2 {
        let v = volume6(&m, &m.indices[4 * k..4 * k + 4]);
        assert!((v - 1.0).abs() < 1e-9, "instance {k}: 6·volume {v}");
    }
}

/// The same scene as a `.glb`, a `.gltf` with a base64 `data:` URI and a
/// `.gltf` with its buffer in a file beside it (a percent-encoded name),
/// through `Mesh::load`: one mesh.
#[test]
fn gltf_buffers_from_glb_data_uri_and_file_agree() {
    use base64_free::encode;
    let dir = scratch("buffers");
    let (d, rest) = scene_doc();
    let glb_path = dir.join("scene.glb");
    std::fs::write(&glb_path, d.glb(rest.clone())).unwrap();
    let uri = format!("data:application/octet-stream;base64,{}", encode(&d.bin));
    let data_path = dir.join("data.gltf");
    std::fs::write(&data_path, serde_json::to_vec(&d.json(rest.clone(), Some(&uri))).unwrap())
        .unwrap();
    std::fs::write(dir.join("scene data.bin"), &d.bin).unwrap();
    let file_path = dir.join("file.GLTF");
    std::fs::write(
        &file_path,
        serde_json::to_vec(&d.json(rest.clone(), Some("scene%20data.bin"))).unwrap(),
    )
    .unwrap();
    let a = Mesh::load(&glb_path).unwrap();
    assert_eq!(a, Mesh::load(&data_path).unwrap());
    assert_eq!(a, Mesh::load(&file_path).unwrap());
    assert_eq!(a.indices.len(), 15);
    // a buffer file that is missing is named
    std::fs::remove_file(dir.join("scene data.bin")).unwrap();
    let e = Mesh::load(&file_path).unwrap_err().to_string();
    assert!(e.contains("buffer 0") && e.contains("scene data.bin"), "{e}");
    // remote and absolute URIs are refused
    for uri in ["https://example.com/a.bin", "/etc/passwd"] {
        std::fs::write(&file_path, serde_json::to_vec(&d.json(rest.clone(), Some(uri))).unwrap())
            .unwrap();
        let e = Mesh::load(&file_path).unwrap_err().to_string();
        assert!(e.contains("is not a relative file path"), "{uri}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A base64 encoder for the test (independent of the reader's decoder).
mod base64_free {
    pub fn encode(b: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in b.chunks(3) {
            let n = (c[0] as u32) << 16
                | (*c.get(1).unwrap_or(&0) as u32) << 8
                | *c.get(2).unwrap_or(&0) as u32;
            for k in 0..4 {
                if k <= c.len() {
                    s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }
}

/// A built-in mesh written as a GLB (f32 positions, u32 indices, one node
/// without a transform) loads back bit for bit.
#[test]
fn gltf_round_trips_a_mesh_exactly() {
    let mesh = builtin::by_name("knot").unwrap();
    let mut d = Doc::default();
    let p: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let pos = d.positions(&p);
    let idx: Vec<u8> = mesh.indices.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
    let ind = d.accessor(&idx, 5125, "SCALAR", mesh.indices.len() * 3, json!({}));
    let bytes = d.glb(json!({
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": ind}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}]
    }));
    let (m, _) = parse_gltf(&bytes, "knot.glb", None).unwrap();
    assert_eq!(m, mesh);
}

/// Quantized positions (KHR_mesh_quantization): normalized i16 and plain u8,
/// converted as the specification says; no scene: the root nodes are read.
#[test]
fn gltf_quantized_positions_and_sceneless_roots() {
    let mut d = Doc::default();
    let q: Vec<u8> = [[32767i16, -32768, 0], [0, 16384, -1], [1, 2, 3]]
        .iter()
        .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()).chain([0, 0]))
        .collect();
    // (stride 8: three i16 and two bytes of padding, as the extension aligns)
    let a = d.accessor(&q, 5122, "VEC3", 3, json!({"normalized": true}));
    d.views[a]["byteStride"] = json!(8);
    let b = d.accessor(&[1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0], 5121, "VEC3", 3, json!({}));
    d.views[b]["byteStride"] = json!(4);
    let bytes = d.glb(json!({
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": a}}]},
            {"primitives": [{"attributes": {"POSITION": b}}]}
        ],
        "nodes": [{"mesh": 0, "children": [1]}, {"mesh": 1}],
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"]
    }));
    let (m, _) = parse_gltf(&bytes, "q.glb", None).unwrap();
    let v: Vec<[f32; 3]> = m.vertices.iter().map(|v| v.to_array()).collect();
    assert_eq!(
        v,
        vec![
            [1.0, -1.0, 0.0],
            [0.0, 16384.0 / 32767.0, -1.0 / 32767.0],
            [1.0 / 32767.0, 2.0 / 32767.0, 3.0 / 32767.0],
            [1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0],
            [7.0, 8.0, 9.0]
        ]
    );
    assert_eq!(m.indices, vec![[0, 1, 2], [3, 4, 5]]);
}

fn refused(bytes: &[u8]) -> String {
    match parse_gltf(bytes, "bad.glb", None) {
        Ok((m, _)) => panic!("accepted: {} triangles", m.indices.len()),
        Err(e) => e.to_string(),
    }
}

/// Malformed and oversized documents: each refused with a message naming
/// the problem, none panics, none allocates what it declares.
#[test]
fn gltf_malformed_documents_are_refused_by_name() {
    let one = |d: &mut Doc| {
        let p = d.positions(&TETRA);
        let i = d.indices_u16(&TETRA_FACES);
        (p, i)
    };
    let mesh = |p: usize, i: usize| json!([{"primitives": [{"attributes": {"POSITION": p}, "indices": i}]}]);
    // an accessor longer than its view
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    d.accessors[p]["count"] = json!(5);
    let e = refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]})));
    assert!(e.contains("POSITION accessor 0") && e.contains("do not fit"), "{e}");
    // a view outside its buffer
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    d.views[i]["byteOffset"] = json!(1 << 20);
    let e = refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]})));
    assert!(e.contains("buffer view 1 lies outside its buffer"), "{e}");
    // a buffer declaring more bytes than the BIN chunk holds
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    let mut j = d.json(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]}), None);
    j["buffers"][0]["byteLength"] = json!(d.bin.len() + 400);
    let e = refused(&glb(&j, &d.bin));
    assert!(e.contains("buffer 0 declares"), "{e}");
    // an index past the primitive's vertices
    let mut d = Doc::default();
    let p = d.positions(&TETRA);
    let i = d.indices_u16(&[0, 1, 9]);
    let e = refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]})));
    assert!(e.contains("index 9, but the primitive has 4 vertices"), "{e}");
    // sparse accessors are not read
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    let si = d.accessor(&[0, 0], 5123, "SCALAR", 1, json!({}));
    let sv = d.accessor(&[0; 12], 5126, "VEC3", 1, json!({}));
    let sparse = json!({"count": 1, "indices": {"bufferView": d.accessors[si]["bufferView"], "componentType": 5123},
        "values": {"bufferView": d.accessors[sv]["bufferView"]}});
    d.accessors[p]["sparse"] = sparse;
    let e = refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]})));
    assert!(e.contains("sparse"), "{e}");
    // a cycle in the node hierarchy, and a chain deeper than the limit
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    let e = refused(&d.glb(
        json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0, "children": [1]}, {"children": [0]}],
        "scenes": [{"nodes": [0]}]}),
    ));
    assert!(e.contains("node 0 is reached twice") && e.contains("cycle"), "{e}");
    // a shared child (a DAG could instance a mesh 2^depth times)
    let e = refused(
        &d.glb(json!({"meshes": mesh(p, i), "nodes": [{"children": [1, 1]}, {"mesh": 0}]})),
    );
    assert!(e.contains("node 1 is reached twice"), "{e}");
    let mut nodes: Vec<Value> = (1..300).map(|k| json!({"children": [k]})).collect();
    nodes.push(json!({"mesh": 0}));
    let e =
        refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": nodes, "scenes": [{"nodes": [0]}]})));
    assert!(e.contains("deeper than 256"), "{e}");
    // an accessor declaring billions of vertices over a 12-byte view:
    // refused by size before anything is read or allocated
    for (count, want) in [(1u64 << 33, "at most"), (1u64 << 31, "of memory")] {
        let mut d = Doc::default();
        let (p, i) = one(&mut d);
        d.accessor(&[0; 12], 5126, "VEC3", 1, json!({}));
        d.accessors.last_mut().unwrap()["count"] = json!(count);
        // (indexed by the tetrahedron's twelve corners: the vertices alone are too many)
        let j = json!({"meshes": [{"primitives": [
            {"attributes": {"POSITION": p}, "indices": i},
            {"attributes": {"POSITION": d.accessors.len() - 1}, "indices": i}]}], "nodes": [{"mesh": 0}]});
        let e = refused(&d.glb(j));
        assert!(e.contains(want) && e.contains("vertices"), "{count}: {e}");
    }
    // a POSITION accessor that does not exist (found by the fuzzer: the
    // gltf crate's own validation indexed it and panicked)
    let e = refused(&d.glb(json!({"meshes": mesh(7, i), "nodes": [{"mesh": 0}]})));
    assert!(e.contains("POSITION accessor 7 does not exist"), "{e}");
    // no mesh reachable; not glTF at all; a truncated GLB
    let mut d = Doc::default();
    let (p, i) = one(&mut d);
    let e = refused(&d.glb(json!({"meshes": mesh(p, i), "nodes": [{}]})));
    assert!(e.contains("no mesh"), "{e}");
    assert!(refused(b"glTF\x02\0\0\0garbage").contains("glTF"));
    assert!(refused(b"{\"asset\": ").contains("glTF"));
    let whole = d.glb(json!({"meshes": mesh(p, i), "nodes": [{"mesh": 0}]}));
    for cut in [13, 40, whole.len() / 2, whole.len() - 3] {
        let _ = parse_gltf(&whole[..cut], "cut.glb", None); // an error or a mesh, never a panic
    }
}

/// A non-finite position is refused by `Mesh::load`'s validation, naming
/// the vertex; a path with another extension is refused naming the five.
#[test]
fn gltf_non_finite_positions_are_refused_on_load() {
    let dir = scratch("nan");
    let mut d = Doc::default();
    let p = d.positions(&[[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let bytes = d.glb(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": p}}]}], "nodes": [{"mesh": 0}]}));
    let path = dir.join("nan.glb");
    std::fs::write(&path, bytes).unwrap();
    let e = Mesh::load(&path).unwrap_err().to_string();
    assert!(e.contains("vertex 1") && e.contains("non-finite"), "{e}");
    let e = Mesh::load(Path::new("x.fbx")).unwrap_err().to_string();
    assert!(e.contains(".gltf or .glb"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
