//! Broad phase: box pruning and the incremental broad phase against brute force
//! (`overlap::aabb_aabb` over all pairs), at every lane width, chunk size and
//! thread count.

use wide::{f32x16, f32x4, f32x8};
use widephase::broad::{
    bipartite_pairs, bipartite_pairs_with, self_pairs, self_pairs_with, workload, BoxPruner,
    BroadPhase, Handle,
};
use widephase::overlap::aabb_aabb;
use widephase::workload::SplitMix;
use widephase::{Aabb, Vec3};

fn bx(min: [f32; 3], max: [f32; 3]) -> Aabb {
    Aabb::new(Vec3::new(min[0], min[1], min[2]), Vec3::new(max[0], max[1], max[2]))
}

fn brute_self(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if aabb_aabb(&boxes[i], &boxes[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

fn brute_bipartite(a: &[Aabb], b: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if aabb_aabb(x, y) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

std::thread_local! {
    /// One pruner per test thread, kept across every `check_self` call of a
    /// test, so its scratch holds the previous (different) input's state.
    static PRUNER: std::cell::RefCell<BoxPruner> = std::cell::RefCell::new(BoxPruner::new());
}

/// Every lane width, several chunk sizes, 1–3 threads, one-shot and with a
/// reused [`BoxPruner`]: all must equal `want`.
fn check_self(boxes: &[Aabb], want: &[(u32, u32)], what: &str) {
    PRUNER.with_borrow_mut(|p| {
        for threads in 1..=2 {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                assert_eq!(
                    p.self_pairs_with::<f32>(boxes, 7),
                    want,
                    "{what}: reuse f32 t{threads}"
                );
                assert_eq!(
                    p.self_pairs_with::<f32x8>(boxes, 64),
                    want,
                    "{what}: reuse x8 t{threads}"
                );
                assert_eq!(p.self_pairs(boxes), want, "{what}: reuse default t{threads}");
            });
        }
    });
    for threads in 1..=3 {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            for chunk in [1, 7, 64, 1 << 20] {
                assert_eq!(
                    self_pairs_with::<f32>(boxes, chunk),
                    want,
                    "{what}: f32 chunk {chunk} t{threads}"
                );
                assert_eq!(
                    self_pairs_with::<f32x4>(boxes, chunk),
                    want,
                    "{what}: x4 chunk {chunk} t{threads}"
                );
                assert_eq!(
                    self_pairs_with::<f32x8>(boxes, chunk),
                    want,
                    "{what}: x8 chunk {chunk} t{threads}"
                );
                assert_eq!(
                    self_pairs_with::<f32x16>(boxes, chunk),
                    want,
                    "{what}: x16 chunk {chunk} t{threads}"
                );
            }
            assert_eq!(self_pairs(boxes), want, "{what}: default t{threads}");
        });
    }
}

fn check_bipartite(a: &[Aabb], b: &[Aabb], what: &str) {
    let want = brute_bipartite(a, b);
    for threads in 1..=3 {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            for chunk in [1, 5, 1 << 20] {
                assert_eq!(
                    bipartite_pairs_with::<f32>(a, b, chunk),
                    want,
                    "{what}: f32 chunk {chunk}"
                );
                assert_eq!(
                    bipartite_pairs_with::<f32x8>(a, b, chunk),
                    want,
                    "{what}: x8 chunk {chunk}"
                );
                assert_eq!(
                    bipartite_pairs_with::<f32x16>(a, b, chunk),
                    want,
                    "{what}: x16 chunk {chunk}"
                );
            }
            assert_eq!(bipartite_pairs(a, b), want, "{what}: default");
        });
    }
}

/// Random boxes with coordinates on a coarse grid so that equal and touching
/// coordinates are common; some zero-size.
fn grid_boxes(rng: &mut SplitMix, n: usize, cells: u64, max_ext: u64) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let mut min = [0.0; 3];
            let mut max = [0.0; 3];
            for k in 0..3 {
                let m = (rng.next_u64() % cells) as f32;
                min[k] = m;
                max[k] = m + (rng.next_u64() % (max_ext + 1)) as f32;
            }
            bx(min, max)
        })
        .collect()
}

