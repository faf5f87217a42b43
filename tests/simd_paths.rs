//! Every instruction-set path of the run-time dispatch (`widephase::simd`)
//! against the build's own lanes: the same answers bit for bit, whichever path
//! the CPU runs (paths it cannot run are clamped, and say so).
//!
//! The batched drivers' tables run on every path in `tests/batch.rs`
//! (`all_widths`, `map_all_widths`); this file covers the other hot paths.

use widephase::bvh::{random_rays, Bvh, MeshBvh};
use widephase::simd::{with_isa, Isa};
use widephase::voxel::builtin::torus_knot;
use widephase::{Aabb, Ray, Triangle, Vec3};

/// The knot's triangles and a ray set with the awkward members: axis-parallel
/// (zero direction components, the general node test), through vertices, NaN.
fn knot_scene() -> (Vec<Triangle>, Vec<Ray>) {
    let mesh = torus_knot(96, 12, 1.0);
    let m = mesh.as_ref();
    let tris: Vec<Triangle> = (0..m.triangle_count()).map(|t| m.triangle(t)).collect();
    let (lo, hi) = m.bounds();
    let mut rays = random_rays(lo, hi, 20_000, 7);
    for (i, t) in tris.iter().enumerate().take(500) {
        let o = t.a + Vec3::new(0.0, 0.0, 10.0);
        let axis = Ray::new(Vec3::new(t.a.x, t.a.y, 10.0), Vec3::new(0.0, 0.0, -1.0));
        rays.push(axis);
        rays.push(Ray::new(o, t.a - o));
        if i % 100 == 0 {
            rays.push(Ray::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X));
        }
    }
    (tris, rays)
}

#[test]
fn mesh_rays_are_identical_on_every_path() {
    let (tris, rays) = knot_scene();
    let bvh = MeshBvh::new(&tris);
    let (_, want) = with_isa(Isa::Baseline, || bvh.closest_hits(&rays));
    let (_, want_any) = with_isa(Isa::Baseline, || bvh.any_hits(&rays));
    assert!(want.iter().filter(|h| h.is_some()).count() > 1000, "the scene has hits");
    for isa in Isa::ALL {
        let (used, got) = with_isa(isa, || bvh.closest_hits(&rays));
        assert_eq!(used, isa.clamp_to_cpu());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let bits = |h: &Option<widephase::bvh::RayHit>| {
                h.map(|h| (h.id, h.t.to_bits(), h.u.to_bits(), h.v.to_bits()))
            };
            assert_eq!(bits(g), bits(w), "{isa:?} ray {i}");
        }
        let (_, any) = with_isa(isa, || bvh.any_hits(&rays));
        assert_eq!(any, want_any, "{isa:?} any-hit");
        // the single-ray entry points dispatch too
        let (_, one) =
            with_isa(isa, || rays.iter().map(|r| bvh.closest_hit(r)).collect::<Vec<_>>());
        assert_eq!(one, want, "{isa:?} closest_hit");
    }
}

#[test]
fn box_picking_is_identical_on_every_path() {
    let (tris, rays) = knot_scene();
    let boxes: Vec<Aabb> =
        tris.iter().map(|t| Aabb::new(t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c))).collect();
    let bvh = Bvh::new(&boxes);
    let (_, want) =
        with_isa(Isa::Baseline, || rays.iter().map(|r| bvh.pick(r)).collect::<Vec<_>>());
    for isa in Isa::ALL {
        let (_, got) = with_isa(isa, || rays.iter().map(|r| bvh.pick(r)).collect::<Vec<_>>());
        let bits = |v: &[Option<(u32, f32)>]| -> Vec<_> {
            v.iter().map(|p| p.map(|(i, t)| (i, t.to_bits()))).collect()
        };
        assert_eq!(bits(&got), bits(&want), "{isa:?}");
    }
}

#[test]
fn the_process_wide_path_is_one_the_cpu_runs() {
    let sel = widephase::simd::selection();
    assert!(sel.isa <= Isa::detected());
    assert!(sel.isa.is_supported());
    match std::env::var("WIDEPHASE_SIMD").ok().as_deref().and_then(Isa::parse) {
        Some(want) => assert_eq!(sel.isa, want.clamp_to_cpu()),
        None => assert_eq!(sel.isa, Isa::detected()),
    }
    assert!(widephase::simd::describe().starts_with(widephase::simd::current().name()));
}
