//! glTF 2.0 (`.gltf` JSON with its buffers, `.glb` binary): the triangles of
//! every mesh instance in the scene, in world space.
//!
//! The `gltf` crate parses and validates the document (its JSON schema and
//! the references between objects; `POSITION` bounds and
//! `KHR_mesh_quantization` tolerated, see [`validate`]); the buffers and accessors are read here,
//! every range checked against the bytes actually present, so a file that
//! declares more than it holds is an error naming the accessor, never a
//! panic or an allocation its size does not justify. What is read:
//! - the default scene (else the first scene; with no scene, every node that
//!   is no node's child), walked from its roots; each node's local transform
//!   (matrix, or translation · rotation · scale) composed in `f64` down the
//!   hierarchy; every mesh instance's `POSITION`s transformed by it and
//!   rounded to `f32` once. A transform with a negative determinant (a
//!   mirror) reverses the triangles' corner order, so the winding stays
//!   what the file means in world space;
//! - primitives of mode `TRIANGLES`, `TRIANGLE_STRIP` and `TRIANGLE_FAN`
//!   (strips and fans unrolled as the specification, §3.7.2.1, lists them);
//!   points and lines are skipped and counted in the [`LoadReport`];
//! - `POSITION` as `f32`, or as the integer types of
//!   `KHR_mesh_quantization` (normalized or not, converted as §3.11 of the
//!   specification says); indices as `u8`, `u16` or `u32`, or none
//!   (consecutive vertices);
//! - buffers from the GLB's `BIN` chunk, from `data:` URIs (base64), or from
//!   files beside the `.gltf` (relative URIs, percent-decoded); other URI
//!   schemes are refused.
//!
//! Not read: sparse accessors (refused, named), morph targets and skins
//! (the bind pose is what is loaded), and every non-geometric part. Each
//! instance of a mesh gets its own vertices (nothing is welded).
//!
//! Limits, checked before anything is copied: the node hierarchy a forest
//! (§3.5.1: no node reached twice, so no cycle and no shared child; the
//! instances are at most the nodes) at most [`MAX_DEPTH`] deep; at most
//! `u32::MAX` vertices and [`MAX_TRIANGLES`] triangles after instancing, in
//! the memory available (each node can instance the same large mesh).

use super::LoadReport;
use crate::math::Vec3;
use crate::voxel::budget;
use crate::voxel::mesh::Mesh;
use crate::voxel::VoxelError;
use ::gltf::accessor::{DataType, Dimensions};
use ::gltf::mesh::{Mode, Semantic};
use ::gltf::{buffer, Accessor, Document, Node};
use std::path::Path;

/// Deepest node hierarchy read (a deeper one is refused: it is a cycle or
/// not a scene anyone authored).
pub(super) const MAX_DEPTH: usize = 256;

/// Most triangles after instancing.
pub(super) const MAX_TRIANGLES: u64 = 1 << 28;

fn err(name: &str, msg: impl std::fmt::Display) -> VoxelError {
    VoxelError::Mesh(format!("{name}: {msg}"))
}

