//! The command line at its edges: the one `--threads` rule, output paths
//! (collisions, extensions, interrupts), `--max-memory`, the messages for
//! bad grid options, `bench --filter`, bipartite `pairs`, and the range of
//! `raycast`'s hit distances.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_widephase")).args(args).output().unwrap()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn fails(args: &[&str]) -> String {
    let o = cli(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    err(&o)
}

/// A fresh scratch directory per test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wp-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// An N×6 float32 `.npy` of boxes.
fn write_boxes(p: &Path, boxes: &[[f32; 6]]) {
    let mut h =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, 6), }}", boxes.len());
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(h.len() as u16).to_le_bytes());
    b.extend_from_slice(h.as_bytes());
    for r in boxes {
        for x in r {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(p, b).unwrap();
}

fn npy_data(bytes: &[u8]) -> &[u8] {
    let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    &bytes[10 + hl..]
}

// ---------------------------------------------------------------------------
// threads

/// Every subcommand refuses an absurd `--threads` at once with the range,
/// and takes 0 as all cores.
#[test]
fn threads_one_rule_for_every_command() {
    let commands: [&[&str]; 4] = [
        &["voxelize", "builtin:torus", "--res", "16"],
        &["pairs", "--random", "1000"],
        &["raycast", "builtin:torus", "--rays", "1000"],
        &["bench", "--quick", "--filter", "sphere_sphere"],
    ];
    for c in commands {
        let mut a = c.to_vec();
        a.extend(["--threads", "100000"]);
        let t = Instant::now();
        let e = fails(&a);
        assert!(t.elapsed() < Duration::from_secs(1), "{a:?} took {:?}", t.elapsed());
        assert!(
            e.contains("--threads 100000 is out of range") && e.contains("0 (all"),
            "{a:?}: {e}"
        );
    }
    for c in &commands[..3] {
        let mut a = c.to_vec();
        a.extend(["--threads", "0", "--json"]);
        let o = cli(&a);
        assert!(o.status.success(), "{a:?}: {}", err(&o));
        let cores = std::thread::available_parallelism().unwrap().get();
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(text.contains(&format!("\"threads\":{cores}")), "{a:?}: {text}");
    }
}

// ---------------------------------------------------------------------------
// outputs

/// Two outputs on one path, however spelled, are refused before any work,
/// and nothing is written.
#[test]
fn outputs_on_one_path_are_rejected() {
    let dir = scratch("same-path");
    let r = dir.join("r.npy");
    let e = fails(&[
        "raycast",
        "builtin:torus",
        "--rays",
        "100",
        "--dump-rays",
        s(&r),
        "--dump-hits",
        s(&r),
    ]);
    assert!(e.contains("--dump-rays and --dump-hits both write") && e.contains("r.npy"), "{e}");
    let a = dir.join("a.npy");
    let other = format!("{}/./a.npy", s(&dir));
    let e =
        fails(&["voxelize", "builtin:torus", "--res", "8", "--out", s(&a), "--triangles", &other]);
    assert!(e.contains("--out and --triangles both write"), "{e}");
    // (the example: a preview named .binvox is refused for its extension)
    let b = dir.join("a.binvox");
    let e = fails(&["voxelize", "builtin:torus", "--res", "8", "--out", s(&b), "--preview", s(&b)]);
    assert!(e.contains("--preview writes .png files, not .binvox"), "{e}");
    // an output over the input mesh
    let mesh = dir.join("m.obj");
    std::fs::write(&mesh, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let boxes = dir.join("boxes.npy");
    write_boxes(&boxes, &[[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]);
    let e = fails(&["pairs", s(&boxes), "--out", s(&boxes)]);
    assert!(e.contains("would overwrite the input"), "{e}");
    assert_eq!(files(&dir), ["boxes.npy", "m.obj"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An extension that does not name the content is refused: npy to .txt, a
/// PNG to .binvox, no extension.
#[test]
fn output_extensions_must_match_the_content() {
    let dir = scratch("ext");
    for (args, needle) in [
        (
            vec!["voxelize", "builtin:torus", "--res", "8", "--out", "x.txt"],
            "--out writes .binvox or .vox or .npy files, not .txt",
        ),
        (
            vec!["voxelize", "builtin:torus", "--res", "8", "--preview", "x.binvox"],
            "--preview writes .png files, not .binvox",
        ),
        (
            vec!["voxelize", "builtin:torus", "--res", "8", "--triangles", "x"],
            "--triangles writes .npy files, not no extension",
        ),
        (vec!["pairs", "--random", "10", "--out", "p.txt"], "--out writes .npy files, not .txt"),
        (
            vec!["raycast", "builtin:torus", "--rays", "10", "--dump-hits", "h.png"],
            "--dump-hits writes .npy files, not .png",
        ),
    ] {
        let mut a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
        let last = a.len() - 1;
        a[last] = s(&dir.join(&a[last])).to_string();
        let a: Vec<&str> = a.iter().map(|x| x.as_str()).collect();
        let e = fails(&a);
        assert!(e.contains(needle), "{a:?}: {e}");
    }
    assert!(files(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The CLI names the files it wrote (stderr; `files` in voxelize's JSON).
#[test]
fn the_cli_says_which_files_it_wrote() {
    let dir = scratch("wrote");
    let (out, png) = (dir.join("t.binvox"), dir.join("t.png"));
    let o =
        cli(&["voxelize", "builtin:torus", "--res", "8", "--out", s(&out), "--preview", s(&png)]);
    assert!(o.status.success(), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("wrote") && e.contains(s(&out)) && e.contains(s(&png)), "{e}");
    let o = cli(&["voxelize", "builtin:torus", "--res", "8", "--out", s(&out), "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["files"], serde_json::json!([s(&out)]));
    let p = dir.join("p.npy");
    let o = cli(&["pairs", "--random", "100", "--out", s(&p)]);
    assert!(err(&o).contains("wrote") && err(&o).contains(s(&p)), "{}", err(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SIGTERM and SIGINT while an output is being written remove its
/// temporary file (and write no output).
#[cfg(unix)]
#[test]
fn interrupted_runs_leave_no_temporary_files() {
    for sig in ["TERM", "INT"] {
        let dir = scratch(&format!("signal-{sig}"));
        let out = dir.join("big.npy");
        // a dense .npy of 640³ bytes: long enough to be caught while writing
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_widephase"))
            .args(["voxelize", "builtin:torus", "--res", "640", "--npy-dense", "--out", s(&out)])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        let caught = loop {
            if files(&dir).iter().any(|f| f.contains(".tmp")) {
                break true;
            }
            if t.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
                break false;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert!(caught, "SIG{sig}: never saw the temporary file");
        let k = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(k.success());
        let status = child.wait().unwrap();
        assert!(!status.success(), "SIG{sig}: the run finished before the signal");
        assert!(files(&dir).is_empty(), "SIG{sig}: left {:?}", files(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

// ---------------------------------------------------------------------------
// memory

/// A job above `--max-memory` is refused before the work, saying what it
/// needs and what to change; sizes parse with units.
#[test]
fn max_memory_refuses_with_the_need() {
    let e = fails(&[
        "voxelize",
        "builtin:torus",
        "--res",
        "512",
        "--mode",
        "solid",
        "--max-memory",
        "20M",
    ]);
    assert!(
        e.contains("needs about") && e.contains("--max-memory 20 MiB") && e.contains("lower --res"),
        "{e}"
    );
    let o =
        cli(&["voxelize", "builtin:torus", "--res", "64", "--mode", "solid", "--max-memory", "2G"]);
    assert!(o.status.success(), "{}", err(&o));
    let e = fails(&["voxelize", "builtin:torus", "--res", "8", "--max-memory", "lots"]);
    assert!(e.contains("--max-memory") && e.contains("is not a size"), "{e}");
}

// ---------------------------------------------------------------------------
// messages

/// `--origin inf,0,0` and `nan` blame the origin, in plain numbers.
#[test]
fn a_non_finite_origin_is_named() {
    for (v, shown) in [("inf,0,0", "x = inf"), ("0,NaN,0", "y = NaN"), ("0,0,-inf", "z = -inf")] {
        let e = fails(&["voxelize", "builtin:torus", "--voxel-size", "0.1", "--origin", v]);
        assert!(
            e.contains("--origin") && e.contains(shown) && e.contains("not finite"),
            "{v}: {e}"
        );
        assert!(!e.contains("mesh") && !e.contains("Vec3"), "{v}: {e}");
    }
    // the library's own message has no debug formatting either
    let g = widephase::voxel::Grid::new(widephase::Vec3::new(f32::NAN, 0.0, 1.5), 1.0, [1, 1, 1]);
    let e = g.unwrap_err().to_string();
    assert!(e.contains("origin (NaN, 0, 1.5) is not finite") && !e.contains("Vec3"), "{e}");
}

/// `--res -5`, `--res=-5`, `--res 0` and `--res 1e9` give one message style.
#[test]
fn bad_res_values_share_one_message() {
    for a in [
        &["--res", "-5"][..],
        &["--res=-5"],
        &["--res", "0"],
        &["--res", "70000"],
        &["--res", "2.5"],
    ] {
        let mut args = vec!["voxelize", "builtin:torus"];
        args.extend_from_slice(a);
        let e = fails(&args);
        assert!(
            e.contains("invalid value")
                && e.contains("--res")
                && e.contains("must be a whole number of voxels in 1..=65536"),
            "{a:?}: {e}"
        );
    }
    let e = fails(&["voxelize", "builtin:torus", "--res", "ten"]);
    assert!(e.contains("\"ten\" is not a number"), "{e}");
}

/// A grid that cannot touch the mesh is an error naming both boxes.
#[test]
fn a_grid_that_misses_the_mesh_is_an_error() {
    let dir = scratch("miss");
    let out = dir.join("x.npy");
    let e = fails(&[
        "voxelize",
        "builtin:cube",
        "--voxel-size",
        "0.1",
        "--origin",
        "100,100,100",
        "--dims",
        "4,4,4",
        "--out",
        s(&out),
    ]);
    assert!(e.contains("misses the mesh") && e.contains("--origin"), "{e}");
    assert!(files(&dir).is_empty());
    // a grid that touches the mesh only with its far face is fine
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench --filter` with no match is an error listing the kernel names.
#[test]
fn bench_filter_without_a_match_lists_the_names() {
    let t = Instant::now();
    let e = fails(&["bench", "--quick", "--filter", "nosuch"]);
    assert!(t.elapsed() < Duration::from_secs(2), "the check must come before the benchmark");
    assert!(
        e.contains("\"nosuch\" matches no kernel") && e.contains("triangle_aabb, sphere_aabb"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// pairs A.npy B.npy, raycast t range

/// `pairs A.npy B.npy` gives the bipartite pairs, checked against all pairs
/// of a brute-force loop.
#[test]
fn pairs_of_two_sets_from_the_command_line() {
    let dir = scratch("bipartite");
    let mut rng = fastrand::Rng::with_seed(3);
    let mut set = |n: usize| -> Vec<[f32; 6]> {
        (0..n)
            .map(|_| {
                let c = [rng.f32() * 10.0, rng.f32() * 10.0, rng.f32() * 10.0];
                let h = rng.f32() * 1.5;
                [c[0], c[1], c[2], c[0] + h, c[1] + h, c[2] + h]
            })
            .collect()
    };
    let (a, b) = (set(300), set(200));
    let (pa, pb, out) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("p.npy"));
    write_boxes(&pa, &a);
    write_boxes(&pb, &b);
    let o = cli(&["pairs", s(&pa), s(&pb), "--out", s(&out), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut want = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (k, y) in b.iter().enumerate() {
            if (0..3).all(|d| x[d] <= y[d + 3] && y[d] <= x[d + 3]) {
                want.push((i as u32, k as u32));
            }
        }
    }
    assert!(!want.is_empty());
    assert_eq!(j["pairs"], want.len());
    let bytes = std::fs::read(&out).unwrap();
    let got: Vec<(u32, u32)> = npy_data(&bytes)
        .chunks_exact(8)
        .map(|c| {
            (
                u32::from_le_bytes(c[..4].try_into().unwrap()),
                u32::from_le_bytes(c[4..].try_into().unwrap()),
            )
        })
        .collect();
    assert_eq!(got, want);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `raycast`'s rays go on past their targets: hits have `t` in `[1/3, 3]`
/// (`bvh::random_rays`), and many have `t > 1`.
#[test]
fn raycast_hit_distances_lie_in_a_third_to_three() {
    let dir = scratch("t-range");
    let hits = dir.join("h.npy");
    let o = cli(&["raycast", "builtin:knot", "--rays", "20000", "--dump-hits", s(&hits)]);
    assert!(o.status.success(), "{}", err(&o));
    let bytes = std::fs::read(&hits).unwrap();
    let t: Vec<f32> = npy_data(&bytes)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .filter(|t| t.is_finite())
        .collect();
    assert!(t.len() > 1000);
    assert!(t.iter().all(|&t| (1.0 / 3.0..=3.0).contains(&t)), "a t outside [1/3, 3]");
    let beyond = t.iter().filter(|&&t| t > 1.0).count();
    assert!(beyond * 20 > t.len(), "{beyond} of {} hits beyond t = 1", t.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `raycast --repeat N` traces the same rays N times in one process: the
/// JSON gives the first and the best time, the hits and outputs are the
/// first run's, for random rays (sorted order), a camera (pixel order) and
/// per-ray outputs (closest hits); `--repeat 0` is refused.
#[test]
fn raycast_repeat_reports_the_best_of_n_and_the_same_hits() {
    let dir = scratch("raycast-repeat");
    let json = |o: &std::process::Output| -> serde_json::Value {
        assert!(o.status.success(), "{}", err(o));
        serde_json::from_slice(&o.stdout).expect("raycast --json output")
    };
    let (h1, h3) = (dir.join("h1.npy"), dir.join("h3.npy"));
    let sources: [&[&str]; 3] = [
        &["--rays", "20000"],
        &["--camera", "64x48", "--eye", "0,-1,3"],
        &["--rays", "5000", "--seed", "7", "--dump-hits"],
    ];
    for (k, src) in sources.iter().enumerate() {
        let run = |repeat: &str, hits: &Path| {
            let mut a = vec!["raycast", "builtin:knot", "--json", "--repeat", repeat];
            a.extend_from_slice(src);
            if k == 2 {
                a.push(s(hits));
            }
            json(&cli(&a))
        };
        let (once, thrice) = (run("1", &h1), run("3", &h3));
        assert_eq!(once["repeat"], 1);
        assert_eq!(once["best_ms"], once["ms"]);
        assert_eq!(thrice["repeat"], 3);
        assert_eq!(thrice["hits"], once["hits"], "{src:?}");
        assert!(thrice["hits"].as_u64().unwrap() > 0, "{src:?}: no hits");
        assert!(thrice["best_ms"].as_f64().unwrap() <= thrice["ms"].as_f64().unwrap());
        if k == 2 {
            assert_eq!(std::fs::read(&h1).unwrap(), std::fs::read(&h3).unwrap());
        }
    }
    let e = fails(&["raycast", "builtin:knot", "--rays", "10", "--repeat", "0"]);
    assert!(e.contains("--repeat"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A huge `--pad` with `--voxel-size` is refused at once (found by the
/// argument fuzzer: `n + pad` overflowed u32 in the covering count, whose
/// loop then ran for billions of steps).
#[test]
fn a_huge_pad_is_refused_at_once() {
    for pad in ["4294967295", "40000", "2147483648"] {
        let t = Instant::now();
        let e = fails(&["voxelize", "builtin:cube", "--voxel-size", "0.25", "--pad", pad]);
        assert!(t.elapsed() < Duration::from_secs(1), "--pad {pad} took {:?}", t.elapsed());
        assert!(e.contains("padding") && e.contains("exceeds 65536"), "{pad}: {e}");
    }
    let e = fails(&["voxelize", "builtin:cube", "--res", "8", "--pad", "4294967295"]);
    assert!(e.contains("padding") && e.contains("exceeds 65536"), "{e}");
}

// ---------------------------------------------------------------------------
// tiles

/// `voxelize --tile`: the index lists of a tiling that does not divide the
/// grid, concatenated and sorted, are byte for byte the whole grid's list;
/// a tile is .npy only, surface or thin, and inside the grid.
#[test]
fn tiles_concatenate_into_the_whole_grid() {
    let dir = scratch("tiles");
    let whole = dir.join("whole.npy");
    let o = cli(&["voxelize", "builtin:knot", "--res", "40", "--pad", "1", "--out", s(&whole)]);
    assert!(o.status.success(), "{}", err(&o));
    let want = npy_data(&std::fs::read(&whole).unwrap()).to_vec();
    let mut rows: Vec<[i32; 3]> = Vec::new();
    let (n, size) = (42u32, [17u32, 42, 11]);
    for k in (0..n).step_by(size[2] as usize) {
        for i in (0..n).step_by(size[0] as usize) {
            let (hi_i, hi_k) = ((i + size[0]).min(n), (k + size[2]).min(n));
            let tile = format!("{i},0,{k}:{hi_i},{n},{hi_k}");
            let out = dir.join(format!("t_{i}_{k}.npy"));
            let o = cli(&[
                "voxelize",
                "builtin:knot",
                "--res",
                "40",
                "--pad",
                "1",
                "--tile",
                &tile,
                "--out",
                s(&out),
                "--json",
            ]);
            assert!(o.status.success(), "{tile}: {}", err(&o));
            assert!(String::from_utf8_lossy(&o.stdout).contains("\"tile\":["));
            let b = std::fs::read(&out).unwrap();
            for r in npy_data(&b).chunks_exact(12) {
                let v = |x: usize| i32::from_le_bytes([r[x], r[x + 1], r[x + 2], r[x + 3]]);
                rows.push([v(0), v(4), v(8)]);
            }
        }
    }
    rows.sort_by_key(|r| (r[2], r[1], r[0]));
    let got: Vec<u8> = rows.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(got, want, "the tiles' rows differ from the whole grid's");
    let tile = ["--tile", "0,0,0:8,8,8"];
    let base = ["voxelize", "builtin:knot", "--res", "40"];
    let run = |extra: &[&str]| fails(&[&base[..], &tile[..], extra].concat());
    assert!(run(&["--out", s(&dir.join("t.binvox"))]).contains(".npy"));
    assert!(run(&["--mode", "solid"]).contains("solid mode is not available tile by tile"));
    let e = fails(&[&base[..], &["--tile", "0,0,0:8,8,41"][..]].concat());
    assert!(e.contains("outside the grid"), "{e}");
    assert!(fails(&[&base[..], &["--tile", "3,0,0:3,8,8"][..]].concat()).contains("empty"));
}

/// A mesh file's unknown statements are reported once on stderr and
/// counted in `--json`.
#[test]
fn unknown_obj_statements_are_reported_once() {
    let dir = scratch("unknown");
    let obj = dir.join("m.obj");
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nfoo 1\nbar 2\nf 1 2 3\n").unwrap();
    let o = cli(&["voxelize", s(&obj), "--res", "4", "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(err(&o).matches("warning").count(), 1, "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"unknown_statements\":2"));
}

// ---------------------------------------------------------------------------
// padding

/// `voxelize --pad p` marks the voxels of `--pad 0` shifted by `p` on every
/// axis (inside the unpadded window; the closed voxels just outside it touch
/// the faces on its border planes), with the voxel size 0.1 (not an f32) and
/// faces on grid planes: the box's faces and an interior face on the plane
/// `x = min + 2·h`. `--json` reports the rounded corner of voxel 0. (Before
/// the planes were measured from the unpadded base, pad 1 lost 12 of the 100
/// surface voxels of this mesh: the faces on the planes `x = max`, `y = max`
/// missed a layer.)
#[test]
fn pad_only_shifts_indices() {
    use widephase::voxel::grid::plane_bounds;
    let d = scratch("pad");
    let (min, h) = ([-1.4120859f32, -4.8040524, 0.4202187], 0.1f32);
    let n = [5, 7, 3];
    let max: [f32; 3] = [0, 1, 2].map(|a| plane_bounds(min[a], h, n[a]).0);
    let cut = plane_bounds(min[0], h, 2).0;
    // the box's 8 corners, then the interior face's 4
    let mut obj = String::new();
    for k in 0..8 {
        let c = [0, 1, 2].map(|a| if k >> a & 1 == 1 { max[a] } else { min[a] });
        obj += &format!("v {} {} {}\n", c[0], c[1], c[2]);
    }
    for (y, z) in [(min[1], min[2]), (max[1], min[2]), (max[1], max[2]), (min[1], max[2])] {
        obj += &format!("v {cut} {y} {z}\n");
    }
    // (1-based; corner k has bit a set when at max along axis a)
    let quads =
        [[1, 5, 7, 3], [2, 4, 8, 6], [1, 2, 6, 5], [3, 7, 8, 4], [1, 3, 4, 2], [5, 6, 8, 7]];
    for q in quads.iter().chain([&[9, 10, 11, 12]]) {
        obj += &format!("f {} {} {}\nf {} {} {}\n", q[0], q[1], q[2], q[0], q[2], q[3]);
    }
    let mesh = d.join("box.obj");
    std::fs::write(&mesh, obj).unwrap();
    let run = |pad: u32, mode: &str| -> (Vec<[i32; 3]>, String) {
        let out = d.join(format!("p{pad}{mode}.npy"));
        let p = pad.to_string();
        let args = ["voxelize", s(&mesh), "--voxel-size", "0.1", "--pad", &p, "--mode", mode];
        let o = cli(&[&args[..], &["--json", "--out", s(&out)]].concat());
        assert!(o.status.success(), "{}", err(&o));
        let bytes = std::fs::read(&out).unwrap();
        let v = npy_data(&bytes)
            .chunks_exact(12)
            .map(|r| [0, 1, 2].map(|a| i32::from_le_bytes(r[4 * a..4 * a + 4].try_into().unwrap())))
            .collect();
        (v, String::from_utf8_lossy(&o.stdout).to_string())
    };
    for mode in ["surface", "thin", "solid"] {
        let (v0, json0) = run(0, mode);
        assert!(!v0.is_empty());
        let j: serde_json::Value = serde_json::from_str(json0.trim()).unwrap();
        let n: Vec<i32> = (0..3).map(|a| j["dims"][a].as_i64().unwrap() as i32).collect();
        for pad in [1, 3] {
            let (v, json) = run(pad, mode);
            let p = pad as i32;
            let inside: Vec<[i32; 3]> = v
                .iter()
                .filter(|x| (0..3).all(|a| x[a] >= p && x[a] < p + n[a]))
                .map(|x| x.map(|c| c - p))
                .collect();
            assert_eq!(inside, v0, "{mode}, pad {pad}: not the pad-0 voxels shifted");
            assert!(v.iter().all(|x| (0..3).all(|a| x[a] + 1 >= p && x[a] <= p + n[a])));
            // `origin` is the corner of voxel 0: min − pad·h rounded down
            let origin = (0..3).map(|a| plane_bounds(min[a], h, -(pad as i64)).0.to_string());
            let want = format!("\"origin\":[{}]", origin.collect::<Vec<_>>().join(","));
            assert!(json.contains(&want), "{json} lacks {want}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

// raycast --rays-file, --camera

/// A raw `.npy` with the given header fields and data bytes (for malformed
/// files too).
fn write_npy_raw(p: &Path, descr: &str, fortran: bool, shape: &str, data: &[u8]) {
    let f = if fortran { "True" } else { "False" };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': {f}, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(h.len() as u16).to_le_bytes());
    b.extend_from_slice(h.as_bytes());
    b.extend_from_slice(data);
    std::fs::write(p, b).unwrap();
}

/// Rows of float32 as an `(N, cols)` `.npy`.
fn write_rows(p: &Path, cols: usize, v: &[f32]) {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    write_npy_raw(p, "<f4", false, &format!("({}, {cols})", v.len() / cols), &bytes);
}

fn read_f32(p: &Path) -> Vec<f32> {
    let b = std::fs::read(p).unwrap();
    npy_data(&b).chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn read_i32(p: &Path) -> Vec<i32> {
    let b = std::fs::read(p).unwrap();
    npy_data(&b).chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The rays dumped by a random run, cast again from the file, give the
/// same hit files byte for byte.
#[test]
fn raycast_rays_file_round_trips_a_random_run() {
    let dir = scratch("rays-file");
    let (r, h1, i1, h2, i2) = (
        dir.join("r.npy"),
        dir.join("h1.npy"),
        dir.join("i1.npy"),
        dir.join("h2.npy"),
        dir.join("i2.npy"),
    );
    let o = cli(&[
        "raycast",
        "builtin:knot",
        "--rays",
        "20000",
        "--seed",
        "7",
        "--dump-rays",
        s(&r),
        "--dump-hits",
        s(&h1),
        "--dump-ids",
        s(&i1),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let o = cli(&[
        "raycast",
        "builtin:knot",
        "--rays-file",
        s(&r),
        "--dump-hits",
        s(&h2),
        "--dump-ids",
        s(&i2),
        "--json",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"rays\":20000"));
    assert_eq!(std::fs::read(&h1).unwrap(), std::fs::read(&h2).unwrap());
    assert_eq!(std::fs::read(&i1).unwrap(), std::fs::read(&i2).unwrap());
    let (t, id) = (read_f32(&h1), read_i32(&i1));
    assert_eq!(t.len(), 20000);
    assert!(t.iter().zip(&id).all(|(t, &i)| t.is_finite() == (i >= 0)));
    assert!(id.iter().filter(|&&i| i >= 0).count() > 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Malformed ray files are refused naming the problem, with a non-zero exit
/// and no output written.
#[test]
fn raycast_rays_file_rejects_malformed_files() {
    let dir = scratch("rays-bad");
    let good: Vec<f32> = vec![0.0, 0.0, 5.0, 0.0, 0.0, -1.0, 0.2, 0.1, 5.0, 0.0, 0.0, -1.0];
    let le = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let f64s: Vec<u8> = good.iter().flat_map(|&x| (x as f64).to_le_bytes()).collect();
    let mut nan = good.clone();
    nan[10] = f32::NAN;
    let mut inf = good.clone();
    inf[1] = f32::INFINITY;
    type Case<'a> = (&'a str, Box<dyn Fn(&Path) + 'a>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "f64.npy",
            Box::new(|p| write_npy_raw(p, "<f8", false, "(2, 6)", &f64s)),
            "dtype '<f8' is not little-endian float32",
        ),
        (
            "be.npy",
            Box::new(|p| write_npy_raw(p, ">f4", false, "(2, 6)", &le(&good))),
            "dtype '>f4'",
        ),
        (
            "cols.npy",
            Box::new(|p| write_npy_raw(p, "<f4", false, "(3, 4)", &le(&good))),
            "is not (N, 6) or (N, 8)",
        ),
        (
            "flat.npy",
            Box::new(|p| write_npy_raw(p, "<f4", false, "(12,)", &le(&good))),
            "is not (N, 6) or (N, 8)",
        ),
        (
            "fortran.npy",
            Box::new(|p| write_npy_raw(p, "<f4", true, "(2, 6)", &le(&good))),
            "Fortran-order",
        ),
        (
            "short.npy",
            Box::new(|p| write_npy_raw(p, "<f4", false, "(2, 6)", &le(&good)[..40])),
            "data is 40 bytes, shape (2, 6) of float32 needs 48",
        ),
        ("empty.npy", Box::new(|p| write_npy_raw(p, "<f4", false, "(0, 6)", &[])), "no rays"),
        ("nan.npy", Box::new(|p| write_rows(p, 6, &nan)), "row 1: dy = NaN is not finite"),
        ("inf.npy", Box::new(|p| write_rows(p, 6, &inf)), "row 0: oy = inf is not finite"),
        (
            "range.npy",
            Box::new(|p| write_rows(p, 8, &[0.0, 0.0, 5.0, 0.0, 0.0, -1.0, 2.0, 1.0])),
            "row 0: t_min = 2 exceeds t_max = 1",
        ),
        (
            "tnan.npy",
            Box::new(|p| write_rows(p, 8, &[0.0, 0.0, 5.0, 0.0, 0.0, -1.0, 0.0, f32::NAN])),
            "row 0: t_max is NaN",
        ),
        ("text.npy", Box::new(|p| std::fs::write(p, "0 0 5 0 0 -1\n").unwrap()), "not a .npy file"),
    ];
    for (name, make, needle) in cases {
        let p = dir.join(name);
        make(&p);
        let hits = dir.join("h.npy");
        let e = fails(&["raycast", "builtin:cube", "--rays-file", s(&p), "--dump-hits", s(&hits)]);
        assert!(e.contains(needle) && e.contains(name), "{name}: {e}");
        assert!(!hits.exists(), "{name}: partial output");
        std::fs::remove_file(&p).unwrap();
    }
    // a missing file, an output over the rays file, a depth image without a camera
    let e = fails(&["raycast", "builtin:cube", "--rays-file", s(&dir.join("none.npy"))]);
    assert!(e.contains("none.npy"), "{e}");
    let r = dir.join("r.npy");
    write_rows(&r, 6, &good);
    let e = fails(&["raycast", "builtin:cube", "--rays-file", s(&r), "--dump-hits", s(&r)]);
    assert!(e.contains("would overwrite the input"), "{e}");
    let e =
        fails(&["raycast", "builtin:cube", "--rays-file", s(&r), "--depth", s(&dir.join("d.npy"))]);
    assert!(e.contains("--depth needs --camera"), "{e}");
    // exactly one ray source
    let e = fails(&["raycast", "builtin:cube", "--rays-file", s(&r), "--rays", "10"]);
    assert!(e.contains("cannot be used with"), "{e}");
    let e = fails(&["raycast", "builtin:cube"]);
    assert!(e.contains("required"), "{e}");
    assert_eq!(files(&dir), ["r.npy"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every per-ray output of `--rays-file` against brute force over all
/// triangles with the scalar watertight test: the smallest `(t, id)`, its
/// barycentrics, the triangle's unit normal; misses `inf`, `-1`, NaN. The
/// rays include `t_min`/`t_max` windows, rays through shared edges and
/// vertices (ties), and rays that miss.
#[test]
fn raycast_rays_file_outputs_match_brute_force() {
    use widephase::ray::ray_triangle;
    use widephase::{Ray, Vec3};
    let dir = scratch("rays-brute");
    let mesh = widephase::voxel::builtin::by_name("torus").unwrap();
    let m = mesh.as_ref();
    let tris: Vec<_> = (0..m.triangle_count()).map(|t| m.triangle(t)).collect();
    let (lo, hi) = m.bounds();
    let mut rng = fastrand::Rng::with_seed(11);
    let mut rows: Vec<f32> = Vec::new();
    let mut rays = Vec::new();
    for i in 0..3000 {
        let f = |rng: &mut fastrand::Rng, a: f32, b: f32| a + (b - a) * rng.f32();
        let o = Vec3::new(f(&mut rng, -3.0, 3.0), f(&mut rng, -3.0, 3.0), f(&mut rng, -3.0, 3.0));
        let target = match i % 3 {
            // a vertex of the mesh (several triangles tie)
            0 => tris[rng.usize(..tris.len())].a,
            // the midpoint of an edge (two triangles tie)
            1 => {
                let t = tris[rng.usize(..tris.len())];
                (t.a + t.b) * 0.5
            }
            _ => {
                Vec3::new(f(&mut rng, lo.x, hi.x), f(&mut rng, lo.y, hi.y), f(&mut rng, lo.z, hi.z))
            }
        };
        let d = target - o;
        let (t0, t1) = if i % 5 == 0 {
            (0.5, 1.5)
        } else if i % 7 == 0 {
            (1.0001, f32::INFINITY)
        } else {
            (0.0, f32::INFINITY)
        };
        rows.extend_from_slice(&[o.x, o.y, o.z, d.x, d.y, d.z, t0, t1]);
        rays.push(Ray { origin: o, dir: d, t_min: t0, t_max: t1 });
    }
    let r = dir.join("r.npy");
    write_rows(&r, 8, &rows);
    let out = |n: &str| dir.join(n);
    let o = cli(&[
        "raycast",
        "builtin:torus",
        "--rays-file",
        s(&r),
        "--dump-hits",
        s(&out("t.npy")),
        "--dump-ids",
        s(&out("i.npy")),
        "--dump-bary",
        s(&out("b.npy")),
        "--dump-normals",
        s(&out("n.npy")),
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let (t, id, uv, nrm) = (
        read_f32(&out("t.npy")),
        read_i32(&out("i.npy")),
        read_f32(&out("b.npy")),
        read_f32(&out("n.npy")),
    );
    let mut hits = 0;
    let mut ties = 0;
    for (k, ray) in rays.iter().enumerate() {
        let mut best: Option<(f32, usize, f32, f32)> = None;
        let mut n_at_best = 0;
        for (j, tri) in tris.iter().enumerate() {
            let h = ray_triangle(ray, tri);
            if h.hit {
                match best {
                    Some((bt, ..)) if h.t > bt => {}
                    Some((bt, ..)) if h.t == bt => n_at_best += 1,
                    _ => {
                        best = Some((h.t, j, h.u, h.v));
                        n_at_best = 1;
                    }
                }
            }
        }
        match best {
            Some((bt, j, u, v)) => {
                hits += 1;
                ties += (n_at_best > 1) as usize;
                assert_eq!((t[k].to_bits(), id[k]), (bt.to_bits(), j as i32), "ray {k}");
                assert_eq!(
                    (uv[2 * k].to_bits(), uv[2 * k + 1].to_bits()),
                    (u.to_bits(), v.to_bits()),
                    "ray {k}"
                );
                let tri = tris[j];
                let n = (tri.b - tri.a).cross(tri.c - tri.a);
                let n = n * (1.0 / n.length());
                assert_eq!(&nrm[3 * k..3 * k + 3], &[n.x, n.y, n.z], "ray {k}");
                assert!((n.length() - 1.0).abs() < 1e-5);
            }
            None => {
                assert!(t[k] == f32::INFINITY && id[k] == -1, "ray {k}");
                assert!(uv[2 * k..2 * k + 2]
                    .iter()
                    .chain(&nrm[3 * k..3 * k + 3])
                    .all(|x| x.is_nan()));
            }
        }
    }
    assert!(hits > 1000 && hits < 3000, "{hits} hits");
    assert!(ties > 50, "{ties} rays with tied hits");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--camera`: the depth image of the unit cube seen from `z = 4` (the
/// centre pixels see the face `z = 1` at depth 3; the corners miss), the
/// hit files in pixel order, and the dumped camera rays cast again from a
/// file give the same hits.
#[test]
fn raycast_camera_writes_a_depth_image() {
    let dir = scratch("camera");
    let p = |n: &str| dir.join(n);
    let o = cli(&[
        "raycast",
        "builtin:cube",
        "--camera",
        "32x24",
        "--eye",
        "0.5,0.5,4",
        "--center",
        "0.5,0.5,0.5",
        "--fov",
        "60",
        "--depth",
        s(&p("d.npy")),
        "--depth-png",
        s(&p("d.png")),
        "--dump-hits",
        s(&p("t.npy")),
        "--dump-ids",
        s(&p("i.npy")),
        "--dump-rays",
        s(&p("r.npy")),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let head = std::fs::read(p("d.npy")).unwrap();
    assert!(String::from_utf8_lossy(&head[..80]).contains("'shape': (24, 32)"));
    let depth = read_f32(&p("d.npy"));
    assert_eq!(depth, read_f32(&p("t.npy")));
    assert_eq!(depth.len(), 32 * 24);
    for y in 9..15 {
        for x in 12..20 {
            assert!((depth[y * 32 + x] - 3.0).abs() < 1e-5, "({x}, {y}): {}", depth[y * 32 + x]);
        }
    }
    assert!(depth[0].is_infinite() && read_i32(&p("i.npy"))[0] == -1);
    assert!(std::fs::read(p("d.png")).unwrap().starts_with(b"\x89PNG"));
    let o = cli(&[
        "raycast",
        "builtin:cube",
        "--rays-file",
        s(&p("r.npy")),
        "--dump-hits",
        s(&p("t2.npy")),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(read_f32(&p("t2.npy")), depth);
    // the default camera frames the mesh: the image centre hits it
    let o = cli(&["raycast", "builtin:knot", "--camera", "16x16", "--depth", s(&p("k.npy"))]);
    assert!(o.status.success(), "{}", err(&o));
    let k = read_f32(&p("k.npy"));
    assert!(k.iter().any(|d| d.is_finite()) && k.iter().any(|d| d.is_infinite()));
    for (args, needle) in [
        (vec!["--camera", "0x10"], "at least 1"),
        (vec!["--camera", "10"], "expected WxH"),
        (vec!["--camera", "8x8", "--fov", "190"], "must be in (0, 180)"),
        (vec!["--camera", "8x8", "--eye", "1,2"], "three comma-separated numbers"),
        (
            vec!["--camera", "8x8", "--eye", "0.5,0.5,0.5", "--center", "0.5,0.5,0.5"],
            "the eye must differ",
        ),
        (vec!["--rays", "10", "--fov", "40"], "--camera"),
    ] {
        let mut a = vec!["raycast", "builtin:cube"];
        a.extend(args);
        let e = fails(&a);
        assert!(e.contains(needle), "{a:?}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
