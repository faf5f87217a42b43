//! Seeded generators for property tests.

pub use fastrand::Rng;
use widephase::Vec3;

/// Number of random cases per predicate: `WIDEPHASE_CASES` if set, else 100 000
/// in release builds and 2 000 in debug builds (the heavy runs are release-only).
pub fn cases() -> usize {
    if let Ok(v) = std::env::var("WIDEPHASE_CASES") {
        return v.parse().expect("WIDEPHASE_CASES must be an integer");
    }
    if cfg!(debug_assertions) {
        2_000
    } else {
        100_000
    }
}

/// A seeded RNG (fixed seed per test so failures replay).
pub fn rng(seed: u64) -> Rng {
    Rng::with_seed(seed)
}

/// Uniform in [lo, hi).
pub fn uniform(r: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * r.f32()
}

/// A point uniform in the cube [lo, hi]^3.
pub fn point(r: &mut Rng, lo: f32, hi: f32) -> Vec3 {
    Vec3::new(uniform(r, lo, hi), uniform(r, lo, hi), uniform(r, lo, hi))
}

/// Orthonormal axes (rows of a rotation) from a random unit quaternion,
/// computed in f64 (four `f64` draws).
pub fn rotation(r: &mut Rng) -> [Vec3; 3] {
    let q: [f64; 4] = core::array::from_fn(|_| r.f64() * 2.0 - 1.0);
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
    let [w, x, y, z] = q.map(|a| a / n);
    let m = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)],
        [2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)],
        [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)],
    ];
    m.map(|row| Vec3::new(row[0] as f32, row[1] as f32, row[2] as f32))
}

/// A "grid" coordinate: a small integer times 2^-k — makes exact touching,
/// coplanar, collinear and parallel configurations common, which is where
/// implementations break.
pub fn grid(r: &mut Rng, n: i32, k: i32) -> f32 {
    r.i32(-n..=n) as f32 * (2.0f32).powi(-k)
}

/// A point with grid coordinates.
pub fn grid_point(r: &mut Rng, n: i32, k: i32) -> Vec3 {
    Vec3::new(grid(r, n, k), grid(r, n, k), grid(r, n, k))
}

/// `x` moved by `n` ulps (n may be negative); crosses zero through ±0 and
/// subnormals.
pub fn nudge(x: f32, n: i32) -> f32 {
    let mut v = x;
    for _ in 0..n.unsigned_abs() {
        v = if n > 0 { next_up(v) } else { next_down(v) };
    }
    v
}

pub fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

pub fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// Scales a point set by 2^e (exact in f32 while in range): used to replay a case
/// at huge and tiny magnitudes.
pub fn scale_pow2(v: Vec3, e: i32) -> Vec3 {
    let s = (2.0f32).powi(e);
    Vec3::new(v.x * s, v.y * s, v.z * s)
}