#[test]
fn random_and_clustered_equal_brute_force() {
    let mut rng = SplitMix(1);
    for round in 0..6 {
        let n = [0, 1, 2, 17, 300, 900][round];
        let boxes = grid_boxes(&mut rng, n, 40, 6);
        check_self(&boxes, &brute_self(&boxes), &format!("grid n={n}"));
    }
    // Clustered: everything in a few tight clumps (long scans, many pairs).
    let mut boxes = Vec::new();
    for c in 0..4 {
        let base = c as f32 * 50.0;
        for _ in 0..150 {
            let p = rng.p(base, base + 3.0);
            let e = rng.p(0.0, 1.0);
            boxes.push(Aabb::new(p, p + e));
        }
    }
    check_self(&boxes, &brute_self(&boxes), "clustered");
    // Enough boxes for a fine y/z grid (boxes spanning several cells, shared
    // corners on cell boundaries).
    let boxes = grid_boxes(&mut rng, 2500, 200, 12);
    check_self(&boxes, &brute_self(&boxes), "grid 2500");
    // Continuous random boxes of mixed size.
    let boxes: Vec<Aabb> = (0..700)
        .map(|_| {
            let p = rng.p(-100.0, 100.0);
            let e = rng.p(0.0, 1.0) * (rng.f() * 30.0);
            Aabb::new(p, p + e)
        })
        .collect();
    check_self(&boxes, &brute_self(&boxes), "mixed sizes");
}

/// Boxes that span three or more cells of the y/z grid on an axis (the
/// general path of the cell build; the fast path takes up to 2 × 2 cells),
/// among many small ones: long boxes, a box over the whole world, identical
/// copies, zero-size boxes and boxes touching the long ones' faces.
#[test]
fn boxes_spanning_many_cells() {
    let mut rng = SplitMix(11);
    let mut boxes = grid_boxes(&mut rng, 3000, 300, 4);
    for k in 0..40u32 {
        let (y, z) = ((k * 37 % 300) as f32, (k * 91 % 300) as f32);
        let (ly, lz) = (40.0 + (k % 5) as f32 * 20.0, 40.0 + (k % 7) as f32 * 15.0);
        let x = (k * 53 % 300) as f32;
        boxes.push(bx([x, y, z], [x + 5.0, y + ly, z + lz]));
        // Touching the long box's top face, and a zero-size box on its corner.
        boxes.push(bx([x, y + ly, z], [x + 1.0, y + ly + 1.0, z + 1.0]));
        boxes.push(bx([x + 5.0, y + ly, z + lz], [x + 5.0, y + ly, z + lz]));
    }
    boxes.push(bx([-10.0; 3], [310.0; 3])); // overlaps everything
    let copy = boxes[3001];
    boxes.push(copy);
    check_self(&boxes, &brute_self(&boxes), "spanning many cells");
}

