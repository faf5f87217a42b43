//! Edge–edge contacts: the closest points of the two support edges.

use super::{pick3, pick3v, sign, EDGE_EDGE_ID_BASE};
use crate::contact::closest_pair::{keep_closest_pair, BOX_BOX_CLOSEST_ID_BASE};
use crate::contact::{ContactPoint, Manifold};
use crate::{Lane, Obb, V3};

/// The edge of box `o` along axis `e ∈ 0..3` farthest along `dir` (ties to
/// the `+` side): its centre, direction (the unit axis), half length and id
/// `4·e + 2·[s_(e+1) < 0] + [s_(e+2) < 0]` (`s_m` the side along axis `m`).
#[inline(always)]
pub(in crate::contact) fn support_edge<L: Lane>(
    o: &Obb<L>,
    dir: V3<L>,
    e: L,
) -> (V3<L>, V3<L>, L, L) {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let hs = [o.half.x, o.half.y, o.half.z];
    let mut p = o.center;
    let mut sgn = [zero; 3];
    for m in 0..3 {
        let on_edge_axis = e.eq(L::splat(m as f32));
        let s = sign(o.axes[m].dot(dir));
        sgn[m] = s;
        p += o.axes[m] * L::select(on_edge_axis, zero, s * hs[m]);
    }
    let (e0, e1) = (e.eq(zero), e.eq(one));
    let s1 = pick3(e0, e1, [sgn[1], sgn[2], sgn[0]]);
    let s2 = pick3(e0, e1, [sgn[2], sgn[0], sgn[1]]);
    let id = e * L::splat(4.0)
        + L::select(s1.lt(zero), L::splat(2.0), zero)
        + L::select(s2.lt(zero), one, zero);
    (p, pick3v(e0, e1, o.axes), pick3(e0, e1, hs), id)
}

/// Manifold for an edge axis `axis = 6 + 3i + j` (edge of A along `A_i`, of B
/// along `B_j`): one point at the closest points of the two support edges.
/// `need` are the lanes whose result is kept (the closest-pair check runs
/// only there).
#[inline(always)]
pub(super) fn edge_manifold<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    axis: L,
    normal: V3<L>,
    margin: L,
    need: L::Mask,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let k = axis - L::splat(6.0);
    let i =
        L::select(k.lt(L::splat(3.0)), zero, L::select(k.lt(L::splat(6.0)), one, L::splat(2.0)));
    let j = k - i * L::splat(3.0);
    // The support edge of A along +normal and of B along -normal.
    let (pa, da, ha, ida) = support_edge(a, normal, i);
    let (pb, db, hb, idb) = support_edge(b, -normal, j);
    // Closest points of the segments pa + s·da, |s| <= ha and pb + t·db,
    // |t| <= hb (Ericson §5.1.9, specialised to non-parallel edges: parallel
    // edge axes are never chosen). Not `contact::util::closest_segments`: its
    // scaling and degenerate-segment handling, not needed here, made box–box
    // 2.3–4.5 % slower at x16 (criterion A/B, `--bench contact_boxes`).
    let r = pa - pb;
    let aa = da.dot(da);
    let ee = db.dot(db);
    let bb = da.dot(db);
    let c = da.dot(r);
    let f = db.dot(r);
    let denom = aa * ee - bb * bb;
    let clamp = |x: L, h: L| x.max(-h).min(h);
    let s = L::select(denom.gt(zero), clamp((bb * f - c * ee) / denom, ha), zero);
    let t = L::select(ee.gt(zero), clamp((bb * s + f) / ee, hb), zero);
    let s = L::select(aa.gt(zero), clamp((bb * t - c) / aa, ha), zero);
    let qa = pa + da * s;
    let qb = pb + db * t;
    let depth = (qa - qb).dot(normal);
    let mut m = Manifold::empty();
    m.normal = normal;
    m.count = one;
    m.points[0] = ContactPoint {
        position: qb,
        depth,
        feature_id: L::splat(EDGE_EDGE_ID_BASE) + ida * L::splat(16.0) + idb,
    };
    // the support edges' gap along the normal is the SAT gap: only a point
    // pair clamped to an edge's end (not along the normal) is replaced
    keep_closest_pair(m, a, depth, margin, BOX_BOX_CLOSEST_ID_BASE, b, need)
}