/// Parses a glTF document (`.gltf` JSON or `.glb` binary, told apart by the
/// GLB magic). `dir` is where relative buffer URIs are looked up (the
/// `.gltf` file's directory); `None` refuses them.
pub fn parse_gltf(
    bytes: &[u8],
    name: &str,
    dir: Option<&Path>,
) -> Result<(Mesh, LoadReport), VoxelError> {
    let gltf = ::gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| err(name, format!("glTF: {e}")))?;
    validate(gltf.document.as_json(), name)?;
    let format = if bytes.starts_with(b"glTF") { "GLB" } else { "glTF" };
    let doc = &gltf.document;
    let buffers = doc
        .buffers()
        .map(|b| load_buffer(&b, gltf.blob.as_deref(), name, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let meshes: Vec<::gltf::Mesh> = doc.meshes().collect();
    let instances = instances(doc, name)?;
    let mut report = LoadReport { format, ..Default::default() };

    // Sizes first (from the accessors' counts): refuse before copying.
    let (mut vertices, mut triangles) = (0u64, 0u64);
    for (mesh, _) in &instances {
        for p in meshes[*mesh].primitives() {
            let Some(pos) = p.get(&Semantic::Positions) else { continue };
            if !matches!(p.mode(), Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
                continue;
            }
            let corners = p.indices().map_or(pos.count(), |a| a.count()) as u64;
            vertices = vertices.saturating_add(pos.count() as u64);
            triangles = triangles.saturating_add(match p.mode() {
                Mode::Triangles => corners / 3,
                _ => corners.saturating_sub(2),
            });
        }
    }
    if vertices > u32::MAX as u64 || triangles > MAX_TRIANGLES {
        return Err(err(
            name,
            format!(
                "the scene instances {vertices} vertices and {triangles} triangles; at most {} and {MAX_TRIANGLES} are read",
                u32::MAX
            ),
        ));
    }
    // (12 bytes a vertex, 12 a triangle, and each primitive's indices while
    // it is unrolled)
    let needed = 24 * (vertices + triangles) + budget::resident();
    if let Some(limit) = budget::default_limit().filter(|&l| needed > l) {
        return Err(err(
            name,
            format!(
                "the scene instances {vertices} vertices and {triangles} triangles, about {} of memory, more than the {} available",
                budget::human(needed),
                budget::human(limit)
            ),
        ));
    }

    let mut mesh = Mesh::default();
    for (m, world) in &instances {
        let gmesh = &meshes[*m];
        let mirror = det3(world) < 0.0;
        for p in gmesh.primitives() {
            let what = format!("mesh {m} primitive {}", p.index());
            if !matches!(p.mode(), Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
                report.unsupported_elements += 1;
                continue;
            }
            let Some(pos) = p.get(&Semantic::Positions) else {
                return Err(err(name, format!("{what} has no POSITION attribute")));
            };
            let base = mesh.vertices.len() as u32;
            let n = pos.count();
            read_positions(&pos, &buffers, &mut mesh.vertices).map_err(|e| {
                err(name, format!("{what}: POSITION accessor {}: {e}", pos.index()))
            })?;
            for v in &mut mesh.vertices[base as usize..] {
                *v = transform(world, *v);
            }
            let corners = match p.indices() {
                Some(a) => read_indices(&a, &buffers)
                    .map_err(|e| err(name, format!("{what}: index accessor {}: {e}", a.index())))?,
                None => (0..n as u32).collect(),
            };
            if let Some(&bad) = corners.iter().find(|&&i| i as usize >= n) {
                return Err(err(
                    name,
                    format!("{what}: index {bad}, but the primitive has {n} vertices"),
                ));
            }
            let at = |i: usize| base + corners[i];
            let mut push = |a: usize, b: usize, c: usize| {
                let t = [at(a), at(b), at(c)];
                mesh.indices.push(if mirror { [t[0], t[2], t[1]] } else { t });
            };
            let k = corners.len();
            match p.mode() {
                Mode::Triangles => (0..k / 3).for_each(|t| push(3 * t, 3 * t + 1, 3 * t + 2)),
                // §3.7.2.1: strip triangle i is (i, i + 1 + i % 2, i + 2 − i % 2)
                Mode::TriangleStrip => {
                    (0..k.saturating_sub(2)).for_each(|i| push(i, i + 1 + i % 2, i + 2 - i % 2))
                }
                // fan triangle i is (i + 1, i + 2, 0)
                _ => (0..k.saturating_sub(2)).for_each(|i| push(i + 1, i + 2, 0)),
            }
        }
    }
    Ok((mesh, report))
}

/// The `gltf` crate's validation (schema and references: what its typed
/// accessors rely on), except two rules that exporters break and this
/// reader does not need: `POSITION` accessors without `min`/`max`, and
/// `KHR_mesh_quantization` as a required extension (read here).
fn validate(root: &::gltf::json::Root, name: &str) -> Result<(), VoxelError> {
    use ::gltf::json::validation::{Checked, Error, Validate};
    // (gltf-json's check of the POSITION bounds indexes the accessors
    // unchecked: a missing accessor must be refused before it runs)
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (k, p) in mesh.primitives.iter().enumerate() {
            if let Some(a) =
                p.attributes.get(&Checked::Valid(::gltf::json::mesh::Semantic::Positions))
            {
                if a.value() >= root.accessors.len() {
                    return Err(err(
                        name,
                        format!(
                            "mesh {m} primitive {k}: POSITION accessor {} does not exist",
                            a.value()
                        ),
                    ));
                }
            }
        }
    }
    let mut problems = Vec::new();
    root.validate(root, ::gltf::json::Path::new, &mut |path, e| {
        let p = path().to_string();
        let tolerated = (e == Error::Missing && (p.ends_with(".min") || p.ends_with(".max")))
            || (e == Error::Unsupported && p.contains("KHR_mesh_quantization"));
        if !tolerated && problems.len() < 8 {
            problems.push(format!("{p}: {e}"));
        }
    });
    if problems.is_empty() {
        Ok(())
    } else {
        Err(err(name, format!("invalid glTF: {}", problems.join("; "))))
    }
}

