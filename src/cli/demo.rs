//! `widephase demo`: the batched kernels on a built-in scene, no files needed.
//!
//! A procedural torus (triangle mesh) is tested against every cell of a voxel
//! grid with the conservative triangle–box kernel, many-vs-many, at the
//! scalar width and at x16 over rayon; the two must find the same pairs. Then a
//! cloud of spheres is tested against the occupied voxels.

use super::CliResult;
use std::time::Instant;
use wide::f32x16;
use widephase::batch::kernels::{SphereAabb, TriangleAabbConservative};
use widephase::batch::{many_vs_many, par_many_vs_many};
use widephase::pack::Pack;
use widephase::{Aabb, Sphere, Triangle, Vec3};

/// A torus of major radius `r_major` and minor radius `r_minor` around the z
/// axis, `nu × nv` quads split into triangles (closed, consistently wound).
pub fn torus(r_major: f32, r_minor: f32, nu: usize, nv: usize) -> Vec<Triangle> {
    let p = |i: usize, j: usize| {
        let (u, v) = (
            (i % nu) as f32 / nu as f32 * std::f32::consts::TAU,
            (j % nv) as f32 / nv as f32 * std::f32::consts::TAU,
        );
        let ring = r_major + r_minor * v.cos();
        Vec3::new(ring * u.cos(), ring * u.sin(), r_minor * v.sin())
    };
    let mut tris = Vec::with_capacity(2 * nu * nv);
    for i in 0..nu {
        for j in 0..nv {
            let (a, b, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            tris.push(Triangle::new(a, b, c));
            tris.push(Triangle::new(a, c, d));
        }
    }
    tris
}

/// Runs the demo and prints what it found.
pub fn run() -> CliResult {
    let tris = torus(1.0, 0.35, 48, 24);
    let res = 32usize;
    let lo = Vec3::new(-1.4, -1.4, -0.4);
    let h = 2.8 / res as f32;
    let mut voxels = Vec::with_capacity(res * res * res);
    for k in 0..res {
        for j in 0..res {
            for i in 0..res {
                let o = lo + Vec3::new(i as f32, j as f32, k as f32) * h;
                voxels.push(Aabb::new(o, o + Vec3::splat(h)));
            }
        }
    }
    println!(
        "built-in scene: torus with {} triangles, {}³ grid ({} voxels)",
        tris.len(),
        res,
        voxels.len()
    );

    let t = Instant::now();
    let scalar_pack = Pack::<Aabb, f32>::new(&voxels);
    let mut scalar_pairs = Vec::new();
    many_vs_many::<TriangleAabbConservative, f32>(&tris, &scalar_pack, &mut scalar_pairs);
    let t_scalar = t.elapsed();

    let t = Instant::now();
    let wide_pack = Pack::<Aabb, f32x16>::new(&voxels);
    let mut wide_pairs = Vec::new();
    par_many_vs_many::<TriangleAabbConservative, f32x16>(&tris, &wide_pack, &mut wide_pairs);
    let t_wide = t.elapsed();
    if wide_pairs != scalar_pairs {
        return Err("x16 and scalar kernels disagree (this is a bug: please report it)".into());
    }
    let tests = (tris.len() * voxels.len()) as f64;
    let mut surface: Vec<u32> = wide_pairs.iter().map(|p| p.1).collect();
    surface.sort_unstable();
    surface.dedup();
    println!(
        "triangle–box (conservative), all {:.0}M pairs: scalar {:.0} ms, x16 × {} threads {:.0} ms ({:.1}× faster, {:.0}M tests/s); identical {} hit pairs",
        tests / 1e6,
        t_scalar.as_secs_f64() * 1e3,
        rayon::current_num_threads(),
        t_wide.as_secs_f64() * 1e3,
        t_scalar.as_secs_f64() / t_wide.as_secs_f64(),
        tests / t_wide.as_secs_f64() / 1e6,
        wide_pairs.len()
    );
    println!("surface voxels touched by the torus: {}", surface.len());

    // A ring of spheres against the surface voxels.
    let surface_boxes: Vec<Aabb> = surface.iter().map(|&i| voxels[i as usize]).collect();
    let spheres: Vec<Sphere> = (0..256)
        .map(|i| {
            let a = i as f32 / 256.0 * std::f32::consts::TAU;
            Sphere::new(
                Vec3::new(1.35 * a.cos(), 1.35 * a.sin(), 0.0),
                0.05 + 0.001 * (i % 7) as f32,
            )
        })
        .collect();
    let mut sphere_pairs = Vec::new();
    par_many_vs_many::<SphereAabb, f32x16>(&spheres, &Pack::new(&surface_boxes), &mut sphere_pairs);
    let touching: std::collections::BTreeSet<u32> = sphere_pairs.iter().map(|p| p.0).collect();
    println!(
        "{} spheres centred on the torus's outer equator: {} touch surface voxels ({} sphere–voxel pairs)",
        spheres.len(),
        touching.len(),
        sphere_pairs.len()
    );
    Ok(())
}
