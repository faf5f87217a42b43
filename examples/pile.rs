//! A pile of spheres, capsules, boxes and convex hulls falling onto a bumpy
//! triangle-mesh bowl, driven the way a physics engine drives widephase:
//!
//! 1. broad phase: box pruning over the AABBs (grown by the speculative
//!    margin): `broad::self_pairs` among the bodies, and every body whose box
//!    meets the ground mesh's bounding box paired with the mesh;
//! 2. narrow phase: body pairs through a persistent `contact::NarrowPhase`
//!    (manifolds kept from frame to frame by body pair and feature id; a
//!    pair whose bodies moved at most `REUSE` in total since its manifold
//!    was computed reuses it, the others go through the bucketed 16-wide
//!    testers; hull pairs through the hull testers), body–ground pairs
//!    through `contact::mesh_contacts_with_hulls`: the bowl
//!    is one `StaticMesh` whose BVH finds the triangles near each body,
//!    tested by the same 16-wide triangle testers (one manifold per touched
//!    triangle, ghost contacts of the bowl's internal edges dropped);
//! 3. a minimal solver: semi-implicit Euler and sequential impulses on the
//!    manifolds (normal impulse with speculative contacts and Baumgarte
//!    correction, Coulomb friction along two fixed tangents), 8 iterations,
//!    **warm-started**: each point starts from the impulses its feature had
//!    last frame, applied before the iterations (Catto, "Iterative
//!    Dynamics with Temporal Coherence", GDC 2005). Body pairs find their
//!    previous points through the narrow phase (`NarrowPhase::previous` for
//!    the pair, `NarrowPhase::changes` for each point's feature id); the
//!    bowl's manifolds, which `mesh_contacts` computes afresh, by
//!    (body, triangle, feature id) in a map the example keeps.
//!
//! Prints per-frame broad- and narrow-phase times (the narrow phase includes
//! the BVH queries) and counts (candidates: body pairs plus the (body,
//! triangle) pairs the BVH found; body pairs reused by the narrow phase;
//! ghost manifolds dropped on the bowl; points warm-started), then checks
//! that no body fell through the ground and that most points of the last
//! frame were warm-started (exit code 1 if not), and
//! prints how deep the pile's contacts are over the last 60 frames (mean
//! depth of the penetrating points, and the deepest): what warm starting
//! improves at a fixed iteration count.
//!
//! `cargo run --release --example pile -- [frames] [bodies] [cold]`: `cold`
//! starts every point's impulses at zero, for comparison.

use std::collections::HashMap;
use std::time::Instant;
use widephase::broad::self_pairs;
use widephase::contact::{
    mesh_contacts_with_hulls, Collider, ContactChange, ContactPoint, ConvexHull, HullCollider,
    Manifold, NarrowPhase, StaticMesh, MAX_CONTACTS,
};
use widephase::overlap::aabb_aabb;
use widephase::{Aabb, Capsule, Obb, Sphere, Triangle, Vec3};

const DT: f32 = 1.0 / 60.0;
const GRAVITY: Vec3 = Vec3 { x: 0.0, y: -9.81, z: 0.0 };
/// Speculative margin: a body falling at up to 12 m/s moves 0.2 per frame.
const MARGIN: f32 = 0.2;
/// Reuse bound of the persistent body–body manifolds: a reused point's
/// depth is off by at most this much (`contact::narrow_phase` docs).
const REUSE: f32 = 1e-3;
const ITERATIONS: usize = 8;
const FRICTION: f32 = 0.5;
/// Baumgarte factor and allowed penetration.
const BETA: f32 = 0.2;
const SLOP: f32 = 0.005;
/// Ground: `CELLS`×`CELLS` squares of side `CELL`, centred on the origin.
const CELLS: usize = 24;
const CELL: f32 = 1.0;

/// Height of the bumpy bowl.
fn ground_height(x: f32, z: f32) -> f32 {
    0.25 * (0.9 * x).sin() * (0.7 * z).cos() + 0.015 * (x * x + z * z)
}

