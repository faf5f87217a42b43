//! A stable LSD radix sort of `u64` items on their high 32 bits.
//!
//! Three passes of 11/11/10 bits (Terdiman's "Radix sort revisited" skips a
//! pass whose digit is the same for every item; so do we). Stable, so items
//! with equal keys keep their input order: the sorted order is a pure function
//! of the input.

/// Sorts `v` by `item >> 32`, stably; `tmp` is scratch (reused between calls).
pub(crate) fn sort_by_key_u32(v: &mut Vec<u64>, tmp: &mut Vec<u64>) {
    let n = v.len();
    if n < 64 {
        // Small inputs: a stable comparison sort beats three histogram passes.
        v.sort_by_key(|&x| x >> 32);
        return;
    }
    const PASSES: [(u32, usize); 3] = [(32, 11), (43, 11), (54, 10)];
    let mut hist = [[0u32; 2048]; 3];
    for &x in v.iter() {
        for (p, &(shift, bits)) in PASSES.iter().enumerate() {
            hist[p][((x >> shift) as usize) & ((1 << bits) - 1)] += 1;
        }
    }
    // `tmp` keeps its length between calls (only `tmp[..n]` is written), so
    // a kept scratch is not zero-filled again on every call.
    if tmp.len() < n {
        tmp.resize(n, 0);
    }
    for (p, &(shift, bits)) in PASSES.iter().enumerate() {
        let h = &mut hist[p];
        if h.contains(&(n as u32)) {
            continue; // every item has the same digit: the pass is the identity
        }
        let mut sum = 0u32;
        for c in h.iter_mut() {
            let t = *c;
            *c = sum;
            sum += t;
        }
        let mask = (1usize << bits) - 1;
        let dst = &mut tmp[..n];
        for &x in &v[..n] {
            let d = ((x >> shift) as usize) & mask;
            dst[h[d] as usize] = x;
            h[d] += 1;
        }
        core::mem::swap(v, tmp);
    }
    // After an odd number of passes `v` is the old `tmp`, maybe longer.
    v.truncate(n);
}
