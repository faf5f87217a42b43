//! Triangulation of OBJ polygons (faces with more than three corners).
//!
//! Convex polygons are fanned from their first corner, which is what the
//! loader always did, so files of triangles and convex quads load exactly as
//! before. A concave polygon would be wrong fanned (an L-shaped face fills
//! its notch), so it is ear-clipped instead: projected onto the coordinate
//! plane most parallel to it (the largest component of its Newell normal,
//! Newell 1972 / Sutherland et al. 1974, "A characterization of ten hidden
//! surface algorithms", the usual robust normal of a non-planar polygon), then
//! an ear is cut at a time (Meisters 1975, "Polygons have ears": a simple
//! polygon always has one). A concave polygon with two edges that cross in
//! that projection is not simple, has no meaningful inside, and is rejected
//! with an error naming its line; so are concave polygons above
//! [`MAX_CLIPPED_CORNERS`] corners (ear clipping and the crossing test are
//! quadratic to cubic in the corner count, and a file should not be able to
//! stall the loader). Edges that only touch (a hole joined to the outline by
//! a doubled edge) are allowed. Polygons without area (all corners on a
//! line, or lobes whose areas cancel) are fanned.

use crate::math::Vec3;

/// The most corners a concave polygon may have; convex polygons of any size
/// are fanned.
pub const MAX_CLIPPED_CORNERS: usize = 512;

/// How a polygon was triangulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// Fanned from the first corner (convex, or without area).
    Fan,
    /// Ear-clipped (concave).
    EarClipped,
}