/// Two triangles per cell, wound counter-clockwise seen from above (front = +y,
/// the side the one-sided triangle testers collide with).
fn ground() -> Vec<Triangle> {
    let half = CELLS as f32 * CELL * 0.5;
    let p = |i: usize, k: usize| {
        let (x, z) = (i as f32 * CELL - half, k as f32 * CELL - half);
        Vec3::new(x, ground_height(x, z), z)
    };
    let mut tris = Vec::with_capacity(2 * CELLS * CELLS);
    for i in 0..CELLS {
        for k in 0..CELLS {
            tris.push(Triangle::new(p(i, k), p(i, k + 1), p(i + 1, k)));
            tris.push(Triangle::new(p(i + 1, k), p(i, k + 1), p(i + 1, k + 1)));
        }
    }
    tris
}

/// Height of the triangulated ground under `(x, z)` (the plane of the triangle
/// the point projects into).
fn mesh_height(tris: &[Triangle], x: f32, z: f32) -> f32 {
    let half = CELLS as f32 * CELL * 0.5;
    let i = (((x + half) / CELL) as usize).min(CELLS - 1);
    let k = (((z + half) / CELL) as usize).min(CELLS - 1);
    let (fx, fz) = ((x + half) / CELL - i as f32, (z + half) / CELL - k as f32);
    let t = &tris[2 * (i * CELLS + k) + usize::from(fx + fz > 1.0)];
    let n = t.normal();
    // plane n·(p - a) = 0 solved for y
    t.a.y - (n.x * (x - t.a.x) + n.z * (z - t.a.z)) / n.y
}

#[derive(Clone, Copy)]
enum Kind {
    Sphere {
        r: f32,
    },
    /// Half length `h` along the unit `axis`.
    Capsule {
        r: f32,
        h: f32,
        axis: Vec3,
    },
    /// Half extents `half` along the orthonormal `axes`.
    Box {
        half: Vec3,
        axes: [Vec3; 3],
    },
    /// Hull `hull` of the table (local origin at the body's centre), rotated
    /// by the orthonormal `axes`; `r` its bounding radius.
    Hull {
        hull: u32,
        axes: [Vec3; 3],
        r: f32,
    },
}

/// The pile's hull table: eight random hulls (12–26 points on ellipsoids of
/// semi-axes 0.12–0.4), their vertex centroid moved to the local origin
/// (the body's centre of mass in the solver).
fn hull_table() -> Vec<ConvexHull> {
    let mut r = widephase::workload::SplitMix(11);
    (0..8)
        .map(|k| {
            let h = widephase::workload::random_hull(&mut r, 12 + 2 * k);
            let c = h.centroid();
            let pts: Vec<Vec3> = h.vertices().iter().map(|&v| (v - c) * 0.4).collect();
            ConvexHull::new(&pts).expect("a scaled hull is a hull")
        })
        .collect()
}

#[derive(Clone, Copy)]
struct Body {
    kind: Kind,
    x: Vec3,
    v: Vec3,
    w: Vec3,
    inv_m: f32,
    /// Inverse of an isotropic moment of inertia (a simplification).
    inv_i: f32,
}

impl Body {
    fn collider(&self, hulls: &[ConvexHull]) -> Collider {
        match self.kind {
            Kind::Hull { hull, axes, .. } => {
                Collider::Hull(HullCollider::new(hulls, hull, self.x, axes))
            }
            Kind::Sphere { r } => Collider::Sphere(Sphere::new(self.x, r)),
            Kind::Capsule { r, h, axis } => {
                Collider::Capsule(Capsule::new(self.x - axis * h, self.x + axis * h, r))
            }
            Kind::Box { half, axes } => Collider::Box(Obb::new(self.x, axes, half)),
        }
    }
    fn lowest(&self, hulls: &[ConvexHull]) -> f32 {
        match self.kind {
            Kind::Hull { hull, axes, .. } => {
                let h = &hulls[hull as usize];
                h.vertices()
                    .iter()
                    .map(|v| self.x.y + axes[0].y * v.x + axes[1].y * v.y + axes[2].y * v.z)
                    .fold(f32::INFINITY, f32::min)
            }
            Kind::Sphere { r } => self.x.y - r,
            Kind::Capsule { r, h, axis } => self.x.y - (axis.y * h).abs() - r,
            Kind::Box { half, axes } => {
                self.x.y
                    - (axes[0].y * half.x).abs()
                    - (axes[1].y * half.y).abs()
                    - (axes[2].y * half.z).abs()
            }
        }
    }
    fn radius(&self) -> f32 {
        match self.kind {
            Kind::Sphere { r } | Kind::Capsule { r, .. } => r,
            Kind::Box { half, .. } => half.x.min(half.y).min(half.z),
            Kind::Hull { r, .. } => 0.3 * r,
        }
    }
}

