//! The y/z grid of "multi box pruning": a `g × g` grid over the boxes' y/z
//! bounds, the cell span of a box (monotone in its coordinates, so rounding
//! only moves which cell reports a pair, never the answer), and the least
//! float of each cell row and column, which makes the home test a comparison.

use super::keys::sort_key;
use crate::shapes::Aabb;
use wide::f32x4;

/// A `g × g` grid over the y/z bounds of the boxes, `g <= 256`. `cell` is
/// monotone (subtraction, multiplication by a positive constant and clamping
/// all preserve order), which is all the pair rule below needs: the rounding
/// of the cell boundaries never changes an answer, only which cell reports it.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    /// `[lo_y, lo_y, lo_z, lo_z]`, matching `[min.y, max.y, min.z, max.z]`.
    lo: f32x4,
    /// Cells per unit length, laid out like `lo`.
    inv: f32x4,
    /// `g - 1` as a float, the clamp of the cell coordinate.
    top: f32x4,
}

impl Grid {
    pub(super) fn new(lo: [f32; 2], hi: [f32; 2], g: usize) -> Self {
        let inv = |a: usize| {
            let w = hi[a] - lo[a];
            let i = g as f32 / w;
            if i.is_finite() && i > 0.0 {
                i
            } else {
                0.0 // zero or overflowing span: every box in cell 0 on this axis
            }
        };
        let (iy, iz) = (inv(0), inv(1));
        Grid {
            lo: f32x4::from([lo[0], lo[0], lo[1], lo[1]]),
            inv: f32x4::from([iy, iy, iz, iz]),
            top: f32x4::splat((g - 1) as f32),
        }
    }
    /// The box's cell range `y0..=y1`, `z0..=z1`, packed one byte each: per
    /// coordinate floor(t) clamped to [0, g-1], with `t = (x - lo) * inv`.
    /// `max` maps a NaN t (an overflowing `x - lo` times a zero `inv`) to 0,
    /// and truncation is the floor once t >= 0. The four coordinates go
    /// through one 4-lane vector: computed one float at a time, the
    /// saturating `as u32` conversions and the compiler's attempt to
    /// vectorize across boxes cost ~20 cycles per box.
    #[inline(always)]
    pub(super) fn span(&self, b: &Aabb) -> Span {
        let x = f32x4::from([b.min.y, b.max.y, b.min.z, b.max.z]);
        let t = ((x - self.lo) * self.inv).max(f32x4::ZERO).min(self.top);
        // In [0, 255] (g <= 256), so the plain truncating conversion is exact.
        let [y0, y1, z0, z1] = t.fast_trunc_int().to_array();
        Span((y0 | y1 << 8 | z0 << 16 | z1 << 24) as u32)
    }

    /// `first[c]` = the home thresholds of cell `c` of this `g × g` grid:
    /// [`Grid::first_of`] of its row on y and of its column on z.
    pub(super) fn home_thresholds(&self, g: usize, first: &mut Vec<[f32; 2]>) {
        let rows: Vec<[f32; 2]> =
            (0..g).map(|c| [self.first_of(c, 0), self.first_of(c, 1)]).collect();
        first.clear();
        first.extend((0..g * g).map(|c| [rows[c / g][0], rows[c % g][1]]));
    }

