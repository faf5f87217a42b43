//! `widephase pairs`: all overlapping pairs of N boxes (a `.npy` file or a
//! seeded random set), or of two sets (`pairs A.npy B.npy`: pairs `(i, j)`
//! of a box of A and a box of B), timed, optionally written as a
//! `uint32 (P, 2)` `.npy`.

use super::CliResult;
use std::path::PathBuf;
use std::time::Instant;
use widephase::broad::{bipartite_pairs, self_pairs, workload};
use widephase::voxel::formats;
use widephase::{Aabb, Vec3};

/// Largest accepted box count (file rows or `--random`).
pub const MAX_BOXES: usize = 100_000_000;

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct PairsOptions {
    pub boxes: Option<PathBuf>,
    /// A second set: all pairs between `boxes` and this one.
    pub other: Option<PathBuf>,
    pub random: Option<usize>,
    pub seed: u64,
    pub out: Option<PathBuf>,
    pub json: bool,
}

fn load(path: &PathBuf) -> Result<Vec<Aabb>, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let v = formats::read_npy_f32_rows(&bytes, 6, MAX_BOXES).map_err(|e| format!("{name}: {e}"))?;
    let mut boxes = Vec::with_capacity(v.len() / 6);
    for (i, r) in v.chunks_exact(6).enumerate() {
        if r.iter().any(|x| x.is_nan()) {
            return Err(format!("{name}: row {i} contains NaN"));
        }
        boxes.push(Aabb::new(Vec3::new(r[0], r[1], r[2]), Vec3::new(r[3], r[4], r[5])));
    }
    Ok(boxes)
}

/// Runs the subcommand (on the caller's rayon pool: `--threads` is
/// applied by `main.rs`).
pub fn run(o: PairsOptions) -> CliResult {
    if let Some(out) = &o.out {
        super::outputs::check(&[super::outputs::Output {
            flag: "--out",
            path: out,
            extensions: &["npy"],
        }])?;
        let inputs: Vec<&std::path::Path> =
            o.boxes.iter().chain(&o.other).map(|p| p.as_path()).collect();
        super::outputs::not_an_input("--out", out, &inputs)?;
    }
    let (boxes, source) = match (&o.boxes, o.random) {
        (Some(p), None) => (load(p)?, p.display().to_string()),
        (None, Some(n)) => {
            if n == 0 || n > MAX_BOXES {
                return Err(format!("--random {n}: expected 1..={MAX_BOXES} boxes").into());
            }
            (workload::sparse_boxes(n, o.seed), format!("random:{n}:seed{}", o.seed))
        }
        (Some(_), Some(_)) => return Err("give either BOXES.npy or --random N, not both".into()),
        (None, None) => return Err("no boxes: give BOXES.npy (N×6 float32) or --random N".into()),
    };
    let other = match &o.other {
        Some(p) => Some((load(p)?, p.display().to_string())),
        None => None,
    };
    let threads = rayon::current_num_threads();
    let t0 = Instant::now();
    let pairs = match &other {
        Some((b, _)) => bipartite_pairs(&boxes, b),
        None => self_pairs(&boxes),
    };
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if let Some(out) = &o.out {
        formats::write_atomic(out, |w| formats::write_npy_u32_pairs(w, &pairs))?;
        if !o.json {
            super::outputs::report(&[out]);
        }
    }
    let n = boxes.len() + other.as_ref().map_or(0, |b| b.0.len());
    let source = match &other {
        Some((_, name)) => format!("{source} × {name}"),
        None => source,
    };
    let rate = n as f64 / (ms / 1e3) / 1e6;
    if o.json {
        println!(
            "{{\"source\":{},\"n\":{n},\"pairs\":{},\"ms\":{ms:.3},\"boxes_per_s\":{:.0},\"threads\":{threads}}}",
            super::voxelize::json_str(&source),
            pairs.len(),
            n as f64 / (ms / 1e3)
        );
    } else {
        println!(
            "{source}: {n} boxes, {} pairs in {ms:.3} ms ({rate:.2} Mboxes/s, {threads} threads)",
            pairs.len()
        );
    }
    Ok(())
}