#[test]
fn degenerate_touching_and_invalid_boxes() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let big = f32::MAX;
    let mut boxes = vec![
        bx([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]), // face contact with 0 on the sweep axis
        bx([0.0, 1.0, 0.0], [1.0, 2.0, 1.0]), // face contact on y
        bx([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]), // corner contact with 0
        bx([1.0, 1.0, 0.0], [2.0, 2.0, 1.0]), // edge contact with 0
        bx([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]), // identical to 0
        bx([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]), // a point inside 0
        bx([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]), // a point at the shared corner
        bx([2.0, 0.0, 0.0], [2.0, 0.0, 0.0]), // a point on 1's far face
        bx([-0.0, -0.0, -0.0], [0.0, 0.0, 0.0]), // -0 and +0: the same point
        bx([0.0, 0.0, 0.0], [-1.0, 1.0, 1.0]), // inverted on x: never pairs
        bx([0.0, 0.0, 0.0], [1.0, 1.0, -1.0]), // inverted on z
        bx([nan, 0.0, 0.0], [1.0, 1.0, 1.0]), // NaN min.x (the sort key)
        bx([0.0, 0.0, 0.0], [1.0, nan, 1.0]),
        bx([nan, nan, nan], [nan, nan, nan]),
        bx([-inf, 0.0, 0.0], [1.0, 1.0, 1.0]), // infinite extent: invalid
        bx([0.0, 0.0, 0.0], [inf, 1.0, 1.0]),
        bx([-big, -big, -big], [big, big, big]), // extent overflows to inf: invalid
        bx([-big, 0.0, 0.0], [0.0, 1.0, 1.0]),   // huge but finite: pairs
        bx([big / 2.0, 0.0, 0.0], [big, 1.0, 1.0]),
        bx([big / 2.0, 1.0, 1.0], [big / 2.0, 1.0, 1.0]), // touches the previous at a corner
        bx([1e-38, 1e-38, 1e-38], [1e-38, 1e-38, 1e-38]), // subnormal-scale point
        bx([f32::MIN_POSITIVE, 0.0, 0.0], [1.0, 1e-45, 1e-45]),
        bx([-1.0, -1.0, -1.0], [-f32::MIN_POSITIVE, 0.0, 0.0]),
    ];
    // Every box again, so ties in min.x (the sweep key) are everywhere.
    let copy = boxes.clone();
    boxes.extend(copy);
    let copy = boxes.clone();
    boxes.extend(copy.iter().map(|b| Aabb::new(b.min * 0.5, b.max * 0.5)));
    let want = brute_self(&boxes);
    assert!(want.contains(&(0, 1)) && want.contains(&(0, 3)) && want.contains(&(0, 4)));
    for bad in 10..18 {
        assert!(want.iter().all(|&(i, j)| i != bad && j != bad), "invalid box {bad} paired");
    }
    check_self(&boxes, &want, "degenerate");
    // Every lane position of the scan: a row of boxes touching the first one's
    // far face, behind k boxes that do not overlap it on y.
    for k in 0..40 {
        let mut row = vec![bx([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])];
        for _ in 0..k {
            row.push(bx([0.5, 5.0, 0.0], [0.6, 6.0, 1.0]));
        }
        row.push(bx([1.0, 1.0, 1.0], [3.0, 3.0, 3.0]));
        row.push(bx([1.0, 1.1, 1.0], [3.0, 3.0, 3.0]));
        check_self(&row, &brute_self(&row), &format!("row k={k}"));
    }
}

#[test]
fn huge_coordinates() {
    let mut rng = SplitMix(7);
    let boxes: Vec<Aabb> = (0..500)
        .map(|_| {
            let p = rng.p(-1.0, 1.0) * 1e37;
            let e = rng.p(0.0, 1.0) * 2e36;
            Aabb::new(p, p + e)
        })
        .collect();
    check_self(&boxes, &brute_self(&boxes), "huge");
}

#[test]
fn bipartite_equals_brute_force() {
    let mut rng = SplitMix(3);
    let a = grid_boxes(&mut rng, 400, 30, 5);
    let b = grid_boxes(&mut rng, 333, 30, 5);
    check_bipartite(&a, &b, "grid");
    check_bipartite(&a, &[], "empty b");
    check_bipartite(&[], &b, "empty a");
    // Equal min.x across the sets must give each pair exactly once.
    let same: Vec<Aabb> = a.iter().map(|x| bx([x.min.x, 0.0, 0.0], [x.max.x, 1.0, 1.0])).collect();
    check_bipartite(&same, &same, "same set");
    let mut odd = a.clone();
    odd[3] = bx([f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0]);
    odd[9] = bx([5.0, 0.0, 0.0], [4.0, 9.0, 9.0]);
    check_bipartite(&odd, &b, "invalid");
    // Unequal sets: the pair sort packs an index of each set into one key
    // with the bits each set's size needs (1 box against many, many
    // against 1, and 2^16 + 1 against 3: 17 + 2 bits).
    check_bipartite(&a[..1], &b, "one against many");
    check_bipartite(&a, &b[..1], "many against one");
    let mut big = vec![bx([1.0; 3], [0.0; 3]); (1 << 16) + 1]; // invalid
    big[1 << 16] = a[0];
    big[5] = a[1];
    check_bipartite(&big, &a[..3], "2^16 + 1 against 3");
    check_bipartite(&a[..3], &big, "3 against 2^16 + 1");
}

