//! The voxelizer's file and CLI layer: per-voxel triangle lists on the command
//! line, mesh-file errors that name the file and the line or element, grid
//! options, output formats (empty, non-cubic, sparse) and the CLI's staging
//! of outputs and its JSON.
//!
//! Every test name starts with `voxel_`, so the filter of
//! `cargo test --release --test io --bins --lib voxel` keeps them all (with
//! the CLI tests whose names mention voxels).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use widephase::voxel::{self, builtin, formats, Grid, Mesh, Options, Storage, VoxelSet};
use widephase::Vec3;

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_widephase")).args(args).output().unwrap()
}

/// A fresh scratch directory per test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("widephase-voxel-io-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn tmp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// A little-endian `uint32` `.npy` of shape `(rows, cols)`, checked strictly.
fn read_u32_npy(bytes: &[u8], cols: usize) -> Vec<Vec<u32>> {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + hl) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + hl]).unwrap();
    assert!(header.contains("'descr': '<u4'") && header.contains("'fortran_order': False"));
    let shape = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let dims: Vec<usize> = shape.split(',').filter_map(|t| t.trim().parse().ok()).collect();
    assert_eq!(dims.len(), 2);
    assert_eq!(dims[1], cols);
    let data = &bytes[10 + hl..];
    assert_eq!(data.len(), dims[0] * cols * 4);
    data.chunks_exact(4 * cols)
        .map(|r| r.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        .collect()
}

fn json(o: &std::process::Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("invalid JSON ({e}): {text}"))
}

// ---------------------------------------------------------------------------
// 1. --triangles

