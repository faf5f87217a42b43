//! `widephase pairs`: all overlapping pairs of N boxes (a `.npy` file or a
//! seeded random set), timed, optionally written as a `uint32 (P, 2)` `.npy`.

use super::CliResult;
use std::path::PathBuf;
use std::time::Instant;
use widephase::broad::{self_pairs, workload};
use widephase::voxel::formats;
use widephase::{Aabb, Vec3};

/// Largest accepted box count (file rows or `--random`).
pub const MAX_BOXES: usize = 100_000_000;

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct PairsOptions {
    pub boxes: Option<PathBuf>,
    pub random: Option<usize>,
    pub seed: u64,
    pub out: Option<PathBuf>,
    pub threads: Option<usize>,
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

/// Runs the subcommand.
pub fn run(o: PairsOptions) -> CliResult {
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
    let pool = match o.threads {
        Some(0) => return Err("--threads 0: expected at least 1".into()),
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t).build()?,
        None => rayon::ThreadPoolBuilder::new().build()?,
    };
    let threads = pool.current_num_threads();
    let t0 = Instant::now();
    let pairs = pool.install(|| self_pairs(&boxes));
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if let Some(out) = &o.out {
        formats::write_atomic(out, |w| formats::write_npy_u32_pairs(w, &pairs))?;
    }
    let n = boxes.len();
    let rate = n as f64 / (ms / 1e3) / 1e6;
    if o.json {
        println!(
            "{{\"source\":{source:?},\"n\":{n},\"pairs\":{},\"ms\":{ms:.3},\"boxes_per_s\":{:.0},\"threads\":{threads}}}",
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