#[test]
fn terdiman_reference_count() {
    // The "Box pruning revisited" test set: 11,811 pairs at 10k boxes.
    let boxes = workload::terdiman_boxes(10_000, 42);
    let got = self_pairs(&boxes);
    assert_eq!(got.len(), 11_811);
    let sample = &boxes[..2000];
    check_self(sample, &brute_self(sample), "terdiman 2k");
}

/// The live boxes indexed by handle, dead slots as NaN boxes (never pair).
fn rebuild_reference(slots: &[Option<Aabb>]) -> Vec<(u32, u32)> {
    let nan = bx([f32::NAN; 3], [f32::NAN; 3]);
    let boxes: Vec<Aabb> = slots.iter().map(|s| s.unwrap_or(nan)).collect();
    self_pairs_with::<f32>(&boxes, 1 << 20)
}

#[test]
fn incremental_equals_rebuild() {
    let mut rng = SplitMix(11);
    for round in 0..4 {
        let mut bp = BroadPhase::new();
        let mut slots: Vec<Option<Aabb>> = Vec::new();
        let mut handles: Vec<Handle> = Vec::new();
        let random_box = |rng: &mut SplitMix| {
            let r = rng.next_u64() % 50;
            if r == 0 {
                bx([f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0])
            } else if r == 1 {
                bx([3.0, 0.0, 0.0], [2.0, 1.0, 1.0])
            } else {
                let m = [0, 1, 2].map(|_| (rng.next_u64() % 60) as f32 * 0.5);
                let e = [0, 1, 2].map(|_| (rng.next_u64() % 5) as f32 * 0.5);
                bx(m, [m[0] + e[0], m[1] + e[1], m[2] + e[2]])
            }
        };
        for _ in 0..400 {
            let b = random_box(&mut rng);
            let h = bp.insert(b);
            if slots.len() <= h.index() as usize {
                slots.resize(h.index() as usize + 1, None);
            }
            slots[h.index() as usize] = Some(b);
            handles.push(h);
        }
        for step in 0..60 {
            // A few ops per frame (the incremental path), sometimes many (the rebuild path).
            let ops =
                if step % 10 == 9 { 300 } else { 1 + (rng.next_u64() % (4 + round * 8)) as usize };
            for _ in 0..ops {
                let r = rng.next_u64() % 10;
                if r < 6 && !handles.is_empty() {
                    let h = handles[(rng.next_u64() % handles.len() as u64) as usize];
                    // Small motion mostly; sometimes a jump across the world.
                    let old = slots[h.index() as usize].unwrap();
                    let b = if r < 4 && old.is_valid() {
                        let d = Vec3::new(0.5, -0.5, 0.0) * ((rng.next_u64() % 3) as f32 - 1.0);
                        Aabb::new(old.min + d, old.max + d)
                    } else {
                        random_box(&mut rng)
                    };
                    bp.update(h, b);
                    slots[h.index() as usize] = Some(b);
                } else if r < 8 && !handles.is_empty() {
                    let k = (rng.next_u64() % handles.len() as u64) as usize;
                    let h = handles.swap_remove(k);
                    bp.remove(h);
                    slots[h.index() as usize] = None;
                } else {
                    let b = random_box(&mut rng);
                    let h = bp.insert(b);
                    if slots.len() <= h.index() as usize {
                        slots.resize(h.index() as usize + 1, None);
                    }
                    slots[h.index() as usize] = Some(b);
                    handles.push(h);
                }
            }
            let want = rebuild_reference(&slots);
            assert_eq!(bp.pairs(), &want[..], "round {round} step {step}");
            assert_eq!(bp.len(), handles.len());
        }
    }
}

// ---- the `widephase pairs` command ----

#[cfg(feature = "cli")]
fn widephase() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_widephase"))
}

#[cfg(feature = "cli")]
fn npy_f32(shape: &str, descr: &str, data: &[f32]) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(h.len() as u16).to_le_bytes());
    v.extend_from_slice(h.as_bytes());
    for x in data {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v
}