/// A 4×4 column-major transform in `f64`.
type Mat4 = [[f64; 4]; 4];

const IDENTITY: Mat4 =
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, x) in col.iter_mut().enumerate() {
            *x = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

fn det3(m: &Mat4) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2])
}

fn transform(m: &Mat4, v: Vec3) -> Vec3 {
    let p = [v.x as f64, v.y as f64, v.z as f64];
    let r = |i: usize| (m[0][i] * p[0] + m[1][i] * p[1] + m[2][i] * p[2] + m[3][i]) as f32;
    Vec3::new(r(0), r(1), r(2))
}

/// Every mesh instance of the scene: (mesh index, world transform).
fn instances(doc: &Document, name: &str) -> Result<Vec<(usize, Mat4)>, VoxelError> {
    let roots: Vec<Node> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => {
            let mut child = vec![false; doc.nodes().len()];
            for n in doc.nodes() {
                n.children().for_each(|c| child[c.index()] = true);
            }
            doc.nodes().filter(|n| !child[n.index()]).collect()
        }
    };
    let mut out = Vec::new();
    let mut reached = vec![false; doc.nodes().len()];
    for root in roots {
        walk(&root, &IDENTITY, 1, &mut reached, &mut out, name)?;
    }
    if out.is_empty() {
        return Err(err(name, "the scene has no mesh (no node with a mesh is reachable)"));
    }
    Ok(out)
}

fn walk(
    node: &Node,
    parent: &Mat4,
    depth: usize,
    reached: &mut [bool],
    out: &mut Vec<(usize, Mat4)>,
    name: &str,
) -> Result<(), VoxelError> {
    let i = node.index();
    if std::mem::replace(&mut reached[i], true) {
        return Err(err(
            name,
            format!("node {i} is reached twice: the node hierarchy has a cycle or a node with two parents"),
        ));
    }
    if depth > MAX_DEPTH {
        return Err(err(name, format!("the node hierarchy is deeper than {MAX_DEPTH} levels")));
    }
    let local = node.transform().matrix().map(|c| c.map(f64::from));
    let world = mul(parent, &local);
    if let Some(m) = node.mesh() {
        out.push((m.index(), world));
    }
    for c in node.children() {
        walk(&c, &world, depth + 1, reached, out, name)?;
    }
    Ok(())
}

/// A buffer's bytes: the GLB chunk, a `data:` URI or a file beside the
/// document; at least its declared `byteLength` (any tail is ignored).
fn load_buffer(
    b: &buffer::Buffer,
    blob: Option<&[u8]>,
    name: &str,
    dir: Option<&Path>,
) -> Result<Vec<u8>, VoxelError> {
    let what = format!("buffer {}", b.index());
    let data = match b.source() {
        buffer::Source::Bin => blob
            .ok_or_else(|| {
                err(name, format!("{what} refers to the GLB binary chunk, which is missing"))
            })?
            .to_vec(),
        buffer::Source::Uri(uri) if uri.starts_with("data:") => {
            let (_, payload) = uri
                .split_once(";base64,")
                .ok_or_else(|| err(name, format!("{what}: a data URI that is not base64")))?;
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(payload)
                .map_err(|e| err(name, format!("{what}: bad base64 in its data URI: {e}")))?
        }
        buffer::Source::Uri(uri) => {
            if uri.contains("://") || uri.starts_with('/') {
                return Err(err(name, format!("{what}: URI {uri:?} is not a relative file path")));
            }
            let dir = dir.ok_or_else(|| {
                err(name, format!("{what}: external file {uri:?} needs the document's directory"))
            })?;
            let path = dir.join(percent_decode(uri));
            std::fs::read(&path)
                .map_err(|e| err(name, format!("{what}: {}: {e}", path.display())))?
        }
    };
    if data.len() < b.length() {
        return Err(err(
            name,
            format!("{what} declares {} bytes but holds {}", b.length(), data.len()),
        ));
    }
    Ok(data)
}