fn bodies(n: usize, hulls: &[ConvexHull]) -> Vec<Body> {
    let mut r = widephase::workload::SplitMix(7);
    let side = (n as f32).sqrt().ceil() as usize;
    (0..n)
        .map(|i| {
            let (gx, gz) = ((i % side) as f32, (i / side) as f32);
            let (x, z) = (
                (gx - side as f32 * 0.5) * 0.95 + 0.1 * r.f(),
                (gz - side as f32 * 0.5) * 0.95 + 0.1 * r.f(),
            );
            // start 1–5 above the ground under the body
            let x = Vec3::new(x, ground_height(x, z) + 1.0 + 4.0 * r.f(), z);
            let rad = 0.2 + 0.25 * r.f();
            if i % 4 == 3 {
                let half = r.p(0.2, 0.4);
                let m = 8.0 * half.x * half.y * half.z;
                // isotropic inertia (the solver's simplification): the mean of
                // the box's principal moments m/3·(h_j² + h_k²)
                let i_m = m * 2.0 / 9.0 * half.length_squared();
                let a = (r.p(-1.0, 1.0) + Vec3::new(0.0, 0.0, 0.01)).try_normalize().unwrap();
                Body {
                    kind: Kind::Box { half, axes: orthonormal(a, r.p(-1.0, 1.0)) },
                    x,
                    v: Vec3::ZERO,
                    w: Vec3::ZERO,
                    inv_m: 1.0 / m,
                    inv_i: 1.0 / i_m,
                }
            } else if i % 5 == 4 {
                let hull = (i / 5) as u32 % hulls.len() as u32;
                let hr = hulls[hull as usize].bounding_radius();
                // a sphere's mass and inertia of the bounding radius (the
                // solver's isotropic simplification)
                let m = hr * hr * hr;
                let a = (r.p(-1.0, 1.0) + Vec3::new(0.0, 0.0, 0.01)).try_normalize().unwrap();
                Body {
                    kind: Kind::Hull { hull, axes: orthonormal(a, r.p(-1.0, 1.0)), r: hr },
                    x,
                    v: Vec3::ZERO,
                    w: Vec3::ZERO,
                    inv_m: 1.0 / m,
                    inv_i: 1.0 / (0.4 * m * hr * hr),
                }
            } else if i % 3 == 2 {
                let axis = (r.p(-1.0, 1.0) + Vec3::new(0.0, 0.0, 0.01)).try_normalize().unwrap();
                let h = 0.3 + 0.3 * r.f();
                let m = rad * rad * (2.0 * h + rad);
                let i_m = m * (h * h / 3.0 + 0.4 * rad * rad);
                Body {
                    kind: Kind::Capsule { r: rad, h, axis },
                    x,
                    v: Vec3::ZERO,
                    w: Vec3::ZERO,
                    inv_m: 1.0 / m,
                    inv_i: 1.0 / i_m,
                }
            } else {
                let m = rad * rad * rad;
                Body {
                    kind: Kind::Sphere { r: rad },
                    x,
                    v: Vec3::ZERO,
                    w: Vec3::ZERO,
                    inv_m: 1.0 / m,
                    inv_i: 1.0 / (0.4 * m * rad * rad),
                }
            }
        })
        .collect()
}

/// A right-handed orthonormal frame whose first axis is `a` (unit), the
/// second taken from `t` by Gram–Schmidt.
fn orthonormal(a: Vec3, t: Vec3) -> [Vec3; 3] {
    let b = (t - a * a.dot(t)).try_normalize().unwrap_or_else(|| {
        let any = if a.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
        (any - a * a.dot(any)).try_normalize().unwrap()
    });
    [a, b, a.cross(b)]
}

/// One solver contact: bodies (`None` = static), anchors, normal, tangents,
/// target and accumulated impulses (normal, and along each tangent).
struct Row {
    a: usize,
    b: Option<usize>,
    ra: Vec3,
    rb: Vec3,
    n: Vec3,
    t: [Vec3; 2],
    depth: f32,
    lambda: f32,
    lambda_t: [f32; 2],
}

impl Row {
    /// The accumulated impulse on B (A gets its opposite).
    fn impulse(&self) -> Impulse {
        Impulse {
            normal: self.lambda,
            friction: self.t[0] * self.lambda_t[0] + self.t[1] * self.lambda_t[1],
        }
    }
}