#[cfg(feature = "cli")]
#[test]
fn cli_pairs_file_and_random() {
    let dir = std::env::temp_dir().join(format!("wp_pairs_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let boxes =
        [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 5.0, 5.0, 5.0, 6.0, 6.0, 6.0];
    let input = dir.join("boxes.npy");
    std::fs::write(&input, npy_f32("(3, 6)", "<f4", &boxes)).unwrap();
    let out = dir.join("pairs.npy");
    let r = widephase()
        .args([
            "pairs",
            input.to_str().unwrap(),
            "--json",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let s = String::from_utf8(r.stdout).unwrap();
    assert!(
        s.contains("\"n\":3")
            && s.contains("\"pairs\":1")
            && s.contains("\"threads\":2")
            && s.contains("\"ms\":"),
        "{s}"
    );
    let bytes = std::fs::read(&out).unwrap();
    assert!(
        String::from_utf8_lossy(&bytes[..128]).contains("'<u4'")
            && String::from_utf8_lossy(&bytes[..128]).contains("(1, 2)")
    );
    assert_eq!(&bytes[bytes.len() - 8..], &[0, 0, 0, 0, 1, 0, 0, 0]); // the corner-touching pair (0, 1)

    // --random: the count equals the library's answer on the same seeded boxes.
    let r =
        widephase().args(["pairs", "--random", "3000", "--seed", "5", "--json"]).output().unwrap();
    assert!(r.status.success());
    let want = self_pairs(&workload::sparse_boxes(3000, 5)).len();
    assert!(String::from_utf8(r.stdout).unwrap().contains(&format!("\"pairs\":{want},")));

    // Malformed inputs: a clear error naming the file, non-zero exit, no output file.
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("magic.npy", b"not numpy at all".to_vec(), "magic"),
        ("dtype.npy", npy_f32("(3, 6)", "<f8", &boxes), "float32"),
        ("shape.npy", npy_f32("(3, 5)", "<f4", &boxes[..15]), "(N, 6)"),
        ("short.npy", npy_f32("(4, 6)", "<f4", &boxes), "bytes"),
        (
            "nan.npy",
            npy_f32(
                "(3, 6)",
                "<f4",
                &[boxes[..7].to_vec(), vec![f32::NAN], boxes[8..].to_vec()].concat(),
            ),
            "NaN",
        ),
        ("absurd.npy", npy_f32("(99999999999, 6)", "<f4", &boxes), "limit"),
    ];
    for (name, bytes, what) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = dir.join(format!("{name}.out.npy"));
        let r = widephase()
            .args(["pairs", p.to_str().unwrap(), "--out", o.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{name} accepted");
        assert!(err.contains(name) && err.contains(what), "{name}: {err}");
        assert!(!o.exists(), "{name}: output written");
    }
    let r = widephase().args(["pairs", "--random", "0"]).output().unwrap();
    assert!(!r.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn long_and_short_partner_runs() {
    // Box 0 overlaps k thin boxes placed in shuffled index order, so the run
    // of pairs (0, *) has exactly k entries: lengths around the 16-, 32-,
    // 48- and 64-entry limits of the per-run rank sort, and a long one for the
    // library-sort fallback. Enough filler boxes for the y/z grid.
    let mut rng = SplitMix(5);
    for k in [1usize, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 200] {
        let mut boxes = vec![bx([0.0, 0.0, 0.0], [10.0, 10.0, 10.0])];
        let mut star: Vec<Aabb> = (0..k)
            .map(|i| {
                let x = (i % 10) as f32;
                let y = (i / 10 % 10) as f32;
                bx([x, y, 5.0], [x + 0.25, y + 0.25, 5.0 + (i / 100) as f32 * 0.5])
            })
            .collect();
        for i in (1..star.len()).rev() {
            star.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        boxes.extend(star);
        boxes.extend(grid_boxes(&mut rng, 300, 400, 3).into_iter().map(|b| {
            Aabb::new(b.min + Vec3::new(20.0, 20.0, 20.0), b.max + Vec3::new(20.0, 20.0, 20.0))
        }));
        let want = brute_self(&boxes);
        assert_eq!(want.iter().filter(|p| p.0 == 0).count(), k, "k={k}");
        check_self(&boxes, &want, &format!("star k={k}"));
    }
}

#[test]
fn many_pairs_two_level_sort() {
    // More than 256k pairs, so the pair sort runs its two levels (bucket by
    // first index, then scatter and sort each bucket): once over a y/z grid
    // (small boxes in a large world) and once without one (boxes too large
    // for a grid). Partner runs range from one to hundreds of entries.
    let mut rng = SplitMix(17);
    for (n, world, half) in [(20_000usize, 400.0f32, 25.0f32), (3_000, 100.0, 25.0)] {
        let boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let c = rng.p(0.0, world);
                let h = Vec3::new(rng.f() * half, rng.f() * half, rng.f() * half);
                Aabb::new(c - h, c + h)
            })
            .collect();
        let want = brute_self(&boxes);
        assert!(want.len() > 256 * 1024, "n={n}: only {} pairs", want.len());
        check_self(&boxes, &want, &format!("many pairs n={n}"));
    }
}

#[test]
fn pair_sort_index_widths() {
    // The pair sort packs both indices of a pair into one 32-bit key for up
    // to 2^16 boxes and takes a CSR scatter by first index above that; the
    // index width counts every input box, valid or not. So: 2^16 - 1, 2^16,
    // 2^16 + 1 and 100k boxes, all invalid but 2,500 spread over the whole
    // index range (the last index among them, partners on either side).
    let mut rng = SplitMix(23);
    for n in [(1 << 16) - 1, 1 << 16, (1 << 16) + 1, 100_000] {
        let valid = grid_boxes(&mut rng, 2500, 60, 5);
        let step = n / valid.len();
        let at: Vec<usize> = (0..valid.len()).map(|k| n - 1 - k * step).collect();
        let mut boxes = vec![bx([1.0; 3], [0.0; 3]); n]; // min > max: invalid
        for (&i, b) in at.iter().zip(&valid) {
            boxes[i] = *b;
        }
        let mut want: Vec<(u32, u32)> = brute_self(&valid)
            .into_iter()
            .map(|(a, b)| {
                let (a, b) = (at[a as usize] as u32, at[b as usize] as u32);
                (a.min(b), a.max(b))
            })
            .collect();
        want.sort_unstable();
        assert!(want.len() > 1000, "n={n}: only {} pairs", want.len());
        check_self(&boxes, &want, &format!("index widths n={n}"));
    }
}

#[test]
fn boxes_starting_on_cell_boundaries() {
    // The grid's cells own a pair by where its boxes start, tested against
    // each cell row's least start (`Grid::first_of`): a threshold one float
    // off misjudges boxes starting exactly on a boundary, or one float below
    // it. 1,024 boxes in [0, 64]² on y/z (two anchor boxes hold the bounds),
    // extents of at most 2, make an 8 × 8 grid with boundaries at multiples
    // of 8 (exact in floats); integer coordinates start many boxes on them,
    // and every third box moved one float down starts just below.
    let mut rng = SplitMix(29);
    let mut boxes = grid_boxes(&mut rng, 1022, 63, 2);
    for (k, b) in boxes.iter_mut().enumerate() {
        for a in [1, 2] {
            let m = &mut [&mut b.min.y, &mut b.min.z][a - 1];
            if k % 3 == a && **m > 0.0 && **m % 8.0 == 0.0 {
                **m = m.next_down();
            }
        }
    }
    boxes.push(bx([0.0, 0.0, 0.0], [0.5, 0.5, 0.5]));
    boxes.push(bx([63.5, 63.5, 63.5], [64.0, 64.0, 64.0]));
    let on = boxes.iter().filter(|b| b.min.y % 8.0 == 0.0 || b.min.z % 8.0 == 0.0).count();
    let below = boxes.iter().filter(|b| b.min.y.next_up() % 8.0 == 0.0).count();
    assert!(on > 100 && below > 20, "{on} boxes on a boundary, {below} just below");
    let want = brute_self(&boxes);
    check_self(&boxes, &want, "boxes starting on cell boundaries");
}
