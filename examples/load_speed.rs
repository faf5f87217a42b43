//! Mesh loading speed, in process, on a file already in memory: the current
//! reader against the previous one (the test oracle in `tests/loaders`),
//! alternated, best and median of N runs, with MB/s. On a busy machine the
//! best run is the figure to compare; the CLI's `--json` `load_ms` also
//! includes reading the file and validation.
//!
//! `cargo run --release --example load_speed -- FILE [RUNS] [new|old|seq]`
//! (the last argument runs one reader only, e.g. under `perf stat` to count
//! its cycles, which a busy machine does not inflate as it does times)

#[path = "../tests/loaders/oracle.rs"]
mod oracle;

use std::time::Instant;
use widephase::voxel::mesh::{parse_obj, parse_ply, parse_stl};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: load_speed FILE [RUNS]");
    let runs: usize = args.get(2).map_or(15, |r| r.parse().expect("RUNS is a number"));
    let only = args.get(3).map(String::as_str);
    let t = Instant::now();
    let bytes = std::fs::read(path).expect("readable file");
    let read_ms = t.elapsed().as_secs_f64() * 1e3;
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    type Parse = fn(&[u8], &str) -> Result<widephase::voxel::Mesh, widephase::voxel::VoxelError>;
    let (new, old): (Parse, Parse) = match ext.as_str() {
        "obj" => (parse_obj, oracle::old_parse_obj),
        "stl" => (parse_stl, oracle::old_parse_stl),
        "ply" => (parse_ply, oracle::old_parse_ply),
        _ => panic!("unknown extension {ext:?}"),
    };
    let mb = bytes.len() as f64 / 1e6;
    let (mut tn, mut to, mut ts) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        if ext == "obj" && only.is_none_or(|o| o == "seq") {
            // one sequential chunk: the per-core rate
            let t = Instant::now();
            let m = widephase::voxel::load::parse_obj_chunked(&bytes, path, 0).expect("parses");
            ts.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(m);
        }
        for (f, times, label) in [(new, &mut tn, "new"), (old, &mut to, "old")] {
            if only.is_some_and(|o| o != label) {
                continue;
            }
            let t = Instant::now();
            let m = f(&bytes, path).expect("mesh parses");
            times.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(m);
        }
    }
    println!(
        "{path}: {mb:.1} MB, fs::read {read_ms:.1} ms, {} rayon threads, {runs} runs each",
        rayon::current_num_threads()
    );
    for (label, t) in [("new", &mut tn), ("old", &mut to), ("new, one chunk", &mut ts)] {
        if t.is_empty() {
            continue;
        }
        t.sort_by(f64::total_cmp);
        println!(
            "{label}: best {:.1} ms ({:.0} MB/s), median {:.1} ms ({:.0} MB/s)",
            t[0],
            mb / t[0] * 1e3,
            t[t.len() / 2],
            mb / t[t.len() / 2] * 1e3
        );
    }
}