/// `--triangles` writes exactly `triangle_lists` as sorted `(i, j, k, t)`
/// rows; the voxels of the rows are the surface (every surface voxel has a
/// triangle), and `--mode thin` does not change them.
#[test]
fn voxel_cli_triangles_match_triangle_lists_and_surface() {
    let dir = scratch("tris");
    let mesh = builtin::by_name("knot").unwrap();
    let (lo, hi) = mesh.as_ref().bounds();
    for (mode, storage) in [("surface", "auto"), ("thin", "sparse")] {
        let tris = dir.join(format!("t-{mode}.npy"));
        let out = dir.join(format!("v-{mode}.npy"));
        let o = cli(&[
            "voxelize",
            "builtin:knot",
            "--res",
            "40",
            "--pad",
            "1",
            "--mode",
            mode,
            "--storage",
            storage,
            "--triangles",
            s(&tris),
            "--out",
            s(&out),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let rows = read_u32_npy(&std::fs::read(&tris).unwrap(), 4);
        let g = Grid::fit(lo, hi, 40, 1).unwrap();
        let lists = voxel::triangle_lists(mesh.as_ref(), &g).unwrap();
        let want: Vec<Vec<u32>> = lists
            .iter()
            .flat_map(|(v, l)| l.iter().map(move |&t| vec![v[0], v[1], v[2], t]))
            .collect();
        assert!(want.len() > 5000);
        assert_eq!(rows, want);
        // sorted by (k, j, i, t), no duplicates
        assert!(rows
            .windows(2)
            .all(|w| (w[0][2], w[0][1], w[0][0], w[0][3]) < (w[1][2], w[1][1], w[1][0], w[1][3])));
        let row_voxels: BTreeSet<[u32; 3]> = rows.iter().map(|r| [r[0], r[1], r[2]]).collect();
        let surf = voxel::voxelize(mesh.as_ref(), &g, &Options::default()).unwrap().set;
        let surf_set: BTreeSet<[u32; 3]> = surf.indices().into_iter().collect();
        assert_eq!(row_voxels, surf_set, "voxels of the rows == surface voxels");
        // the --out file (this mode's voxels) is within the rows' voxels
        let d = formats::read_npy(&std::fs::read(&out).unwrap(), g.dims).unwrap();
        assert!(d.voxels.iter().all(|v| row_voxels.contains(v)));
        if mode == "surface" {
            assert_eq!(d.voxels.len(), row_voxels.len());
        }
    }
    assert!(tmp_files(&dir).is_empty());
    let o = cli(&["voxelize", "builtin:cube", "--res", "4", "--triangles", s(&dir.join("t.txt"))]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains(".npy"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// 2. Mesh-file errors

/// Loads `bytes` as file `name` in `dir`; the error message, which must be one
/// line and name the file.
fn load_err(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    let e = Mesh::load(&p).unwrap_err().to_string();
    assert!(e.contains(s(&p)), "does not name the file: {e}");
    assert!(!e.contains('\n'), "not one line: {e}");
    e
}

const STL_HEAD: &str = "solid t\nfacet normal 0 0 1\nouter loop\n";

#[test]
fn voxel_ascii_stl_errors_name_the_line() {
    let dir = scratch("stl-ascii");
    let p = dir.join("x").display().to_string();
    let e = load_err(&dir, "a.stl", format!("{STL_HEAD}vertex 0 0 0\nvertex 1 x 0\n").as_bytes());
    assert!(e.contains("a.stl:5:") && e.contains("\"x\""), "{e}");
    let e = load_err(&dir, "b.stl", format!("{STL_HEAD}vertex 0 0\n").as_bytes());
    assert!(e.contains("b.stl:4:") && e.contains("2 coordinates"), "{e}");
    let e = load_err(&dir, "c.stl", b"solid t\nfacet normal 0 0 1\nvertex 0 0 0\n");
    assert!(e.contains("c.stl:3:") && e.contains("\"vertex\""), "{e}");
    let e = load_err(
        &dir,
        "d.stl",
        format!("{STL_HEAD}vertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid t\n").as_bytes(),
    );
    assert!(e.contains("d.stl:6:") && e.contains("2 vertices"), "{e}");
    // a good file still loads
    let good = format!(
        "{STL_HEAD}vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
    );
    std::fs::write(dir.join("g.stl"), good).unwrap();
    assert_eq!(Mesh::load(&dir.join("g.stl")).unwrap().indices.len(), 1);
    let _ = p;
    std::fs::remove_dir_all(&dir).unwrap();
}

fn binary_stl(declared: u32, facets: usize) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&declared.to_le_bytes());
    for f in 0..facets {
        for x in [0.0f32, 0.0, 1.0, 0.0, 0.0, f as f32, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

#[test]
fn voxel_truncated_binary_stl_names_the_facet_counts() {
    let dir = scratch("stl-bin");
    let mut b = binary_stl(3, 2);
    b.extend_from_slice(&[0; 20]); // part of a third facet
    let e = load_err(&dir, "t.stl", &b);
    assert!(e.contains("truncated") && e.contains("3 facets") && e.contains("2 complete"), "{e}");
    assert!(!e.contains("fill whole buffer"), "{e}");
    let e = load_err(&dir, "h.stl", &[7u8; 40]);
    assert!(e.contains("84-byte header"), "{e}");
    std::fs::write(dir.join("ok.stl"), binary_stl(2, 2)).unwrap();
    assert_eq!(Mesh::load(&dir.join("ok.stl")).unwrap().indices.len(), 2);
    // the CLI prints it, naming the file
    let o = cli(&["voxelize", s(&dir.join("t.stl")), "--res", "4"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("t.stl: truncated binary STL"));
    std::fs::remove_dir_all(&dir).unwrap();
}

const PLY_HEAD: &str = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";

#[test]
fn voxel_ply_errors_are_one_line_naming_the_element() {
    let dir = scratch("ply");
    // a bad number: line 11 is vertex 1
    let e =
        load_err(&dir, "a.ply", format!("{PLY_HEAD}0 0 0\n1 zz 0\n0 1 0\n3 0 1 2\n").as_bytes());
    assert!(e.contains("a.ply:11:") && e.contains("vertex 1") && e.contains("zz"), "{e}");
    assert!(!e.contains("ParseFloatError"), "debug output: {e}");
    // a short face list
    let e = load_err(&dir, "b.ply", format!("{PLY_HEAD}0 0 0\n1 0 0\n0 1 0\n3 0 1\n").as_bytes());
    assert!(e.contains("b.ply:13:") && e.contains("face 0"), "{e}");
    // the file ends early
    let e = load_err(&dir, "c.ply", format!("{PLY_HEAD}0 0 0\n1 0 0\n").as_bytes());
    assert!(e.contains("vertex 2") && e.contains("3 vertex elements"), "{e}");
    // a header error names its line
    let bad_head = PLY_HEAD.replace("property float y", "property flaot y");
    let e = load_err(&dir, "d.ply", format!("{bad_head}0 0 0\n").as_bytes());
    assert!(e.contains("d.ply:5:") && e.contains("header"), "{e}");
    // binary, truncated inside the face element
    let mut b = PLY_HEAD.replace("ascii", "binary_little_endian").into_bytes();
    for x in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&[3, 0, 0, 0, 0, 1, 0]);
    let e = load_err(&dir, "e.ply", &b);
    assert!(e.contains("truncated") && e.contains("face 0"), "{e}");
    // the complete binary file loads
    b.extend_from_slice(&[0, 0, 2, 0, 0, 0]);
    std::fs::write(dir.join("f.ply"), &b).unwrap();
    assert_eq!(Mesh::load(&dir.join("f.ply")).unwrap().indices, vec![[0, 1, 2]]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn voxel_obj_decodes_line_by_line() {
    let dir = scratch("obj");
    // invalid bytes inside comments (whole-line and trailing) are fine
    let ok = b"# made by \xff\xfe exporter\nv 0 0 0\nv 1 0 0 # caf\xe9\nv 0 1 0\nf 1 2 3 # \xff\n";
    std::fs::write(dir.join("ok.obj"), ok).unwrap();
    assert_eq!(Mesh::load(&dir.join("ok.obj")).unwrap().indices, vec![[0, 1, 2]]);
    // elsewhere they are an error naming the line and column
    let e = load_err(&dir, "bad.obj", b"v 0 0 0\nv 1 0 0\nv 0 1\xff 0\nf 1 2 3\n");
    assert!(e.contains("bad.obj:3:") && e.contains("UTF-8") && e.contains("column 6"), "{e}");
    // CRLF line ends
    std::fs::write(dir.join("crlf.obj"), b"v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n").unwrap();
    assert_eq!(Mesh::load(&dir.join("crlf.obj")).unwrap().indices.len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// 3. Grid options

#[test]
fn voxel_cli_grid_option_conflicts_are_rejected() {
    for (args, needle) in [
        (
            &["--res", "8", "--dims", "8,8,8", "--voxel-size", "0.1", "--origin", "0,0,0"][..],
            "--res",
        ),
        (&["--res", "8", "--voxel-size", "0.1"][..], "--voxel-size"),
        (&["--res", "8", "--origin", "0,0,0", "--voxel-size", "0.1"][..], "--res"),
        (
            &["--pad", "1", "--voxel-size", "0.1", "--origin", "0,0,0", "--dims", "4,4,4"][..],
            "--pad",
        ),
        (&["--pad", "1", "--voxel-size", "0.1", "--origin", "0,0,0"][..], "--pad"),
        (&["--voxel-size", "0.1", "--dims", "4,4,4"][..], "--origin"),
        (&["--origin", "0,0,0"][..], "--voxel-size"),
    ] {
        let mut a = vec!["voxelize", "builtin:cube"];
        a.extend_from_slice(args);
        let o = cli(&a);
        assert!(!o.status.success(), "{args:?} succeeded");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("error") && e.contains(needle), "{args:?}: {e}");
    }
    let o = cli(&["voxelize", "builtin:cube"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--voxel-size"));
}

fn f3(v: &serde_json::Value) -> [f64; 3] {
    [0, 1, 2].map(|i| v[i].as_f64().unwrap())
}

/// `--voxel-size` alone and with `--origin`: the dims and origin for a known
/// box (h = 0.25, exact in binary), through the CLI's JSON.
#[test]
fn voxel_cli_voxel_size_grids() {
    let dir = scratch("vsize");
    let p = dir.join("box.obj");
    // bounding box [0, 1] × [0, 0.5] × [0, 0.25], one face on each max plane
    std::fs::write(&p, "v 0 0 0\nv 1 0 0\nv 1 0.5 0\nv 0 0.5 0.25\nf 1 2 3\nf 1 3 4\n").unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["voxelize", s(&p), "--json"];
        a.extend_from_slice(extra);
        json(&cli(&a))
    };
    let j = run(&["--voxel-size", "0.25"]);
    assert_eq!(j["dims"], serde_json::json!([4, 2, 1]));
    assert_eq!(f3(&j["origin"]), [0.0, 0.0, 0.0]);
    let j = run(&["--voxel-size", "0.25", "--pad", "2"]);
    assert_eq!(j["dims"], serde_json::json!([8, 6, 5]));
    assert_eq!(f3(&j["origin"]), [-0.5, -0.5, -0.5]);
    assert_eq!(j["voxel_size"].as_f64(), Some(0.25));
    let j = run(&["--voxel-size", "0.25", "--origin", "-1,-0.25,0.1"]);
    assert_eq!(j["dims"], serde_json::json!([8, 3, 1]));
    // (explicit dims are kept; a grid reaching x = 0.5 touches the mesh, one
    // ending at x = -0.5 would miss it, which is an error: tests/cli.rs)
    let j = run(&["--voxel-size", "0.25", "--origin", "-1,-0.25,0", "--dims", "6,3,4"]);
    assert_eq!(j["dims"], serde_json::json!([6, 3, 4]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `Grid::fit_voxel` with voxel sizes that are not binary fractions: the
/// grid covers the box exactly (the far plane of the last non-padding voxel
/// is ≥ max, the origin ≤ min − pad·h), is at most one voxel larger than
/// needed, and every triangle of a mesh lands in some voxel.
#[test]
fn voxel_fit_voxel_covers_the_mesh() {
    let mesh = builtin::torus_knot(300, 16, 0.4);
    let m = mesh.as_ref();
    let (lo, hi) = m.bounds();
    for (h, pad) in [(0.0371f32, 0), (0.1, 1), (0.3, 3), (1.7e-2, 2), (10.0, 0)] {
        let g = Grid::fit_voxel(lo, hi, h, pad).unwrap();
        assert_eq!(g.voxel, h);
        for a in 0..3 {
            let n = g.dims[a] - 2 * pad;
            let ext = (hi.get(a) as f64 - lo.get(a) as f64) / h as f64;
            assert!(n >= 1 && n as f64 <= ext.ceil().max(1.0) + 1.0, "{h} {pad} {:?}", g.dims);
            assert!(g.plane(a, (n + pad) as i64).0 >= hi.get(a));
            assert!(g.plane(a, pad as i64).1 <= lo.get(a));
        }
        let lists = voxel::triangle_lists(m, &g).unwrap();
        let mut hit = vec![false; m.triangle_count()];
        for (_, l) in &lists {
            for &t in l {
                hit[t as usize] = true;
            }
        }
        assert!(hit.iter().all(|&x| x), "h = {h}: a triangle outside the grid");
    }
    // seeded boxes whose extent is (nearly) a whole number of voxels, where
    // the quotient alone falls a rounding short once the padded origin is
    // rounded down: the far plane must still reach max
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..20_000 {
        let lo = Vec3::new(rng.f32() * 10.0 - 5.0, rng.f32(), rng.f32() * 1e3);
        let h = 0.001 + rng.f32();
        let q = rng.u32(1..300) as f64;
        let hi = Vec3::new(
            (lo.x as f64 + q * h as f64) as f32,
            (lo.y as f64 + q * h as f64) as f32,
            (lo.z as f64 + q * h as f64) as f32,
        );
        let pad = rng.u32(0..3);
        let g = Grid::fit_voxel(lo, hi, h, pad).unwrap();
        for a in 0..3 {
            let n = g.dims[a] - pad;
            assert!(g.plane(a, n as i64).0 >= hi.get(a), "{lo:?} {hi:?} {h} {pad}");
            assert!(g.plane(a, pad as i64).1 <= lo.get(a));
        }
    }
    // a flat mesh still gets one voxel across
    let flat = builtin::cuboid(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0));
    let (lo, hi) = flat.as_ref().bounds();
    assert_eq!(Grid::fit_voxel(lo, hi, 0.5, 0).unwrap().dims, [2, 2, 1]);
    assert!(Grid::fit_voxel(lo, hi, 0.0, 0).is_err());
    assert!(Grid::fit_voxel(lo, hi, 1e-6, 0).unwrap_err().to_string().contains("exceed"));
    // covering from an explicit origin
    let g = Grid::covering(Vec3::new(-0.1, 0.2, 5.0), 0.3, hi).unwrap();
    assert_eq!(g.dims, [4, 3, 1]);
}

// ---------------------------------------------------------------------------
// 5. Formats

/// Chunk ids of a `.vox` file, in order (children of MAIN).
fn vox_chunks(b: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut pos = 20;
    let mut out = Vec::new();
    let u = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as usize;
    while pos + 12 <= b.len() {
        let n = u(pos + 4);
        out.push((
            String::from_utf8_lossy(&b[pos..pos + 4]).to_string(),
            b[pos + 12..pos + 12 + n].to_vec(),
        ));
        pos += 12 + n + u(pos + 8);
    }
    assert_eq!(pos, b.len());
    out
}

#[test]
fn voxel_vox_empty_set_has_a_model_and_a_layer() {
    for dims in [[300, 20, 7], [5, 5, 5]] {
        let set = VoxelSet::Sparse(voxel::SparseBricks { dims, bricks: Vec::new() });
        let mut b = Vec::new();
        formats::write_vox(&mut b, &set).unwrap();
        let chunks = vox_chunks(&b);
        let ids: Vec<&str> = chunks.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(ids.iter().filter(|&&i| i == "SIZE").count(), 1, "{ids:?}");
        assert_eq!(ids.iter().filter(|&&i| i == "XYZI").count(), 1, "{ids:?}");
        assert_eq!(ids.iter().filter(|&&i| i == "LAYR").count(), 1, "{ids:?}");
        let size = &chunks.iter().find(|c| c.0 == "SIZE").unwrap().1;
        let want: Vec<u8> = dims.iter().flat_map(|&d| d.min(256).to_le_bytes()).collect();
        assert_eq!(size, &want);
        // LAYR: id 0, a dict, reserved −1
        let l = &chunks.iter().find(|c| c.0 == "LAYR").unwrap().1;
        assert_eq!(&l[..4], &0i32.to_le_bytes());
        assert_eq!(&l[l.len() - 4..], &(-1i32).to_le_bytes());
        let d = formats::read_vox(&b).unwrap();
        assert!(d.voxels.is_empty());
    }
}

/// Round trips through every writer from dense and sparse storage; binvox
/// of a non-cubic grid is padded to a cube with the same origin and voxel size.
#[test]
fn voxel_formats_round_trip_dense_and_sparse() {
    let dir = scratch("formats");
    let m = builtin::torus_knot(200, 12, 0.4);
    let (lo, hi) = m.as_ref().bounds();
    let fit = Grid::fit(lo, hi, 40, 1).unwrap();
    let g = Grid::new(fit.origin, fit.voxel, [42, 31, 37]).unwrap();
    let vox = |storage| {
        voxel::voxelize(m.as_ref(), &g, &Options { storage, ..Options::default() }).unwrap().set
    };
    let dense = vox(Storage::Dense);
    let sparse = vox(Storage::Sparse);
    assert!(matches!(sparse, VoxelSet::Sparse(_)) && matches!(dense, VoxelSet::Dense(_)));
    let idx = dense.indices();
    assert!(idx.len() > 1000);
    for (tag, set) in [("dense", &dense), ("sparse", &sparse)] {
        let p = dir.join(format!("{tag}.binvox"));
        formats::write_atomic(&p, |w| formats::write_binvox_cube(w, &g, set)).unwrap();
        let d = formats::read_binvox(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(d.dims, [42; 3]);
        assert_eq!(d.voxels, idx);
        assert_eq!(d.origin.unwrap(), g.origin.to_array());
        assert!((d.voxel.unwrap() - g.voxel as f64).abs() <= 1e-6 * g.voxel as f64);
        for dense_npy in [false, true] {
            let p = dir.join(format!("{tag}{dense_npy}.npy"));
            formats::write_atomic(&p, |w| formats::write_npy(w, set, dense_npy)).unwrap();
            let d = formats::read_npy(&std::fs::read(&p).unwrap(), g.dims).unwrap();
            assert_eq!((d.dims, &d.voxels), (g.dims, &idx));
        }
        let p = dir.join(format!("{tag}.vox"));
        formats::write_atomic(&p, |w| formats::write_vox(w, set)).unwrap();
        let b = std::fs::read(&p).unwrap();
        assert_eq!(formats::read_vox(&b).unwrap().voxels, idx);
        assert_eq!(vox_chunks(&b).iter().filter(|c| c.0 == "LAYR").count(), 1);
        let p = dir.join(format!("{tag}.png"));
        formats::write_atomic(&p, |w| formats::write_png(w, set)).unwrap();
        check_png(&p, set);
    }
    assert!(tmp_files(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The first panel of the preview looks down −z: pixel `(8 + i, 8 + ny − 1 −
/// j)` (8-pixel gap, v flipped; no binning below 512) is lit iff column
/// `(i, j)` holds a voxel.
fn check_png(p: &Path, set: &VoxelSet) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0u8; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let [nx, ny, nz] = set.dims();
    let width = info.width as usize;
    let mut lit = (None, None);
    for j in 0..ny {
        for i in 0..nx {
            let any = (0..nz).any(|k| set.get([i, j, k]));
            let px = buf[(8 + (ny - 1 - j) as usize) * width + 8 + i as usize];
            assert_eq!(px != 0, any, "pixel of column ({i}, {j})");
            if any {
                lit.0 = Some(px);
            } else {
                lit.1 = Some(px);
            }
        }
    }
    assert!(lit.0.is_some() && lit.1 == Some(0), "both kinds of pixel were checked");
    // the panels' labels under them (5×7 glyphs, 6 pixels apart): "XY" under
    // the first, "YZ" under the third
    const X: [u8; 7] = [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001];
    const Y: [u8; 7] = [0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100];
    const Z: [u8; 7] = [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111];
    let top = 8 + ny.max(nz) as usize + 2;
    assert_eq!(info.height as usize, top + 7 + 10, "panel height, gap and label strip");
    let third = 8 + nx as usize + 8 + nx as usize + 8;
    for (x0, label) in [(8, [X, Y]), (third, [Y, Z])] {
        for (g, glyph) in label.iter().enumerate() {
            for (r, bits) in glyph.iter().enumerate() {
                for c in 0..5 {
                    let px = buf[(top + r) * width + x0 + g * 6 + c];
                    assert_eq!(px != 0, bits >> (4 - c) & 1 == 1, "label pixel ({g}, {r}, {c})");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 6. CLI staging, JSON, progress

/// A preview that cannot be written (a directory is in the way) fails the
/// command and leaves neither the --out file nor --triangles nor temporaries.
#[test]
fn voxel_cli_failed_preview_leaves_no_outputs() {
    let dir = scratch("stage");
    let out = dir.join("t.binvox");
    let tris = dir.join("t.npy");
    let png = dir.join("blocked.png");
    std::fs::create_dir_all(&png).unwrap();
    let o = cli(&[
        "voxelize",
        "builtin:torus",
        "--res",
        "16",
        "--out",
        s(&out),
        "--triangles",
        s(&tris),
        "--preview",
        s(&png),
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("blocked.png"), "{e}");
    assert!(!out.exists() && !tris.exists(), "an output was left behind");
    assert!(tmp_files(&dir).is_empty());
    // the same command with a good preview writes all three
    let png = dir.join("ok.png");
    let o = cli(&[
        "voxelize",
        "builtin:torus",
        "--res",
        "16",
        "--out",
        s(&out),
        "--triangles",
        s(&tris),
        "--preview",
        s(&png),
    ]);
    assert!(o.status.success());
    assert!(out.exists() && tris.exists() && png.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--json` is valid JSON for any mesh path (quotes, backslashes, non-ASCII)
/// and every field has the right type; without a terminal no progress bar is
/// drawn (stderr stays empty).
#[test]
fn voxel_cli_json_is_valid() {
    let dir = scratch("json");
    let p = dir.join("we\"ird \\ näme.obj");
    std::fs::write(&p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let o = cli(&["voxelize", s(&p), "--res", "8", "--mode", "solid", "--json"]);
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = json(&o);
    assert_eq!(j["mesh"], s(&p));
    assert_eq!(j["mode"], "solid");
    assert_eq!(j["storage"], "dense");
    assert_eq!(j["dims"], serde_json::json!([8, 8, 8]));
    for k in ["voxel_size", "load_ms", "voxelize_ms", "write_ms", "triangles", "voxels", "threads"]
    {
        assert!(j[k].is_number(), "{k}: {j}");
    }
    assert!(j["peak_rss_mb"].is_number() || j["peak_rss_mb"].is_null());
    assert_eq!(j["repeat"], 1);
    assert_eq!(j["voxelize_best_ms"], j["voxelize_ms"]);
    // --repeat: the best of N calls, no more than the first; the same output
    let out1 = dir.join("once.npy");
    let out3 = dir.join("thrice.npy");
    let once =
        json(&cli(&["voxelize", "builtin:torus", "--res", "40", "--json", "--out", s(&out1)]));
    let o = cli(&[
        "voxelize",
        "builtin:torus",
        "--res",
        "40",
        "--json",
        "--repeat",
        "3",
        "--out",
        s(&out3),
    ]);
    let j = json(&o);
    assert_eq!(j["repeat"], 3);
    assert_eq!(j["voxels"], once["voxels"]);
    assert!(j["voxelize_best_ms"].as_f64().unwrap() <= j["voxelize_ms"].as_f64().unwrap());
    assert_eq!(std::fs::read(&out1).unwrap(), std::fs::read(&out3).unwrap());
    let o = cli(&["voxelize", "builtin:torus", "--res", "40", "--repeat", "0"]);
    assert!(!o.status.success(), "--repeat 0 must be refused");
    // the summary line, no bar
    let o = cli(&["voxelize", "builtin:torus", "--res", "64"]);
    assert!(o.status.success() && o.stderr.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--weld TOL` merges the 24 split corners of a cube written face by face
/// (as exporters write it) into 8 and reports it in the JSON; the voxels do
/// not change (exact duplicates); a negative or non-finite tolerance is
/// refused naming the flag.
#[test]
fn voxel_cli_weld_merges_split_vertices() {
    let dir = scratch("weld");
    let p = dir.join("split_cube.obj");
    let mut obj = String::new();
    let mut k = 0;
    for axis in 0..3 {
        for side in [0.0f32, 1.0] {
            for (u, w) in [(0.0f32, 0.0f32), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
                let mut c = [0.0f32; 3];
                c[axis] = side;
                c[(axis + 1) % 3] = u;
                c[(axis + 2) % 3] = w;
                obj += &format!("v {} {} {}\n", c[0], c[1], c[2]);
            }
            obj += &format!("f {} {} {} {}\n", k + 1, k + 2, k + 3, k + 4);
            k += 4;
        }
    }
    std::fs::write(&p, obj).unwrap();
    let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
    let plain = json(&cli(&["voxelize", s(&p), "--res", "8", "--json", "--out", s(&a)]));
    assert_eq!(plain["welded_vertices"], 0);
    let welded =
        json(&cli(&["voxelize", s(&p), "--res", "8", "--json", "--weld", "0", "--out", s(&b)]));
    assert_eq!(welded["welded_vertices"], 16);
    assert_eq!(welded["voxels"], plain["voxels"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    for bad in ["-1", "nan", "inf", "x"] {
        let o = cli(&["voxelize", s(&p), "--res", "8", "--weld", bad]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains("--weld"), "{bad}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// binvox bytes written the slow way: every voxel of the `n³` cube in x-z-y
/// order, maximal runs split at 255.
fn binvox_body_by_voxel(n: usize, set: &VoxelSet) -> Vec<u8> {
    let [nx, ny, nz] = set.dims().map(|d| d as usize);
    let mut on = vec![false; nx * ny * nz];
    for [i, j, k] in set.indices() {
        on[(k as usize * ny + j as usize) * nx + i as usize] = true;
    }
    let (mut out, mut value, mut count) = (Vec::new(), 0u8, 0usize);
    let flush = |out: &mut Vec<u8>, value: u8, mut count: usize| {
        while count > 0 {
            out.extend([value, count.min(255) as u8]);
            count -= count.min(255);
        }
    };
    for x in 0..n {
        for z in 0..n {
            for y in 0..n {
                let v = (x < nx && y < ny && z < nz && on[(z * ny + y) * nx + x]) as u8;
                if v != value {
                    flush(&mut out, value, count);
                    (value, count) = (v, 0);
                }
                count += 1;
            }
        }
    }
    flush(&mut out, value, count);
    out
}

/// The binvox writer codes its columns in parallel pieces: on a solid grid
/// wider than one 64-voxel column, with runs longer than 255 that cross the
/// pieces' boundaries, its bytes are those of the voxel-by-voxel coder for
/// dense and sparse storage and in pools of 1, 2 and 3 threads (solid mode
/// needs dense storage).
#[test]
fn voxel_binvox_pieces_join_into_maximal_runs() {
    let dir = scratch("binvox-pieces");
    let m = builtin::torus_knot(300, 16, 0.4);
    let (lo, hi) = m.as_ref().bounds();
    let fit = Grid::fit(lo, hi, 60, 1).unwrap();
    let g = Grid::new(fit.origin, fit.voxel * 0.5, [150, 97, 131]).unwrap();
    use voxel::Mode::{Solid, Surface};
    for (mode, storage) in
        [(Surface, Storage::Dense), (Surface, Storage::Sparse), (Solid, Storage::Dense)]
    {
        let opts = Options { storage, mode, ..Options::default() };
        let set = voxel::voxelize(m.as_ref(), &g, &opts).unwrap().set;
        assert!(set.count() > 10_000, "{mode:?}: {} voxels", set.count());
        let want = binvox_body_by_voxel(150, &set);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let p = dir.join(format!("{mode:?}{storage:?}{threads}.binvox"));
            pool.install(|| formats::write_atomic(&p, |w| formats::write_binvox_cube(w, &g, &set)))
                .unwrap();
            let bytes = std::fs::read(&p).unwrap();
            let body = &bytes[bytes.windows(5).position(|w| w == b"data\n").unwrap() + 5..];
            assert!(body == want, "{mode:?} {storage:?} {threads} threads: binvox body differs");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The index `.npy` of dense storage is written in blocks of rows indexed in
/// parallel: a grid of more rows (y·z) than one block holds gives the sorted
/// voxel list of the set across the block boundaries.
#[test]
fn voxel_npy_index_blocks_join_in_order() {
    let dir = scratch("npy-blocks");
    let m = builtin::torus_knot(300, 16, 0.4);
    let (lo, hi) = m.as_ref().bounds();
    let fit = Grid::fit(lo, hi, 1200, 1).unwrap();
    // x narrowed to one word per row, so that a block is 2¹⁸ rows (y·z)
    let [_, ny, nz] = fit.dims;
    let g = Grid::new(fit.origin + Vec3::new(0.3, 0.0, 0.0), fit.voxel, [40, ny, nz]).unwrap();
    let opts = Options { storage: Storage::Dense, ..Options::default() };
    let set = voxel::voxelize(m.as_ref(), &g, &opts).unwrap().set;
    let idx = set.indices();
    let row = |v: &[u32; 3]| v[1] as usize + ny as usize * v[2] as usize;
    let before = idx.iter().filter(|v| row(v) < 1 << 18).count();
    assert!(
        before > 100 && idx.len() - before > 100,
        "{before} of {} voxels in the first block",
        idx.len()
    );
    let p = dir.join("v.npy");
    formats::write_atomic(&p, |w| formats::write_npy(w, &set, false)).unwrap();
    let d = formats::read_npy(&std::fs::read(&p).unwrap(), g.dims).unwrap();
    assert_eq!(d.voxels, idx);
    std::fs::remove_dir_all(&dir).unwrap();
}
