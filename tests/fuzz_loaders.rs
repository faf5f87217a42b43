//! A mutation fuzzer for the mesh readers on the stable toolchain (libFuzzer
//! needs nightly): seeded mutations (bit flips, interesting bytes, truncation,
//! splicing, deleted and repeated ranges, replaced numbers, huge header counts)
//! of the small files in `tests/fuzz_corpus`, each fed to every reader
//! (OBJ, STL, PLY, glTF) in process. Checked per input:
//! - no panic (`catch_unwind`);
//! - no hang: a watchdog aborts (after saving the input) when one input runs
//!   for more than 10 s, and inputs over 1 s count as failures;
//! - memory bounded by the input: the peak of live heap bytes during a read
//!   (a counting global allocator) at most 64 × input size + 1 MiB;
//! - the OBJ result (mesh, report or message) does not depend on the chunk
//!   size, and equals the previous reader's (`loaders/oracle.rs`) except
//!   where the behaviour changed on purpose; STL and PLY equal the previous
//!   readers except for the non-finite STL message.
//!
//! `cargo test --release --test fuzz_loaders` runs a few seconds of it;
//! `WIDEPHASE_FUZZ_INPUTS=N WIDEPHASE_FUZZ_SEED=S cargo test --release --test
//! fuzz_loaders -- --nocapture` runs N inputs. Failing inputs are written to
//! `$TMPDIR/widephase-fuzz/`.

mod loaders {
    pub mod oracle;
}

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use widephase::voxel::load::parse_obj_chunked;
use widephase::voxel::mesh::{parse_gltf, parse_ply, parse_stl};
use widephase::voxel::{Mesh, VoxelError};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            let now = LIVE.fetch_add(new as isize - l.size() as isize, Relaxed) + new as isize
                - l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn corpus() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let c: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(c.len() >= 8, "corpus in {} is missing", dir.display());
    c
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "-3",
    "7",
    "255",
    "256",
    "65535",
    "4294967295",
    "4294967296",
    "2147483647",
    "-2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "1000000000000",
    "1e38",
    "3.4028236e38",
    "1e-45",
    "1e-46",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "+1",
    ".5",
    "5.",
    "1e",
    "0x10",
    "1_0",
    "",
    "-",
    "+",
    "1/2/3",
    "//",
];
const BYTES: &[u8] = b" \t\r\n\x0b\x0c#/-+.e0123456789vfl\xff\xef\xbb\xbf\x00";

/// One mutation of `seed` (several stacked), with material from `other`.
fn mutate(rng: &mut fastrand::Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = seed.to_vec();
    for _ in 0..rng.usize(1..=4) {
        let len = d.len();
        match rng.u32(0..9) {
            0 if len > 0 => {
                let i = rng.usize(0..len);
                d[i] ^= 1 << rng.u32(0..8);
            }
            1 if len > 0 => {
                let i = rng.usize(0..len);
                d[i] = BYTES[rng.usize(0..BYTES.len())];
            }
            2 => d.truncate(rng.usize(0..=len)),
            3 if !other.is_empty() => {
                // splice: a range of `other` replaces a range here
                let (a, b) = (rng.usize(0..=len), rng.usize(0..=len));
                let (a, b) = (a.min(b), a.max(b));
                let (c, e) = (rng.usize(0..=other.len()), rng.usize(0..=other.len()));
                let (c, e) = (c.min(e), c.max(e));
                d.splice(a..b, other[c..e].iter().copied());
            }
            4 if len > 0 => {
                let (a, b) = (rng.usize(0..len), rng.usize(0..len));
                d.drain(a.min(b)..a.max(b));
            }
            5 if len > 0 && len < 1 << 16 => {
                // repeat a range (long lines, many faces, many corners)
                let (a, b) = (rng.usize(0..len), rng.usize(0..len));
                let piece = d[a.min(b)..a.max(b)].to_vec();
                let at = rng.usize(0..=len);
                for _ in 0..rng.usize(1..=16) {
                    d.splice(at..at, piece.iter().copied());
                }
            }
            6 | 7 => {
                // replace a number (a run of digits, signs, dots, e)
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| d[i].is_ascii_digit() && (i == 0 || !d[i - 1].is_ascii_digit()))
                    .collect();
                if let Some(&s) = starts.get(rng.usize(0..starts.len().max(1))) {
                    let mut e = s;
                    while e < len && (d[e].is_ascii_digit() || b".eE+-".contains(&d[e])) {
                        e += 1;
                    }
                    let n = NUMBERS[rng.usize(0..NUMBERS.len())];
                    d.splice(s..e, n.bytes());
                }
            }
            _ => {
                // a huge count in a PLY header or a binary STL's facet count
                if d.len() >= 84 && !d.starts_with(b"solid") && !d.starts_with(b"ply") {
                    d[80..84].copy_from_slice(&rng.u32(..).to_le_bytes());
                } else if let Some(p) = find(&d, b"element ") {
                    if let Some(sp) = d[p + 8..].iter().position(|&b| b == b' ') {
                        let s = p + 8 + sp + 1;
                        let e = s + d[s..].iter().take_while(|b| b.is_ascii_digit()).count();
                        let n = ["1000000000000", "4294967295", "0", "18446744073709551615"]
                            [rng.usize(0..4)];
                        d.splice(s..e, n.bytes());
                    }
                }
            }
        }
    }
    d
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

