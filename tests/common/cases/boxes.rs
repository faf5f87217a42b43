//! Case tables for the box family. `expect` is the exact-arithmetic answer for
//! inputs in the predicate's domain, and the NaN-rule answer (`false`) outside.
//! `exact_domain` is false for inputs beyond `COORD_LIMIT` or non-finite, where
//! only "no panic, NaN rule, same bits at every width" is promised.

use crate::common::rng::nudge;
use widephase::{Aabb, Sphere, Triangle, Vec3};

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}
fn unit() -> Aabb {
    Aabb::new(v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0))
}
fn tri(a: Vec3, b: Vec3, c: Vec3) -> Triangle {
    Triangle::new(a, b, c)
}
fn scale_tri(t: Triangle, s: f32) -> Triangle {
    tri(t.a * s, t.b * s, t.c * s)
}
fn scale_box(b: Aabb, s: f32) -> Aabb {
    Aabb::new(b.min * s, b.max * s)
}

#[derive(Clone, Copy, Debug)]
pub struct TriAabbCase {
    pub label: &'static str,
    pub tri: Triangle,
    pub aabb: Aabb,
    pub expect: bool,
    pub exact_domain: bool,
}

pub fn triangle_aabb_cases() -> Vec<TriAabbCase> {
    let c = |label, tri, aabb, expect| TriAabbCase { label, tri, aabb, expect, exact_domain: true };
    let odd =
        |label, tri, aabb, expect| TriAabbCase { label, tri, aabb, expect, exact_domain: false };
    let one_up = nudge(1.0, 1);
    let one_dn = nudge(1.0, -1);
    let edge_touch = tri(v(2.0, 0.0, 0.5), v(0.0, 2.0, 0.5), v(5.0, 5.0, 0.5));
    let corner_plane = tri(v(3.0, 0.0, 0.0), v(0.0, 3.0, 0.0), v(0.0, 0.0, 3.0));
    let t3 = nudge(3.0, 1);
    let mut out = vec![
        c(
            "triangle inside the box",
            tri(v(0.2, 0.2, 0.2), v(0.8, 0.2, 0.3), v(0.5, 0.7, 0.6)),
            unit(),
            true,
        ),
        c(
            "triangle far away",
            tri(v(5.0, 5.0, 5.0), v(6.0, 5.0, 5.0), v(5.0, 6.0, 5.0)),
            unit(),
            false,
        ),
        c(
            "box inside a big triangle's interior",
            tri(v(-10.0, -10.0, 0.5), v(10.0, -10.0, 0.5), v(0.0, 10.0, 0.5)),
            unit(),
            true,
        ),
        c(
            "face-aligned: triangle in the top face plane y=1",
            tri(v(0.5, 1.0, 0.5), v(3.0, 1.0, 0.5), v(0.5, 1.0, 3.0)),
            unit(),
            true,
        ),
        c(
            "face-aligned: in plane y=1 but beside the face",
            tri(v(1.5, 1.0, 0.5), v(3.0, 1.0, 0.5), v(1.5, 1.0, 3.0)),
            unit(),
            false,
        ),
        c(
            "face-aligned: plane y=1+1ulp",
            tri(v(0.5, one_up, 0.5), v(3.0, one_up, 0.5), v(0.5, one_up, 3.0)),
            unit(),
            false,
        ),
        c(
            "face-aligned: plane y=1-1ulp",
            tri(v(0.5, one_dn, 0.5), v(3.0, one_dn, 0.5), v(0.5, one_dn, 3.0)),
            unit(),
            true,
        ),
        c(
            "face-aligned: plane y=0 covering the bottom face (teapot case)",
            tri(v(-5.0, 0.0, -5.0), v(5.0, 0.0, -5.0), v(0.0, 0.0, 5.0)),
            unit(),
            true,
        ),
        c(
            "face-aligned: x=1 face, triangle touching only the face's edge",
            tri(v(1.0, 1.0, 0.2), v(1.0, 2.0, 0.2), v(1.0, 2.0, 0.8)),
            unit(),
            true,
        ),
        c(
            "vertex touches the corner from outside",
            tri(v(1.0, 1.0, 1.0), v(2.0, 1.0, 1.0), v(1.0, 2.0, 2.0)),
            unit(),
            true,
        ),
        c("edge touches a box edge (line x+y=2 through (1,1))", edge_touch, unit(), true),
        c(
            "edge passes 1ulp outside a box edge",
            tri(v(2.0, 0.0, 0.5), v(0.0, nudge(2.0, 1), 0.5), v(5.0, 5.0, 0.5)),
            unit(),
            false,
        ),
        c(
            "edge crosses 1ulp inside a box edge",
            tri(v(2.0, 0.0, 0.5), v(0.0, nudge(2.0, -1), 0.5), v(5.0, 5.0, 0.5)),
            unit(),
            true,
        ),
        c("plane x+y+z=3 touches the corner (1,1,1)", corner_plane, unit(), true),
        c(
            "plane x+y+z=3+ulp misses the corner",
            tri(v(t3, 0.0, 0.0), v(0.0, t3, 0.0), v(0.0, 0.0, t3)),
            unit(),
            false,
        ),
        c(
            "plane x+y+z=4 misses",
            tri(v(4.0, 0.0, 0.0), v(0.0, 4.0, 0.0), v(0.0, 0.0, 4.0)),
            unit(),
            false,
        ),
        c(
            "only an edge axis (u_z × AB ∝ (1,1,0)) separates",
            tri(v(2.0, 0.2, 0.0), v(0.2, 2.0, 0.0), v(2.5, 2.5, -10.0)),
            unit(),
            false,
        ),
        c(
            "only the triangle normal separates (vertical plane x+y=1)",
            tri(v(1.5, -0.5, 0.5), v(-0.5, 1.5, 0.5), v(-0.5, 1.5, 0.75)),
            Aabb::new(v(0.6, 0.6, 0.0), v(1.0, 1.0, 1.0)),
            false,
        ),
        c(
            "parallel edges: triangle edge parallel to a box edge, touching",
            tri(v(1.0, -1.0, 1.0), v(1.0, 2.0, 1.0), v(3.0, 0.5, 2.0)),
            unit(),
            true,
        ),
        c(
            "parallel edges: edge parallel to a box edge, 1ulp away",
            tri(v(one_up, -1.0, 1.0), v(one_up, 2.0, 1.0), v(3.0, 0.5, 2.0)),
            unit(),
            false,
        ),
        c(
            "degenerate: segment piercing the box",
            tri(v(-1.0, 0.5, 0.5), v(2.0, 0.5, 0.5), v(2.0, 0.5, 0.5)),
            unit(),
            true,
        ),
        c(
            "degenerate: segment passing beside the box",
            tri(v(-1.0, 1.5, 0.5), v(2.0, 1.5, 0.5), v(2.0, 1.5, 0.5)),
            unit(),
            false,
        ),
        c(
            "degenerate: collinear vertices, diagonal segment through the corner",
            tri(v(0.0, 2.0, 0.5), v(2.0, 0.0, 0.5), v(1.5, 0.5, 0.5)),
            unit(),
            true,
        ),
        c(
            "degenerate: diagonal segment just outside the corner",
            tri(v(0.0, 2.25, 0.5), v(2.25, 0.0, 0.5), v(1.5, 0.75, 0.5)),
            unit(),
            false,
        ),
        c(
            "degenerate: point inside",
            tri(v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5)),
            unit(),
            true,
        ),
        c(
            "degenerate: point on the corner",
            tri(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            unit(),
            true,
        ),
        c(
            "degenerate: point 1ulp outside the corner",
            tri(v(one_up, 1.0, 1.0), v(one_up, 1.0, 1.0), v(one_up, 1.0, 1.0)),
            unit(),
            false,
        ),
        c(
            "zero-extent box (a point) inside the triangle",
            tri(v(0.0, 0.0, 0.5), v(1.0, 0.0, 0.5), v(0.0, 1.0, 0.5)),
            Aabb::new(v(0.25, 0.25, 0.5), v(0.25, 0.25, 0.5)),
            true,
        ),
        c(
            "zero-extent box (a point) on the hypotenuse",
            tri(v(0.0, 0.0, 0.5), v(1.0, 0.0, 0.5), v(0.0, 1.0, 0.5)),
            Aabb::new(v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5)),
            true,
        ),
        c(
            "zero-extent box (a point) just beyond the hypotenuse",
            tri(v(0.0, 0.0, 0.5), v(1.0, 0.0, 0.5), v(0.0, 1.0, 0.5)),
            Aabb::new(v(0.5, one_up * 0.5, 0.5), v(0.5, one_up * 0.5, 0.5)),
            false,
        ),
        c(
            "flat box (a rectangle) crossed by a tilted triangle",
            tri(v(-1.0, -1.0, 0.0), v(3.0, -1.0, 1.0), v(-1.0, 3.0, 1.0)),
            Aabb::new(v(0.0, 0.0, 0.75), v(1.0, 1.0, 0.75)),
            true,
        ),
        c(
            "flat box touched at its corner by a tilted triangle",
            tri(v(-1.0, -1.0, 0.0), v(3.0, -1.0, 1.0), v(-1.0, 3.0, 1.0)),
            Aabb::new(v(0.0, 0.0, 0.5), v(1.0, 1.0, 0.5)),
            true,
        ),
        c(
            "-0.0 box at the origin, triangle through the origin",
            tri(v(-1.0, -1.0, 0.0), v(1.0, -1.0, 0.0), v(0.0, 1.0, 0.0)),
            Aabb::new(v(-0.0, -0.0, -0.0), v(0.0, 0.0, 0.0)),
            true,
        ),
        c(
            "inverted box is empty",
            tri(v(-5.0, -5.0, 0.5), v(5.0, -5.0, 0.5), v(0.0, 5.0, 0.5)),
            Aabb::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0)),
            false,
        ),
        c(
            "tiny: edge-touch case scaled by 2^-100",
            scale_tri(edge_touch, 2f32.powi(-100)),
            scale_box(unit(), 2f32.powi(-100)),
            true,
        ),
        c(
            "subnormal: edge-touch case scaled by 2^-130",
            scale_tri(edge_touch, 2f32.powi(-130)),
            scale_box(unit(), 2f32.powi(-130)),
            true,
        ),
        c(
            "large: corner-plane case scaled by 2^38",
            scale_tri(corner_plane, 2f32.powi(38)),
            scale_box(unit(), 2f32.powi(38)),
            true,
        ),
        c(
            "box at 2^30 with a triangle touching its face",
            tri(
                v(2f32.powi(30), 0.0, 0.0),
                v(2f32.powi(30) + 8.0, 0.0, 0.0),
                v(2f32.powi(30), 8.0, 0.0),
            ),
            Aabb::new(v(2f32.powi(30) - 64.0, -64.0, -64.0), v(2f32.powi(30), 64.0, 0.0)),
            true,
        ),
        odd(
            "NaN vertex",
            tri(v(f32::NAN, 0.5, 0.5), v(0.5, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            unit(),
            false,
        ),
        odd(
            "infinite vertex",
            tri(v(f32::INFINITY, 0.5, 0.5), v(0.5, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            unit(),
            false,
        ),
        odd(
            "NaN box",
            tri(v(0.5, 0.5, 0.5), v(0.6, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            Aabb::new(v(0.0, f32::NAN, 0.0), v(1.0, 1.0, 1.0)),
            false,
        ),
        odd(
            "infinite box (treated as invalid)",
            tri(v(0.5, 0.5, 0.5), v(0.6, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            Aabb::new(v(f32::NEG_INFINITY, 0.0, 0.0), v(1.0, 1.0, 1.0)),
            false,
        ),
        odd(
            "huge 1e20 box around a small triangle",
            tri(v(0.5, 0.5, 0.5), v(0.6, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            Aabb::new(v(-1e20, -1e20, -1e20), v(1e20, 1e20, 1e20)),
            true,
        ),
        odd(
            "huge 1e20 triangle far from the unit box",
            tri(v(1e20, 1e20, 1e20), v(-1e20, 1e20, 1e20), v(1e20, -1e20, 1e20)),
            unit(),
            false,
        ),
        odd(
            "empty box constant",
            tri(v(0.5, 0.5, 0.5), v(0.6, 0.5, 0.5), v(0.5, 0.6, 0.5)),
            Aabb::EMPTY,
            false,
        ),
    ];
    // every case also with the triangle's vertices rotated: the answer must not
    // depend on vertex order
    let rotated: Vec<TriAabbCase> = out
        .iter()
        .map(|k| TriAabbCase {
            tri: tri(k.tri.b, k.tri.c, k.tri.a),
            label: "(rotated vertices)",
            ..*k
        })
        .collect();
    out.extend(rotated);
    out
}

#[derive(Clone, Copy, Debug)]
pub struct SphereAabbCase {
    pub label: &'static str,
    pub sphere: Sphere,
    pub aabb: Aabb,
    pub expect: bool,
    pub exact_domain: bool,
}

pub fn sphere_aabb_cases() -> Vec<SphereAabbCase> {
    let c = |label, sphere, aabb, expect| SphereAabbCase {
        label,
        sphere,
        aabb,
        expect,
        exact_domain: true,
    };
    let odd = |label, sphere, aabb, expect| SphereAabbCase {
        label,
        sphere,
        aabb,
        expect,
        exact_domain: false,
    };
    let s = |x, y, z, r| Sphere::new(v(x, y, z), r);
    let p = |e: i32| 2f32.powi(e);
    vec![
        c("center inside", s(0.5, 0.5, 0.5, 0.1), unit(), true),
        c("touches a face", s(2.0, 0.5, 0.5, 1.0), unit(), true),
        c("1ulp short of a face", s(2.0, 0.5, 0.5, nudge(1.0, -1)), unit(), false),
        c("touches an edge (3-4-5)", s(4.0, 5.0, 0.5, 5.0), unit(), true),
        c("1ulp short of an edge", s(4.0, 5.0, 0.5, nudge(5.0, -1)), unit(), false),
        c("touches the corner (d = (3,4,12), 13)", s(4.0, 5.0, 13.0, 13.0), unit(), true),
        c("1ulp short of the corner", s(4.0, 5.0, 13.0, nudge(13.0, -1)), unit(), false),
        c("point sphere (r=0) on a face", s(1.0, 0.5, 0.5, 0.0), unit(), true),
        c("point sphere (r=0) 1ulp outside", s(nudge(1.0, 1), 0.5, 0.5, 0.0), unit(), false),
        c("box inside a big sphere", s(0.5, 0.5, 0.5, 100.0), unit(), true),
        c(
            "zero-extent box on the sphere surface",
            s(0.0, 0.0, 0.0, 5.0),
            Aabb::new(v(3.0, 4.0, 0.0), v(3.0, 4.0, 0.0)),
            true,
        ),
        c(
            "-0.0 box touching a sphere at the origin",
            s(-1.0, 0.0, 0.0, 1.0),
            Aabb::new(v(-0.0, -0.0, -0.0), v(0.0, 0.0, 0.0)),
            true,
        ),
        c("negative radius is empty", s(0.5, 0.5, 0.5, -1.0), unit(), false),
        c(
            "inverted box is empty",
            s(0.5, 0.5, 0.5, 10.0),
            Aabb::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0)),
            false,
        ),
        c(
            "tiny: corner touch scaled by 2^-60 (squares near underflow)",
            s(4.0 * p(-60), 5.0 * p(-60), 13.0 * p(-60), 13.0 * p(-60)),
            scale_box(unit(), p(-60)),
            true,
        ),
        c(
            "large: corner touch scaled by 2^36",
            s(4.0 * p(36), 5.0 * p(36), 13.0 * p(36), 13.0 * p(36)),
            scale_box(unit(), p(36)),
            true,
        ),
        odd("NaN radius", s(0.5, 0.5, 0.5, f32::NAN), unit(), false),
        odd("infinite radius (invalid)", s(0.5, 0.5, 0.5, f32::INFINITY), unit(), false),
        odd("NaN center", s(f32::NAN, 0.5, 0.5, 1.0), unit(), false),
        odd("huge 1e20: squares overflow to inf", s(1e20, 0.0, 0.0, 1e20), unit(), true),
        odd("empty box constant", s(0.5, 0.5, 0.5, 1.0), Aabb::EMPTY, false),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct AabbAabbCase {
    pub label: &'static str,
    pub a: Aabb,
    pub b: Aabb,
    pub expect: bool,
}

pub fn aabb_aabb_cases() -> Vec<AabbAabbCase> {
    let c = |label, a, b, expect| AabbAabbCase { label, a, b, expect };
    let bx = |a: [f32; 3], b: [f32; 3]| Aabb::new(Vec3::from(a), Vec3::from(b));
    vec![
        c("overlapping", unit(), bx([0.5, 0.5, 0.5], [2.0, 2.0, 2.0]), true),
        c("sharing a face", unit(), bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]), true),
        c("sharing an edge", unit(), bx([1.0, 1.0, 0.0], [2.0, 2.0, 1.0]), true),
        c("sharing a corner", unit(), bx([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]), true),
        c("1ulp apart in x", unit(), bx([nudge(1.0, 1), 0.0, 0.0], [2.0, 1.0, 1.0]), false),
        c("1ulp apart in z only", unit(), bx([0.0, 0.0, nudge(1.0, 1)], [1.0, 1.0, 2.0]), false),
        c("contained", unit(), bx([0.25, 0.25, 0.25], [0.5, 0.5, 0.5]), true),
        c("point box on a corner", unit(), bx([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]), true),
        c(
            "-0.0 max touching +0.0 min",
            bx([-1.0, -1.0, -1.0], [-0.0, -0.0, -0.0]),
            bx([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
            true,
        ),
        c("inverted box is empty", unit(), bx([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]), false),
        c("empty constant", unit(), Aabb::EMPTY, false),
        c("NaN", unit(), bx([f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0]), false),
        c(
            "infinite extent is invalid",
            unit(),
            bx([f32::NEG_INFINITY, 0.0, 0.0], [1.0, 1.0, 1.0]),
            false,
        ),
        c(
            "huge 1e20 boxes overlapping",
            bx([-1e20, -1e20, -1e20], [1e20, 1e20, 1e20]),
            unit(),
            true,
        ),
        c(
            "subnormal boxes touching",
            bx([0.0, 0.0, 0.0], [f32::from_bits(1), 1.0, 1.0]),
            bx([f32::from_bits(1), 0.0, 0.0], [1.0, 1.0, 1.0]),
            true,
        ),
    ]
}