    /// The least `f32` whose cell is `c` or more on axis `a` (0: y, 1: z):
    /// a box in cell row `c` starts in it iff its `min` on that axis is at
    /// least this. Searched over the floats in order ([`sort_key`]) with
    /// [`Grid::span`] itself as the test, so it is exact for the same
    /// rounding (the cell function is monotone): steps doubling from the
    /// boundary's estimate `lo + c / inv` bracket it, a bisection ends it.
    /// Usually a few steps; at worst ~64 (the estimate can be far off in
    /// floats when `x - lo` cancels, e.g. bounds of ±1e30: single float
    /// steps took seconds there).
    pub(super) fn first_of(&self, c: usize, a: usize) -> f32 {
        let lane = 2 * a;
        let (lo, inv) = (self.lo.to_array()[lane], self.inv.to_array()[lane]);
        if c == 0 {
            return f32::NEG_INFINITY;
        }
        if inv == 0.0 {
            return f32::INFINITY; // every box is in cell 0 on this axis
        }
        let from_key = |k: u32| f32::from_bits(if k >> 31 != 0 { k & 0x7fff_ffff } else { !k });
        // at_least(k): the float of key k is in cell c or later; false at
        // -inf (cell 0 < c), true at +inf (cell g - 1 >= c).
        let at_least = |k: u32| {
            let p = crate::Vec3::new(0.0, from_key(k), from_key(k));
            let sp = self.span(&Aabb::new(p, p)).0;
            ((if a == 0 { sp } else { sp >> 16 }) & 255) as usize >= c
        };
        let (k_min, k_max) = (sort_key(f32::NEG_INFINITY), sort_key(f32::INFINITY));
        let k0 = sort_key(lo + c as f32 / inv).clamp(k_min, k_max);
        // Bracket: at_least(f) false, at_least(t) true.
        let (mut f, mut t) = (k0, k0);
        let mut d = 1u32;
        if at_least(k0) {
            loop {
                f = t.saturating_sub(d).max(k_min);
                if !at_least(f) {
                    break;
                }
                t = f;
                d = d.saturating_mul(2);
            }
        } else {
            loop {
                t = f.saturating_add(d).min(k_max);
                if at_least(t) {
                    break;
                }
                f = t;
                d = d.saturating_mul(2);
            }
        }
        while t - f > 1 {
            let m = f + (t - f) / 2;
            if at_least(m) {
                t = m;
            } else {
                f = m;
            }
        }
        from_key(t)
    }
}

/// A box's cell range, `y0 | y1 << 8 | z0 << 16 | z1 << 24`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Span(pub(super) u32);

impl Span {
    #[inline(always)]
    pub(super) fn y(self) -> core::ops::Range<usize> {
        (self.0 & 255) as usize..((self.0 >> 8) & 255) as usize + 1
    }
    #[inline(always)]
    pub(super) fn z(self) -> core::ops::Range<usize> {
        ((self.0 >> 16) & 255) as usize..(self.0 >> 24) as usize + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vec3;

    /// The cell of coordinate `v` on axis `a` (0: y, 1: z), by [`Grid::span`].
    fn cell(grid: &Grid, v: f32, a: usize) -> usize {
        let p = Vec3::new(0.0, v, v);
        let sp = grid.span(&Aabb::new(p, p));
        if a == 0 {
            sp.y().start
        } else {
            sp.z().start
        }
    }

    /// [`Grid::first_of`] is exactly the least float of each cell: the scan's
    /// home test (`min >= first`) must agree with the cell of `min` for every
    /// float, and a threshold one float off would misjudge boxes that start
    /// on a cell boundary.
    #[test]
    fn first_of_is_the_least_float_of_its_cell() {
        let cases: [([f32; 2], [f32; 2], usize); 6] = [
            ([-2175.0, -2175.0], [2175.0, 2175.0], 9),
            ([0.1, -0.3], [0.7, 0.9], 7),
            ([0.0, 0.0], [64.0, 64.0], 8),
            ([-1e30, 1e-3], [1e30, 1e7], 256),
            ([3.0, 5.0], [3.0, 5.0000005], 2),
            ([-7.25, 1.0], [1e-20, 1.0], 255),
        ];
        for (lo, hi, g) in cases {
            let grid = Grid::new(lo, hi, g);
            for a in 0..2 {
                let mut prev = f32::NEG_INFINITY;
                for c in 0..g {
                    let f = grid.first_of(c, a);
                    assert!(f >= prev, "{lo:?} {hi:?} g={g} axis {a} cell {c}: not monotone");
                    prev = f;
                    if f.is_finite() {
                        assert!(cell(&grid, f, a) >= c, "{lo:?} {hi:?} g={g} a={a} c={c}: {f}");
                    }
                    if c > 0 && f > f32::MIN {
                        let below = f.next_down();
                        assert!(cell(&grid, below, a) < c, "{lo:?} {hi:?} g={g} a={a} c={c}: {f}");
                    }
                }
            }
        }
    }
}