fn mesh_eq(a: &Result<Mesh, VoxelError>, b: &Result<Mesh, VoxelError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => {
            let bits = |m: &Mesh| -> Vec<[u32; 3]> {
                m.vertices.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
            };
            bits(x) == bits(y) && x.indices == y.indices
        }
        (Err(x), Err(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}

/// Whether the previous PLY reader can be run on `d`: it loops forever on
/// binary elements without properties and a huge count (fixed in the
/// current reader). (It also panics on header numbers beyond u64: caught.)
fn old_ply_terminates(d: &[u8]) -> bool {
    d.split(|&b| b == b'\n').take_while(|l| !l.starts_with(b"end_header")).all(|l| {
        !l.starts_with(b"element")
            || l.split(|b| !b.is_ascii_digit()).filter(|r| !r.is_empty()).all(|r| {
                std::str::from_utf8(r).unwrap().parse::<u64>().map_or(true, |n| n < 100_000)
            })
    })
}

/// Runs every reader on `d`, then the previous readers; `Err` describes a
/// failed check. The heap peak is taken over the current readers only.
fn check(d: &[u8], peak: &mut f64) -> Result<(), String> {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let seq = parse_obj_chunked(d, "f.obj", 0);
    let chunked: Vec<_> = [3, 17, 64].map(|c| (c, parse_obj_chunked(d, "f.obj", c))).into();
    let stl = parse_stl(d, "f.stl");
    let ply = parse_ply(d, "f.ply");
    // (no previous glTF reader: checked for panics, hangs and memory only)
    let _ = std::hint::black_box(parse_gltf(d, "f.glb", None));
    *peak = (PEAK.load(Relaxed) - base).max(0) as f64;
    for (chunk, r) in &chunked {
        let same = match (&seq, r) {
            (Ok((m, rep)), Ok((m2, rep2))) => {
                mesh_eq(&Ok(m.clone()), &Ok(m2.clone())) && rep == rep2
            }
            (Err(a), Err(b)) => a.to_string() == b.to_string(),
            _ => false,
        };
        if !same {
            return Err(format!("OBJ chunks of {chunk} differ: {seq:?} vs {r:?}"));
        }
    }
    let old = loaders::oracle::old_parse_obj(d, "f.obj");
    let on_purpose = d.starts_with(b"\xEF\xBB\xBF")
        || match &seq {
            Err(e) => {
                let e = e.to_string();
                ["not an OBJ mesh", "self-intersecting", "triangulated", "concave polygon with"]
                    .iter()
                    .any(|s| e.contains(s))
            }
            Ok((_, rep)) => rep.concave_polygons > 0,
        };
    let new = seq.map(|(m, _)| m);
    if !on_purpose && !mesh_eq(&new, &old) {
        return Err(format!("OBJ differs from the previous reader: {new:?} vs {old:?}"));
    }
    let old = loaders::oracle::old_parse_stl(d, "f.stl");
    let on_purpose = matches!(&stl, Err(e) if e.to_string().contains("not finite"));
    if !on_purpose && !mesh_eq(&stl, &old) {
        return Err(format!("STL differs from the previous reader: {stl:?} vs {old:?}"));
    }
    if old_ply_terminates(d) {
        let old = std::panic::catch_unwind(|| loaders::oracle::old_parse_ply(d, "f.ply"));
        // (a panic of the previous reader: the current one must say why)
        let Ok(old) = old else {
            return match &ply {
                Err(e) if e.to_string().contains("out of range") => Ok(()),
                _ => Err(format!("the previous PLY reader panicked, the current one gave {ply:?}")),
            };
        };
        if !mesh_eq(&ply, &old) {
            return Err(format!("PLY differs from the previous reader: {ply:?} vs {old:?}"));
        }
    }
    Ok(())
}

fn save(d: &[u8], what: &str) -> String {
    let dir = std::env::temp_dir().join("widephase-fuzz");
    std::fs::create_dir_all(&dir).ok();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in d {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let p = dir.join(format!("{what}-{h:016x}.bin"));
    std::fs::write(&p, d).ok();
    p.display().to_string()
}

#[test]
fn fuzz_mesh_readers() {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let inputs = env("WIDEPHASE_FUZZ_INPUTS");
    let seed = env("WIDEPHASE_FUZZ_SEED").unwrap_or(1);
    // the default run: 3 s, or this many inputs if that comes first
    let budget = if inputs.is_some() { Duration::MAX } else { Duration::from_secs(3) };
    let inputs = inputs.unwrap_or(200_000);
    let corpus = corpus();
    let mut rng = fastrand::Rng::with_seed(seed);
    // watchdog: the input running for more than 10 s is saved, then abort
    static DONE: AtomicU64 = AtomicU64::new(0);
    let current = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    {
        let current = current.clone();
        std::thread::spawn(move || {
            let mut last = (u64::MAX, Instant::now());
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let n = DONE.load(Relaxed);
                if n != last.0 {
                    last = (n, Instant::now());
                } else if last.1.elapsed() > Duration::from_secs(10) {
                    let d = current.lock().map(|d| d.clone()).unwrap_or_default();
                    eprintln!("FUZZ hang: input {n} runs over 10 s, saved to {}", save(&d, "hang"));
                    std::process::abort();
                }
            }
        });
    }
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let (mut failures, mut slowest, mut max_peak) = (Vec::new(), Duration::ZERO, 0f64);
    let mut n = 0u64;
    while n < inputs && start.elapsed() < budget {
        let a = &corpus[rng.usize(0..corpus.len())];
        let b = &corpus[rng.usize(0..corpus.len())];
        let d = if rng.u32(0..16) == 0 { a.clone() } else { mutate(&mut rng, a, b) };
        *current.lock().unwrap() = d.clone();
        let t = Instant::now();
        let mut peak = 0.0;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&d, &mut peak)));
        let dt = t.elapsed();
        let limit = 64.0 * d.len() as f64 + (1 << 20) as f64;
        max_peak = max_peak.max(peak);
        slowest = slowest.max(dt);
        let fail = match r {
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(("panic", msg))
            }
            Ok(Err(e)) => Some(("mismatch", e)),
            Ok(Ok(())) if dt > Duration::from_secs(1) => Some(("slow", format!("{dt:?}"))),
            Ok(Ok(())) if peak > limit => {
                Some(("memory", format!("{peak} bytes for a {}-byte input", d.len())))
            }
            _ => None,
        };
        if let Some((kind, msg)) = fail {
            let p = save(&d, kind);
            if failures.len() < 20 {
                eprintln!("FUZZ {kind}: {p}: {}", msg.chars().take(600).collect::<String>());
            }
            failures.push(p);
        }
        n += 1;
        DONE.store(n, Relaxed);
    }
    let _ = std::panic::take_hook();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "FUZZ loaders: seed {seed}, {n} inputs in {secs:.1} s ({:.0}/s), {} failures, slowest input {slowest:?}, largest heap peak of a read {:.0} KiB",
        n as f64 / secs,
        failures.len(),
        max_peak / 1024.0
    );
    assert!(failures.is_empty(), "{} failing inputs, first: {}", failures.len(), failures[0]);
}