/// A point's accumulated impulses at the end of a frame, kept for the next
/// one: the normal impulse, and the friction impulse as a vector (the next
/// frame's tangents differ, so it is projected onto them).
#[derive(Clone, Copy, Debug, Default)]
struct Impulse {
    normal: f32,
    friction: Vec3,
}

/// Where a row's impulses are kept for the next frame: body pair `k`'s
/// point `q`, or a bowl contact.
enum Keep {
    Pair(usize, usize),
    Ground(GroundKey),
}

/// The key of a bowl contact across frames: body, triangle, feature id
/// (`MeshContact` docs: the pair names a contact across the mesh).
type GroundKey = (usize, u32, u32);

fn velocity_at(bs: &[Body], i: Option<usize>, r: Vec3) -> Vec3 {
    i.map_or(Vec3::ZERO, |i| bs[i].v + bs[i].w.cross(r))
}

fn apply(bs: &mut [Body], i: Option<usize>, r: Vec3, p: Vec3) {
    if let Some(i) = i {
        let b = &mut bs[i];
        b.v += p * b.inv_m;
        b.w += r.cross(p) * b.inv_i;
    }
}

fn inv_mass(bs: &[Body], i: Option<usize>, r: Vec3, d: Vec3) -> f32 {
    i.map_or(0.0, |i| {
        let rn = r.cross(d);
        bs[i].inv_m + bs[i].inv_i * rn.dot(rn)
    })
}

