//! `--threads`, one rule for every subcommand: absent or `0` means all
//! logical cores; otherwise `1..=max_threads()`.
//!
//! The bound is 4× the logical cores, and at least 64: more workers than
//! that only add start-up time and contention (the voxelizer cuts its grid
//! into ten slabs per thread), and an unbounded count used to hang
//! (`--threads 100000` spawned that many OS threads).

/// The largest `--threads` accepted on this machine.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(64)
}

/// The worker count `threads` asks for, or an error naming the range.
pub fn resolve(threads: Option<usize>) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match threads {
        None | Some(0) => Ok(cores),
        Some(t) if t <= max_threads() => Ok(t),
        Some(t) => Err(format!(
            "--threads {t} is out of range: use 0 (all {cores} cores) or 1..={} (4× the logical cores, at least 64)",
            max_threads()
        )),
    }
}

/// A rayon pool of the workers `threads` asks for (see [`resolve`]).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    let n = resolve(threads)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| format!("cannot start {n} worker threads: {e}"))
}