/// `%XX` escapes of a URI path decoded (an invalid escape is kept as is).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The bytes of every element of `a`, checked to lie inside its buffer
/// view and the view inside its buffer, and the stride between elements.
/// (Validation leaves an accessor without a view only when it is sparse.)
fn element_bytes<'b>(a: &Accessor, buffers: &'b [Vec<u8>]) -> Result<(&'b [u8], usize), String> {
    let (None, Some(view)) = (a.sparse(), a.view()) else {
        return Err("sparse accessors are not read".into());
    };
    let data = &buffers[view.buffer().index()];
    let size = a.size();
    let stride = view.stride().unwrap_or(size);
    let (v0, vlen) = (view.offset() as u64, view.length() as u64);
    if v0 + vlen > view.buffer().length() as u64 || v0 + vlen > data.len() as u64 {
        return Err(format!("buffer view {} lies outside its buffer", view.index()));
    }
    let count = a.count() as u64;
    if count == 0 {
        return Ok((&[], stride));
    }
    let need = (count - 1)
        .checked_mul(stride as u64)
        .and_then(|b| b.checked_add(a.offset() as u64 + size as u64))
        .filter(|&need| stride >= size && need <= vlen);
    let Some(need) = need else {
        return Err(format!(
            "{count} elements of {size} bytes (stride {stride}, offset {}) do not fit in its view's {vlen} bytes",
            a.offset()
        ));
    };
    Ok((&data[(v0 + a.offset() as u64) as usize..(v0 + need) as usize], stride))
}

fn read_positions(a: &Accessor, buffers: &[Vec<u8>], out: &mut Vec<Vec3>) -> Result<(), String> {
    if a.dimensions() != Dimensions::Vec3 {
        return Err(format!("{:?} elements; positions are VEC3", a.dimensions()));
    }
    let ty = a.data_type();
    let norm = a.normalized();
    // §3.11 (KHR_mesh_quantization): normalized integers to [-1, 1] / [0, 1]
    let comp = move |c: &[u8]| -> f32 {
        match (ty, norm) {
            (DataType::F32, _) => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            (DataType::I8, false) => c[0] as i8 as f32,
            (DataType::U8, false) => c[0] as f32,
            (DataType::I16, false) => i16::from_le_bytes([c[0], c[1]]) as f32,
            (DataType::U16, false) => u16::from_le_bytes([c[0], c[1]]) as f32,
            (DataType::I8, true) => (c[0] as i8 as f32 / 127.0).max(-1.0),
            (DataType::U8, true) => c[0] as f32 / 255.0,
            (DataType::I16, true) => (i16::from_le_bytes([c[0], c[1]]) as f32 / 32767.0).max(-1.0),
            (DataType::U16, true) => u16::from_le_bytes([c[0], c[1]]) as f32 / 65535.0,
            (DataType::U32, _) => f32::NAN, // refused below
        }
    };
    if ty == DataType::U32 {
        return Err("u32 components; positions are f32 or (quantized) 8/16-bit integers".into());
    }
    let cs = ty.size();
    let (bytes, stride) = element_bytes(a, buffers)?;
    out.extend((0..a.count()).map(|i| {
        let e = &bytes[i * stride..];
        Vec3::new(comp(e), comp(&e[cs..]), comp(&e[2 * cs..]))
    }));
    Ok(())
}

fn read_indices(a: &Accessor, buffers: &[Vec<u8>]) -> Result<Vec<u32>, String> {
    if a.dimensions() != Dimensions::Scalar {
        return Err(format!("{:?} elements; indices are SCALAR", a.dimensions()));
    }
    let ty = a.data_type();
    let index = move |c: &[u8]| -> u32 {
        match ty {
            DataType::U8 => c[0] as u32,
            DataType::U16 => u16::from_le_bytes([c[0], c[1]]) as u32,
            _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        }
    };
    if !matches!(ty, DataType::U8 | DataType::U16 | DataType::U32) {
        return Err(format!("{ty:?} components; indices are unsigned integers"));
    }
    let (bytes, stride) = element_bytes(a, buffers)?;
    Ok((0..a.count()).map(|i| index(&bytes[i * stride..])).collect())
}