fn solve(bs: &mut [Body], rows: &mut [Row]) {
    // warm start: last frame's impulses first (zero for new points)
    for c in rows.iter() {
        let p = c.impulse();
        let p = c.n * p.normal + p.friction;
        apply(bs, Some(c.a), c.ra, -p);
        apply(bs, c.b, c.rb, p);
    }
    for _ in 0..ITERATIONS {
        for c in rows.iter_mut() {
            // relative velocity of B's anchor w.r.t. A's, along n (A → B)
            let vrel = velocity_at(bs, c.b, c.rb) - velocity_at(bs, Some(c.a), c.ra);
            let vn = vrel.dot(c.n);
            // vn > 0 separates. Speculative (depth < 0): may close the gap this
            // step, no more; penetrating: separate at a Baumgarte rate
            let vn_min =
                if c.depth < 0.0 { c.depth / DT } else { BETA * (c.depth - SLOP).max(0.0) / DT };
            let k = inv_mass(bs, Some(c.a), c.ra, c.n) + inv_mass(bs, c.b, c.rb, c.n);
            let dl = (vn_min - vn) / k;
            let old = c.lambda;
            c.lambda = (old + dl).max(0.0);
            let p = c.n * (c.lambda - old);
            apply(bs, Some(c.a), c.ra, -p);
            apply(bs, c.b, c.rb, p);
            // friction along each tangent, within the Coulomb box
            let max = FRICTION * c.lambda;
            for (t, lambda_t) in c.t.iter().zip(&mut c.lambda_t) {
                let vrel = velocity_at(bs, c.b, c.rb) - velocity_at(bs, Some(c.a), c.ra);
                let kt = inv_mass(bs, Some(c.a), c.ra, *t) + inv_mass(bs, c.b, c.rb, *t);
                let old = *lambda_t;
                *lambda_t = (old - vrel.dot(*t) / kt).clamp(-max, max);
                let p = *t * (*lambda_t - old);
                apply(bs, Some(c.a), c.ra, -p);
                apply(bs, c.b, c.rb, p);
            }
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let cold = args.last().is_some_and(|a| a == "cold");
    if cold {
        args.pop();
    }
    let args: Vec<usize> =
        args.iter().map(|a| a.parse().expect("usage: pile [frames] [bodies] [cold]")).collect();
    let frames = args.first().copied().unwrap_or(240);
    let n_bodies = args.get(1).copied().unwrap_or(300);
    let tris = ground();
    // the bowl: one static mesh collider (index 0 of `meshes`)
    let meshes = [StaticMesh::new(&tris)];
    let hulls = hull_table();
    let mut bs = bodies(n_bodies, &hulls);
    let nb = bs.len();
    println!(
        "pile: {nb} bodies (spheres, capsules, boxes, hulls) onto a static mesh of {} triangles, {frames} frames of {:.4} s, {} rayon threads",
        tris.len(),
        DT,
        rayon::current_num_threads()
    );
    println!(
        "solver: {ITERATIONS} iterations, {}",
        if cold { "cold (impulses start at zero)" } else { "warm-started" }
    );
    println!(
        "frame  broad_ms  narrow_ms  solve_ms  candidates  manifolds  points  max_depth  reused  ghosts  warm"
    );
    // last frame's impulses: per body pair (by this frame's pair index, each
    // point by its index in the pair's manifold), and per bowl contact
    let mut pair_impulses: Vec<[Impulse; MAX_CONTACTS]> = Vec::new();
    let mut ground_impulses: HashMap<GroundKey, Impulse> = HashMap::new();
    // the contacts' depths over the last frames
    const LAST_FRAMES: usize = 60;
    let (mut depth_sum, mut depth_points, mut deepest) = (0.0f64, 0usize, 0.0f32);
    let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(REUSE);
    let (mut t_broad, mut t_narrow) = (0.0f64, 0.0f64);
    let mut colliders: Vec<Collider> = Vec::with_capacity(nb);
    let (mut last_max_depth, mut last_points, mut last_warm) = (0.0f32, 0, 0);
    for frame in 0..frames {
        // gravity (semi-implicit Euler: velocities first)
        for b in bs.iter_mut() {
            b.v += GRAVITY * DT;
        }
        colliders.clear();
        colliders.extend(bs.iter().map(|b| b.collider(&hulls)));

        // broad phase
        let t0 = Instant::now();
        let boxes: Vec<Aabb> = colliders.iter().map(|c| c.speculative_aabb(MARGIN)).collect();
        // body i against a later body j; body i against the mesh (0)
        let pairs = self_pairs(&boxes);
        let ground_box = meshes[0].aabb();
        let ground_pairs: Vec<(u32, u32)> = (0..nb as u32)
            .filter(|&i| aabb_aabb(&boxes[i as usize], &ground_box))
            .map(|i| (i, 0))
            .collect();
        let broad = t0.elapsed().as_secs_f64();

        // narrow phase (with the BVH queries of the mesh pairs)
        let t1 = Instant::now();
        np.update_with_hulls(&colliders, &hulls, &pairs);
        let manifolds: &[Manifold] = np.manifolds();
        let ground = mesh_contacts_with_hulls(&colliders, &hulls, &meshes, &ground_pairs, MARGIN);
        let narrow = t1.elapsed().as_secs_f64();
        t_broad += broad;
        t_narrow += narrow;

        // solver rows, each starting from its point's impulses of last frame
        // (none when `cold`), and where to keep them for the next frame
        let t2 = Instant::now();
        let mut rows = Vec::new();
        let mut keep: Vec<Keep> = Vec::new();
        let (mut n_man, mut n_pts, mut max_depth, mut n_warm) = (0, 0, 0.0f32, 0);
        let row = |a: usize, b: Option<usize>, m: &Manifold, p: &ContactPoint, warm| {
            let on_a = p.position + m.normal * p.depth;
            let ra = on_a - bs[a].x;
            let rb = b.map_or(Vec3::ZERO, |b| p.position - bs[b].x);
            let [_, t0, t1] = orthonormal(m.normal, Vec3::X);
            let Impulse { normal, friction } = warm;
            Row {
                a,
                b,
                ra,
                rb,
                n: m.normal,
                t: [t0, t1],
                depth: p.depth,
                lambda: normal,
                lambda_t: [friction.dot(t0), friction.dot(t1)],
            }
        };
        // body pairs (b = Some): the previous points through the narrow phase
        for (k, (&(i, j), m)) in pairs.iter().zip(manifolds).enumerate() {
            if m.count == 0.0 {
                continue;
            }
            n_man += 1;
            for (q, p) in m.contacts().iter().enumerate() {
                n_pts += 1;
                max_depth = max_depth.max(p.depth);
                let warm = match (np.previous(k), np.changes(k)[q]) {
                    (Some(pk), ContactChange::Kept { previous }) if !cold => {
                        n_warm += 1;
                        pair_impulses[pk][previous as usize]
                    }
                    _ => Impulse::default(),
                };
                rows.push(row(i as usize, Some(j as usize), m, p, warm));
                keep.push(Keep::Pair(k, q));
            }
        }
        // each body's bowl manifolds (b = None: static), one per touched
        // triangle, by (body, triangle, feature id)
        for (&(i, _), hits) in ground_pairs.iter().zip(ground.iter()) {
            for h in hits {
                n_man += 1;
                for p in h.manifold.contacts() {
                    n_pts += 1;
                    max_depth = max_depth.max(p.depth);
                    let key = (i as usize, h.triangle, p.feature_id.to_bits());
                    let warm = match ground_impulses.get(&key) {
                        Some(&w) if !cold => {
                            n_warm += 1;
                            w
                        }
                        _ => Impulse::default(),
                    };
                    rows.push(row(i as usize, None, &h.manifold, p, warm));
                    keep.push(Keep::Ground(key));
                }
            }
        }
        solve(&mut bs, &mut rows);
        pair_impulses.clear();
        pair_impulses.resize(pairs.len(), [Impulse::default(); MAX_CONTACTS]);
        ground_impulses.clear();
        for (c, k) in rows.iter().zip(&keep) {
            match *k {
                Keep::Pair(k, q) => pair_impulses[k][q] = c.impulse(),
                Keep::Ground(key) => {
                    ground_impulses.insert(key, c.impulse());
                }
            }
        }
        for b in bs.iter_mut() {
            b.x += b.v * DT;
            match &mut b.kind {
                Kind::Capsule { axis, .. } => {
                    *axis = (*axis + b.w.cross(*axis) * DT).try_normalize().unwrap_or(*axis);
                }
                Kind::Box { axes, .. } | Kind::Hull { axes, .. } => {
                    // rotate the frame, then re-orthonormalise it
                    let a = (axes[0] + b.w.cross(axes[0]) * DT).try_normalize().unwrap_or(axes[0]);
                    *axes = orthonormal(a, axes[1] + b.w.cross(axes[1]) * DT);
                }
                Kind::Sphere { .. } => {}
            }
        }
        let solve_t = t2.elapsed().as_secs_f64();
        (last_max_depth, last_points, last_warm) = (max_depth, n_pts, n_warm);
        if frame + LAST_FRAMES >= frames {
            let deep = rows.iter().filter(|c| c.depth > 0.0);
            depth_sum += deep.clone().map(|c| c.depth as f64).sum::<f64>();
            depth_points += deep.count();
            deepest = deepest.max(max_depth);
        }
        println!(
            "{frame:5}  {:8.3}  {:9.3}  {:8.3}  {:10}  {n_man:9}  {n_pts:6}  {max_depth:9.4}  {:6}  {:6}  {n_warm:4}",
            broad * 1e3,
            narrow * 1e3,
            solve_t * 1e3,
            pairs.len() + ground.tested(),
            np.stats().reused,
            ground.ghosts_dropped()
        );
    }
    println!(
        "mean per frame: broad {:.3} ms, narrow {:.3} ms",
        t_broad * 1e3 / frames as f64,
        t_narrow * 1e3 / frames as f64
    );
    println!(
        "last {} frames: mean depth of the penetrating points {:.5}, deepest {deepest:.4}",
        LAST_FRAMES.min(frames),
        depth_sum / depth_points.max(1) as f64
    );

    // nothing fell through: every centre above the ground under it, no body
    // sunk deeper than half its radius, none below the bowl's lowest point
    let lowest_ground =
        tris.iter().map(|t| t.a.y.min(t.b.y).min(t.c.y)).fold(f32::INFINITY, f32::min);
    let mut bad = 0;
    for (i, b) in bs.iter().enumerate() {
        let h = mesh_height(&tris, b.x.x, b.x.z);
        let sunk = h - b.lowest(&hulls);
        // written so that a NaN position counts as fallen
        let above = b.x.y > h;
        if !above || sunk > 0.5 * b.radius() + 0.5 || b.lowest(&hulls) < lowest_ground - 1.0 {
            println!("body {i} fell through: centre {:?}, ground {h}", b.x);
            bad += 1;
        }
    }
    if bad > 0 {
        println!("FAIL: {bad} of {nb} bodies fell through the ground");
        std::process::exit(1);
    }
    // a pile at rest keeps its contact features from frame to frame: most
    // points must have found last frame's impulses
    if !cold && frames >= 120 && 2 * last_warm < last_points {
        println!(
            "FAIL: only {last_warm} of the last frame's {last_points} points were warm-started"
        );
        std::process::exit(1);
    }
    println!("ok: all {nb} bodies rest above the ground (deepest contact in the last frame {last_max_depth:.4})");
}