/// Inputs the fuzzer found, each a failure of the readers before the fix.
#[test]
fn fuzz_findings_stay_fixed() {
    let head = |count: &str, enc: &str| {
        format!(
            "ply\nformat {enc} 1.0\nelement vertex {count}\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
        )
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        // ply-rs's header grammar unwrapped a count beyond u64: a panic
        (format!("{}0 0 0\n", head("99999999999999999999", "ascii")).into_bytes(), "out of range"),
        (head("1", "binary_big_endian").replace("1.0", "1.99999999999999999999").into_bytes(), "out of range"),
        // the same number after a line ply-rs rejects: that line's error,
        // as before (ply-rs stops there)
        (
            head("99999999999999999999", "ascii").replace("element vertex", "bogus\nelement vertex").into_bytes(),
            "r.ply:3: invalid PLY header",
        ),
        // a huge count reserved 64 MiB of ply-rs element maps for a
        // 200-byte file (the memory check)
        (format!("{}0 0 0\n1 0 0\n", head("4294967295", "ascii")).into_bytes(), "file ends at vertex 2"),
        // a binary element without properties and a huge count: nothing to
        // read, so the reader looped (and allocated) forever
        (
            "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000000\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n".into(),
            "vertex 0: missing numeric property x",
        ),
    ];
    // and the saved inputs (replayed through every check)
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_findings");
    let mut saved = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let d = std::fs::read(f.unwrap().path()).unwrap();
        let mut peak = 0.0;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&d, &mut peak)));
        assert!(matches!(r, Ok(Ok(()))), "{:?}", r.map_err(|_| "panic"));
        assert!(peak < (64 * d.len() + (1 << 20)) as f64, "{peak} bytes");
        saved += 1;
    }
    assert!(saved >= 3, "tests/fuzz_findings is missing");
    for (d, want) in cases {
        let mut peak = 0.0;
        let t = Instant::now();
        let e = parse_ply(&d, "r.ply").unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        assert!(t.elapsed() < Duration::from_secs(1));
        // and the whole check (minus the previous PLY reader where it fails)
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&d, &mut peak)));
        assert!(matches!(r, Ok(Ok(()))), "{:?}", r.map_err(|_| "panic"));
        assert!(peak < (64 * d.len() + (1 << 20)) as f64, "{peak} bytes");
    }
}