/// Writes the `corners.len() - 2` triangles of the polygon into `out` (which
/// has exactly that length). `verts` holds every vertex a corner names.
pub(crate) fn triangulate(
    verts: &[Vec3],
    corners: &[u32],
    out: &mut [[u32; 3]],
) -> Result<Split, String> {
    let n = corners.len();
    debug_assert!(n >= 3 && out.len() == n - 2);
    let fan = |out: &mut [[u32; 3]]| {
        for k in 1..n - 1 {
            out[k - 1] = [corners[0], corners[k], corners[k + 1]];
        }
        Split::Fan
    };
    if n == 3 {
        return Ok(fan(out));
    }
    let p = |k: usize| {
        let v = verts[corners[k] as usize];
        [v.x as f64, v.y as f64, v.z as f64]
    };
    // Newell normal (sum over edges of the cross terms).
    let mut nrm = [0f64; 3];
    for k in 0..n {
        let (a, b) = (p(k), p((k + 1) % n));
        nrm[0] += (a[1] - b[1]) * (a[2] + b[2]);
        nrm[1] += (a[2] - b[2]) * (a[0] + b[0]);
        nrm[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let axis = (0..3).max_by(|&i, &j| nrm[i].abs().total_cmp(&nrm[j].abs())).unwrap_or(2);
    if !(nrm[axis].abs() > 0.0 && nrm[axis].is_finite()) {
        // no area (all corners on a line) or non-finite coordinates (which
        // validation reports): there is no notch to fill
        return Ok(fan(out));
    }
    // the two other axes in cyclic order, so the polygon runs counter-clockwise
    // in (u, v) when the normal's component is positive; flip u otherwise
    let (iu, iv) = ((axis + 1) % 3, (axis + 2) % 3);
    let flip = if nrm[axis] > 0.0 { 1.0 } else { -1.0 };
    let uv: Vec<[f64; 2]> = (0..n).map(|k| [flip * p(k)[iu], p(k)[iv]]).collect();
    let cross = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    if is_convex(&uv, cross) {
        return Ok(fan(out));
    }
    if n > MAX_CLIPPED_CORNERS {
        return Err(format!(
            "concave polygon with {n} corners: more than the {MAX_CLIPPED_CORNERS} corners the loader ear-clips"
        ));
    }
    if let Some((i, j)) = crossing(&uv, cross) {
        return Err(format!(
            "polygon with {n} corners is self-intersecting (its edges {} and {} cross); split it into simple polygons",
            i + 1,
            j + 1
        ));
    }
    // ear clipping over a ring of the remaining corners
    let mut next: Vec<usize> = (0..n).map(|k| (k + 1) % n).collect();
    let mut prev: Vec<usize> = (0..n).map(|k| (k + n - 1) % n).collect();
    let (mut left, mut cur, mut since_cut, mut t) = (n, 0usize, 0usize, 0usize);
    while left > 3 {
        let (a, b) = (prev[cur], next[cur]);
        if is_ear(&uv, &next, a, cur, b, cross) {
            out[t] = [corners[a], corners[cur], corners[b]];
            t += 1;
            next[a] = b;
            prev[b] = a;
            left -= 1;
            since_cut = 0;
            cur = a;
        } else {
            since_cut += 1;
            if since_cut > left {
                // (a polygon without crossing edges always has an ear; this
                // is rounding in nearly degenerate ones)
                return Err(format!(
                    "polygon with {n} corners could not be triangulated (no ear to cut in its plane: nearly degenerate); split it into simple polygons"
                ));
            }
            cur = b;
        }
    }
    out[t] = [corners[prev[cur]], corners[cur], corners[next[cur]]];
    Ok(Split::EarClipped)
}

/// Convex: every turn is to the left (or straight) and the edge directions
/// go round once (each coordinate of the edge vectors changes sign at most
/// twice; a star polygon turns left everywhere but goes round twice).
fn is_convex(uv: &[[f64; 2]], cross: impl Fn([f64; 2], [f64; 2], [f64; 2]) -> f64) -> bool {
    let n = uv.len();
    let mut flips = [0usize; 2];
    let mut last = [0f64; 2];
    for k in 0..n {
        let (a, b, c) = (uv[k], uv[(k + 1) % n], uv[(k + 2) % n]);
        if cross(a, b, c) < 0.0 {
            return false;
        }
        for (d, f) in flips.iter_mut().enumerate() {
            let e = b[d] - a[d];
            if e != 0.0 {
                if e * last[d] < 0.0 {
                    *f += 1;
                }
                last[d] = e;
            }
        }
    }
    // (the count misses the flip between the last edge seen and the first)
    flips.iter().all(|&f| f <= 2)
}

/// Two non-adjacent edges that cross properly (each separates the other's
/// ends strictly): edge `k` runs from corner `k` to corner `k + 1`.
fn crossing(
    uv: &[[f64; 2]],
    cross: impl Fn([f64; 2], [f64; 2], [f64; 2]) -> f64,
) -> Option<(usize, usize)> {
    let n = uv.len();
    for i in 0..n {
        let (a, b) = (uv[i], uv[(i + 1) % n]);
        for j in i + 2..n {
            if (j + 1) % n == i {
                continue;
            }
            let (c, d) = (uv[j], uv[(j + 1) % n]);
            let (s1, s2) = (cross(a, b, c), cross(a, b, d));
            let (s3, s4) = (cross(c, d, a), cross(c, d, b));
            if s1 * s2 < 0.0 && s3 * s4 < 0.0 {
                return Some((i, j));
            }
        }
    }
    None
}

/// `b` is an ear between `a` and `c`: a strict left turn, and no other
/// remaining corner lies inside or on the triangle (corners at the same
/// position as one of the three are skipped: they are the triangle's own).
fn is_ear(
    uv: &[[f64; 2]],
    next: &[usize],
    a: usize,
    b: usize,
    c: usize,
    cross: impl Fn([f64; 2], [f64; 2], [f64; 2]) -> f64,
) -> bool {
    let (pa, pb, pc) = (uv[a], uv[b], uv[c]);
    if cross(pa, pb, pc) <= 0.0 {
        return false;
    }
    let mut k = next[c];
    while k != a {
        let q = uv[k];
        if q != pa
            && q != pb
            && q != pc
            && cross(pa, pb, q) >= 0.0
            && cross(pb, pc, q) >= 0.0
            && cross(pc, pa, q) >= 0.0
        {
            return false;
        }
        k = next[k];
    }
    true
}
