//! Persistent manifolds (`contact::NarrowPhase`) fed by `BroadPhase` frame
//! to frame: feature ids stable under small motion, recomputation past the
//! reuse bound, and the same manifolds as a non-persistent run
//! (`contacts`) for every pair the bound does not let reuse.

use widephase::broad::{BroadPhase, Handle};
use widephase::contact::narrow_phase::{ContactChange, NarrowPhase};
use widephase::contact::{contacts, Collider, Manifold};
use widephase::workload::contact_scene;
use widephase::Vec3;

const MARGIN: f32 = 0.05;

fn bits(m: &Manifold) -> Vec<u32> {
    bytemuck::cast_slice::<Manifold, f32>(core::slice::from_ref(m))
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// The mixed scene in a broad phase.
struct World {
    bodies: Vec<Collider>,
    handles: Vec<Handle>,
    bp: BroadPhase,
    rng: fastrand::Rng,
}

impl World {
    fn new(n: usize, seed: u64) -> Self {
        let (bodies, _) = contact_scene(n, MARGIN, seed);
        let mut bp = BroadPhase::new();
        let handles = bodies.iter().map(|b| bp.insert(b.speculative_aabb(MARGIN))).collect();
        World { bodies, handles, bp, rng: fastrand::Rng::with_seed(seed) }
    }
    /// Moves a `fraction` of the bodies by a random vector of length up to
    /// `step`; returns their indices.
    fn jitter(&mut self, fraction: f32, step: f32) -> Vec<u32> {
        let mut moved = vec![];
        for i in 0..self.bodies.len() {
            if self.rng.f32() < fraction {
                let mut d =
                    Vec3::new(self.rng.f32() - 0.5, self.rng.f32() - 0.5, self.rng.f32() - 0.5);
                d = d * (step * self.rng.f32() / d.length().max(1e-6));
                self.bodies[i] = self.bodies[i].translated(d);
                self.bp.update(self.handles[i], self.bodies[i].speculative_aabb(MARGIN));
                moved.push(i as u32);
            }
        }
        moved
    }
    fn step(&mut self, np: &mut NarrowPhase) {
        np.update(&self.bodies, self.bp.pairs());
    }
}

#[test]
fn with_bound_zero_every_frame_equals_a_non_persistent_run() {
    let mut w = World::new(2048, 3);
    let mut np = NarrowPhase::new(MARGIN);
    let (mut reused, mut recomputed) = (0, 0);
    for frame in 0..12 {
        // a third of the bodies move a little, some frames a lot
        let step = if frame % 4 == 3 { 0.3 } else { 1e-3 };
        w.jitter(0.3, step);
        w.step(&mut np);
        let want = contacts(&w.bodies, np.pairs(), MARGIN);
        assert_eq!(np.pairs(), w.bp.pairs());
        for (k, (m, r)) in np.manifolds().iter().zip(&want).enumerate() {
            assert_eq!(bits(m), bits(r), "frame {frame} pair {k} {:?}", np.pairs()[k]);
        }
        reused += np.stats().reused;
        recomputed += np.stats().recomputed;
    }
    println!("BOUND 0: {reused} reused (bodies that did not move), {recomputed} recomputed");
    assert!(reused > 1000 && recomputed > 1000, "{reused} {recomputed}");
}

#[test]
fn with_a_bound_every_recomputed_pair_equals_a_non_persistent_run() {
    let mut w = World::new(2048, 4);
    let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
    let (mut reused, mut recomputed, mut reused_empty) = (0, 0, 0);
    for frame in 0..12 {
        // most bodies creep (some pairs stay within the bound for a few
        // frames), some jump
        w.jitter(0.5, if frame % 3 == 2 { 0.2 } else { 3e-4 });
        w.step(&mut np);
        let want = contacts(&w.bodies, np.pairs(), MARGIN);
        for (k, w) in want.iter().enumerate() {
            if np.reused(k) {
                reused += 1;
                // a reused empty manifold never hides a contact
                if np.manifolds()[k].count == 0.0 {
                    reused_empty += 1;
                    assert_eq!(w.count, 0.0, "frame {frame} pair {k}: empty reused, now touching");
                }
            } else {
                recomputed += 1;
                assert_eq!(bits(&np.manifolds()[k]), bits(w), "frame {frame} pair {k}");
            }
        }
    }
    println!("BOUND 1e-3: {reused} reused ({reused_empty} empty), {recomputed} recomputed");
    assert!(reused > 1000 && recomputed > 1000, "{reused} {recomputed}");
    assert!(reused_empty > 1000, "{reused_empty}");
}

#[test]
fn small_motion_keeps_feature_ids_and_the_bound_decides_reuse() {
    let mut w = World::new(2048, 5);
    // frame 0: everything new
    let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(2e-3);
    w.step(&mut np);
    let s = np.stats();
    assert_eq!((s.reused, s.kept, s.gone), (0, 0, 0));
    assert!(s.new > 1000, "{s:?}");
    // (new pairs get no separation check)
    assert_eq!(s.separation_tested, 0, "{s:?}");
    let first: Vec<Manifold> = np.manifolds().to_vec();
    // every body moves by at most 5e-4: the pair total is at most 1e-3,
    // within the bound: every contact pair reused, every point kept
    w.jitter(1.0, 5e-4);
    w.step(&mut np);
    let s = np.stats();
    let (mut continuing, mut slow_empty) = (0, 0);
    let triangle = |i: u32| matches!(w.bodies[i as usize], Collider::Triangle(_));
    for k in 0..np.pairs().len() {
        let m = &np.manifolds()[k];
        let Some(j) = np.previous(k) else { continue };
        // kept empty pairs (not two triangles) are recomputed and checked
        // for separation: their bodies moved within the bound
        let (a, b) = np.pairs()[k];
        slow_empty += (m.count == 0.0 && !(triangle(a) && triangle(b))) as usize;
        if first[j].count > 0.0 {
            continuing += 1;
            assert_eq!(bits(m), bits(&first[j]), "reused as it was");
            for (i, c) in np.changes(k)[..m.contacts().len()].iter().enumerate() {
                assert_eq!(*c, ContactChange::Kept { previous: i as u8 });
            }
        }
    }
    // contact pairs whose boxes separated are gone with all their points
    let in_contact = first.iter().filter(|m| m.count > 0.0).count();
    println!("SMALL MOTION reused: {s:?}, {continuing} of {in_contact} contact pairs continue");
    assert_eq!(s.reused, continuing, "{s:?}");
    assert_eq!(s.separation_tested, slow_empty, "{s:?}");
    assert!(s.separated > 1000, "{s:?}");
    assert!(continuing as f64 >= 0.99 * in_contact as f64);
    // the same small motion recomputed (bound 0): the ids stay, almost all
    // points are kept, and each kept point names the same feature
    let mut w2 = World::new(2048, 5);
    let mut exact = NarrowPhase::new(MARGIN);
    w2.step(&mut exact);
    let before: Vec<Manifold> = exact.manifolds().to_vec();
    w2.jitter(1.0, 5e-4);
    w2.step(&mut exact);
    let s = exact.stats();
    println!("SMALL MOTION recomputed: {s:?}");
    assert_eq!(s.reused, 0);
    assert!(s.kept as f64 >= 0.97 * (s.kept + s.new) as f64, "{s:?}");
    for k in 0..exact.pairs().len() {
        let Some(j) = exact.previous(k) else { continue };
        let m = &exact.manifolds()[k];
        for (p, c) in m.contacts().iter().zip(exact.changes(k)) {
            if let ContactChange::Kept { previous } = *c {
                assert_eq!(before[j].points[previous as usize].feature_id, p.feature_id);
            }
        }
    }
    // past the bound: the movers' pairs are recomputed, equal to contacts()
    let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(2e-3);
    let mut w3 = World::new(2048, 5);
    w3.step(&mut np);
    let at0 = w3.bodies.clone();
    let mover = (0..w3.bodies.len())
        .find(|&i| {
            np.pairs().iter().zip(np.manifolds()).any(|(p, m)| p.0 == i as u32 && m.count > 0.0)
        })
        .unwrap();
    // small moves accumulate from the computed pose: 4 × 6e-4 > 2e-3
    for round in 0..4 {
        w3.bodies[mover] = w3.bodies[mover].translated(Vec3::new(6e-4, 0.0, 0.0));
        w3.bp.update(w3.handles[mover], w3.bodies[mover].speculative_aabb(MARGIN));
        w3.step(&mut np);
        let want = contacts(&w3.bodies, np.pairs(), MARGIN);
        let ks: Vec<usize> = (0..np.pairs().len())
            .filter(|&k| np.pairs()[k].0 == mover as u32 || np.pairs()[k].1 == mover as u32)
            .collect();
        let fresh = ks.iter().filter(|&&k| bits(&np.manifolds()[k]) == bits(&want[k])).count();
        let same_as_frame0 = ks.iter().all(|&k| {
            np.previous(k).is_some() && {
                let r = contacts(&at0, &[np.pairs()[k]], MARGIN)[0];
                bits(&np.manifolds()[k]) == bits(&r)
            }
        });
        if round < 3 {
            // total 1.8e-3 at most: reused, still frame 0's manifolds
            assert!(same_as_frame0, "round {round}");
        } else {
            // 2.4e-3: every pair of the mover recomputed
            assert_eq!(fresh, ks.len(), "round {round}");
        }
    }
}

/// The separation check decides which empty pairs may be reused: a pair
/// farther apart than `margin + d` is reused while its bodies move less than
/// `d` in total, one between `margin` and `margin + d` apart is recomputed
/// whenever a body moves (it may have come within the margin). The check
/// runs on a kept pair whose bodies moved within the bound, not on a new
/// one.
#[test]
fn empty_pairs_are_reused_only_when_separated_by_more_than_the_bound() {
    use widephase::shapes::Sphere;
    const D: f32 = 1e-2;
    let ball = |x: f32| Collider::Sphere(Sphere { center: Vec3::new(x, 0.0, 0.0), radius: 0.5 });
    for (gap, reuse_until) in [(MARGIN + 0.5 * D, 0), (MARGIN + 2.0 * D, 5), (MARGIN + 1.2 * D, 5)]
    {
        let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(D);
        let mut bodies = [ball(0.0), ball(1.0 + gap + 0.01 * D)];
        np.update(&bodies, &[(0, 1)]);
        assert_eq!((np.manifolds()[0].count, np.stats().separation_tested), (0.0, 0));
        // a slow move: recomputed (the pair was not checked) and checked
        bodies[1] = ball(1.0 + gap);
        np.update(&bodies, &[(0, 1)]);
        let s = np.stats();
        assert!(!np.reused(0));
        assert_eq!((s.separation_tested, s.separated), (1, (gap > MARGIN + D) as usize));
        // body 1 creeps towards body 0 by 0.19·D per frame: the total from
        // the computed pose passes D at the sixth frame, and the gap drops
        // below the margin when the creep passes gap - MARGIN
        for frame in 1..=8 {
            bodies[1] = ball(1.0 + gap - 0.19 * D * frame as f32);
            np.update(&bodies, &[(0, 1)]);
            let want = contacts(&bodies, &[(0, 1)], MARGIN)[0];
            let reused = np.reused(0);
            if reused {
                assert_eq!(want.count, 0.0, "gap {gap} frame {frame}: reused empty, now touching");
            } else {
                assert_eq!(bits(&np.manifolds()[0]), bits(&want), "gap {gap} frame {frame}");
            }
            // a pair the check cleared is reused until the creep passes D
            // (after 5 × 0.19·D); one it did not clear is recomputed at
            // once
            assert_eq!(reused, frame as usize <= reuse_until, "gap {gap} frame {frame}");
            if !reused {
                break;
            }
        }
    }
}

/// A triangle in the plane z = 0 facing +z, and a sphere of radius 0.5
/// centred at height `z` over its middle: the one-sided triangle tests.
fn floor_triangle() -> Collider {
    Collider::Triangle(widephase::shapes::Triangle {
        a: Vec3::new(-2.0, -2.0, 0.0),
        b: Vec3::new(2.0, -2.0, 0.0),
        c: Vec3::new(0.0, 2.0, 0.0),
    })
}

fn ball_over_floor(z: f32) -> Collider {
    Collider::Sphere(widephase::shapes::Sphere { center: Vec3::new(0.0, 0.0, z), radius: 0.5 })
}

/// A one-sided triangle's empty manifold is reused by distance only when
/// the pair is separated on both sides: a sphere just behind the triangle's
/// plane (no contact, though it overlaps) that moves forward by far less
/// than the bound touches it, so it is recomputed; spheres well behind and
/// well in front are reused.
#[test]
fn empty_triangle_pairs_are_reused_only_when_apart_on_both_sides() {
    const D: f32 = 1e-2;
    let (tri, ball) = (floor_triangle(), ball_over_floor);
    // (start, end of a move of 0.2·D towards the plane, separated)
    for (from, to, apart) in [(-1e-3, 1e-3, false), (-0.7, -0.698, true), (0.7, 0.698, true)] {
        for order in [false, true] {
            let place = |z: f32| if order { [ball(z), tri] } else { [tri, ball(z)] };
            let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(D);
            // new, then moved slowly: checked
            np.update(&place(from * 1.0001), &[(0, 1)]);
            np.update(&place(from), &[(0, 1)]);
            assert_eq!(np.manifolds()[0].count, 0.0, "{from}: behind the front side, or apart");
            assert_eq!((np.stats().separation_tested, np.stats().separated), (1, apart as usize));
            np.update(&place(to), &[(0, 1)]);
            let want = contacts(&place(to), &[(0, 1)], MARGIN)[0];
            assert_eq!(np.reused(0), apart, "{from} -> {to}");
            assert_eq!(bits(&np.manifolds()[0]), bits(&want), "{from} -> {to}");
            assert_eq!(want.count > 0.0, !apart, "{from} -> {to}");
        }
    }
}

/// A pair whose separation check found contact is not checked again until
/// its bodies have moved more than `d` in total since: a sphere resting just
/// behind a triangle (its reversed winding touches) jitters by 0.3·D per
/// frame. It is recomputed every frame, its manifold always that of
/// `contacts()`, and checked at the first slow frame and then whenever the
/// motion summed since the last check passes D (every fourth frame). A jump
/// past the bound forgets the failed check: the next slow frame checks, and
/// a pair now apart is separated and reused.
#[test]
fn a_pair_found_touching_by_the_check_is_checked_again_after_moving_the_bound() {
    const D: f32 = 1e-2;
    let (tri, ball) = (floor_triangle(), ball_over_floor);
    for order in [false, true] {
        let place = |z: f32| if order { [ball(z), tri] } else { [tri, ball(z)] };
        let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(D);
        np.update(&place(-0.1), &[(0, 1)]);
        let mut tested = vec![];
        for frame in 1..=12 {
            let bodies = place(if frame % 2 == 1 { -0.1 + 0.3 * D } else { -0.1 });
            np.update(&bodies, &[(0, 1)]);
            let s = np.stats();
            assert!(!np.reused(0), "frame {frame}");
            assert_eq!(bits(&np.manifolds()[0]), bits(&contacts(&bodies, &[(0, 1)], MARGIN)[0]));
            assert_eq!(np.manifolds()[0].count, 0.0, "behind the triangle: no contact");
            assert_eq!((s.separated, s.separation_tested + s.separation_skipped), (0, 1));
            tested.push(s.separation_tested);
        }
        assert_eq!(tested, [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], "order {order}");
        // a jump far behind (faster than the bound: no check), then a slow
        // move: checked, apart on both sides, so separated and then reused
        for (z, want) in
            [(-0.7, (0, 0, false)), (-0.7 + 0.3 * D, (1, 1, false)), (-0.7, (0, 0, true))]
        {
            np.update(&place(z), &[(0, 1)]);
            let s = np.stats();
            assert_eq!(
                (s.separation_tested, s.separated, np.reused(0)),
                want,
                "order {order}, z {z}"
            );
            assert_eq!(s.separation_skipped, 0);
        }
    }
}

#[test]
fn pairs_that_leave_report_their_points_gone() {
    let mut w = World::new(1024, 9);
    let mut np = NarrowPhase::new(MARGIN);
    w.step(&mut np);
    let touching: Vec<(u32, u32)> = np
        .pairs()
        .iter()
        .zip(np.manifolds())
        .filter(|(_, m)| m.count > 0.0)
        .map(|(p, _)| *p)
        .collect();
    let points: usize = np.manifolds().iter().map(|m| m.contacts().len()).sum();
    // every body jumps far away from every other
    for i in 0..w.bodies.len() {
        w.bodies[i] = w.bodies[i].translated(Vec3::new(1000.0 * i as f32, 0.0, 0.0));
        w.bp.update(w.handles[i], w.bodies[i].speculative_aabb(MARGIN));
    }
    w.step(&mut np);
    assert!(np.pairs().is_empty());
    assert_eq!(np.gone().len(), points);
    let mut gone_pairs: Vec<(u32, u32)> = np.gone().iter().map(|g| g.pair).collect();
    gone_pairs.dedup();
    assert_eq!(gone_pairs, touching);
}

#[test]
#[should_panic(expected = "strictly ascending")]
fn unsorted_pairs_panic() {
    let (bodies, _) = contact_scene(16, MARGIN, 1);
    NarrowPhase::new(MARGIN).update(&bodies, &[(1, 2), (0, 3)]);
}

#[test]
fn update_moved_given_the_moved_bodies_equals_update() {
    let mut w = World::new(2048, 12);
    let mut all = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
    let mut listed = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
    let mut rng = fastrand::Rng::with_seed(12);
    let (mut reused, mut recomputed) = (0, 0);
    for frame in 0..14 {
        let mut moved = w.jitter(0.1, if frame % 4 == 3 { 0.2 } else { 3e-4 });
        match frame {
            // a body takes another kind
            5 => {
                let i = moved.first().copied().unwrap_or(0) as usize;
                let c = w.bodies[i].speculative_aabb(0.0).center();
                w.bodies[i] = Collider::Sphere(widephase::Sphere::new(c, 0.3));
                w.bp.update(w.handles[i], w.bodies[i].speculative_aabb(MARGIN));
                moved.push(i as u32);
            }
            // new bodies (past the last count: not listed)
            8 => {
                let (extra, _) = contact_scene(64, MARGIN, 99);
                for b in extra {
                    w.handles.push(w.bp.insert(b.speculative_aabb(MARGIN)));
                    w.bodies.push(b);
                }
            }
            _ => {}
        }
        // unmoved bodies and repeats may be listed too
        for _ in 0..50 {
            moved.push(rng.u32(0..w.bodies.len() as u32));
        }
        moved.extend_from_within(..moved.len() / 4);
        rng.shuffle(&mut moved);
        all.update(&w.bodies, w.bp.pairs());
        listed.update_moved(&w.bodies, &moved, w.bp.pairs());
        assert_eq!(listed.pairs(), all.pairs(), "frame {frame}");
        assert_eq!(listed.stats(), all.stats(), "frame {frame}");
        assert_eq!(listed.gone(), all.gone(), "frame {frame}");
        for k in 0..all.pairs().len() {
            let at = format!("frame {frame} pair {k}");
            assert_eq!(bits(&listed.manifolds()[k]), bits(&all.manifolds()[k]), "{at}");
            assert_eq!(listed.reused(k), all.reused(k), "{at}");
            assert_eq!(listed.previous(k), all.previous(k), "{at}");
            assert_eq!(listed.changes(k), all.changes(k), "{at}");
        }
        reused += all.stats().reused;
        recomputed += all.stats().recomputed;
    }
    assert!(reused > 1000 && recomputed > 1000, "{reused} {recomputed}");
}

#[test]
#[should_panic(expected = "moved body 16 indexes past the 16 colliders")]
fn a_moved_body_past_the_colliders_panics() {
    let (bodies, _) = contact_scene(16, MARGIN, 1);
    NarrowPhase::new(MARGIN).update_moved(&bodies, &[3, 16], &[(0, 1)]);
}
