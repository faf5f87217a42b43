//! Reference and incident faces clipped against each other
//! (Sutherland–Hodgman against the reference side planes).

use super::assembly::{finish, id, Cand};
use super::polytope::Polytope;
use super::sat::Posed;
use super::PlacedHull;
use crate::contact::Manifold;
use crate::math::Vec3;

/// A point of the clipped polygon: position, feature id, and what the edge
/// to the next point lies on (`Inc(e)`: incident edge `e`; `Side(s)`:
/// reference side `s`).
#[derive(Clone, Copy)]
pub(super) struct ClipVertex {
    pub(super) p: Vec3,
    pub(super) id: u32,
    pub(super) next_on: u32,
}

pub(super) const ON_SIDE: u32 = 1 << 16;

/// Clips `poly` (incident face, ids and edge tags set) to the side planes of
/// the reference polygon `ref_pts` (counter-clockwise about `n`).
pub(super) fn clip_polygon(
    poly: &mut Vec<ClipVertex>,
    scratch: &mut Vec<ClipVertex>,
    ref_pts: &[Vec3],
    n: Vec3,
) {
    let m = ref_pts.len();
    for s in 0..m {
        if poly.is_empty() {
            return;
        }
        let (v0, v1) = (ref_pts[s], ref_pts[(s + 1) % m]);
        let side = (v1 - v0).cross(n);
        let off = side.dot(v0);
        scratch.clear();
        let k = poly.len();
        for i in 0..k {
            let p = poly[i];
            let q = poly[(i + 1) % k];
            let dp = side.dot(p.p) - off;
            let dq = side.dot(q.p) - off;
            if dp <= 0.0 {
                scratch.push(p);
            }
            if (dp <= 0.0) != (dq <= 0.0) {
                let t = dp / (dp - dq);
                let x = p.p + (q.p - p.p) * t;
                let xid = if p.next_on & ON_SIDE != 0 {
                    // the edge runs along an earlier side: a reference corner
                    let s0 = (p.next_on & (ON_SIDE - 1)) as usize;
                    let corner = if (s0 + 1) % m == s {
                        s
                    } else if (s + 1) % m == s0 {
                        s0
                    } else {
                        s
                    };
                    12288 + ((corner + 1) % m) as u32
                } else {
                    64 + 64 * p.next_on + s as u32
                };
                let next_on = if dp <= 0.0 { ON_SIDE | s as u32 } else { p.next_on };
                if dp <= 0.0 {
                    // leaving: the kept point's edge now ends here
                    scratch.push(ClipVertex { p: x, id: xid, next_on });
                } else {
                    scratch.push(ClipVertex { p: x, id: xid, next_on });
                }
            }
        }
        std::mem::swap(poly, scratch);
    }
}

/// Per-thread scratch of the clipping: polygon, its next version, the
/// reference polygon, the candidates.
pub(super) type ClipScratch = (Vec<ClipVertex>, Vec<ClipVertex>, Vec<Vec3>, Vec<Cand>);

thread_local! {
    static CLIP: std::cell::RefCell<ClipScratch> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new(), Vec::new())) };
}

/// Which shape holds the reference face of a clip.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reference {
    /// A's face: the normal is its outward normal, points are the clipped
    /// incident (B) vertices.
    A,
    /// B's face: the normal is minus its outward normal, points are the
    /// clipped incident (A) vertices moved onto B's face plane.
    B,
}

/// The incident face `inc` of `incident` clipped to the reference face `f`
/// of `reference` (both in A's frame), points with `depth >= -margin`,
/// feature ids tagged `tag` (see the [module docs](self)).
#[allow(clippy::too_many_arguments)]
pub(super) fn clip_faces<R: Polytope, I: Polytope>(
    a: &PlacedHull,
    reference: &Posed<R>,
    f: usize,
    incident: &Posed<I>,
    inc: usize,
    side: Reference,
    tag: u32,
    margin: f32,
) -> Manifold {
    let n = reference.normal(f);
    let d = reference.offset(f);
    CLIP.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (poly, scratch, refp, cands) = &mut *cell;
        poly.clear();
        let iv = incident.poly.face_vertices(inc);
        let ie = incident.poly.face_edges(inc);
        for (&v, &e) in iv.iter().zip(ie) {
            poly.push(ClipVertex {
                p: incident.vertex(v as usize),
                id: v as u32,
                next_on: e as u32,
            });
        }
        refp.clear();
        refp.extend(reference.poly.face_vertices(f).iter().map(|&v| reference.vertex(v as usize)));
        clip_polygon(poly, scratch, refp, n);
        cands.clear();
        for c in poly.iter() {
            let depth = d - n.dot(c.p);
            if depth >= -margin {
                // on B: the incident point itself, or A's point moved onto
                // B's face plane
                let pos = if side == Reference::A { c.p } else { c.p + n * depth };
                cands.push(Cand { pos, depth, id: id(tag, c.id) });
            }
        }
        finish(a, if side == Reference::A { n } else { -n }, cands)
    })
}

/// Is `p` (on the plane of face `f` of `poly`'s vertices `pts`, normal `n`)
/// inside the polygon (closed)?
pub(super) fn inside_polygon(pts: &[Vec3], n: Vec3, p: Vec3) -> bool {
    let m = pts.len();
    (0..m).all(|k| {
        let (v0, v1) = (pts[k], pts[(k + 1) % m]);
        (v1 - v0).cross(n).dot(p - v0) <= 0.0
    })
}
