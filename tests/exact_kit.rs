//! Self-tests of the exact-arithmetic kit the other tests rely on.
use crate::common;
use common::exact::{hulls_intersect, Q};
use widephase::Vec3;

#[test]
fn f32_to_rational_is_exact() {
    assert_eq!(Q::f(0.5), Q::int(1) / Q::int(2));
    assert_eq!(Q::f(-3.0), Q::int(-3));
    let tiny = f32::from_bits(1); // 2^-149
    let mut p = Q::one();
    for _ in 0..149 {
        p = p / Q::int(2);
    }
    assert_eq!(Q::f(tiny), p);
    assert_eq!(Q::f(0.1) - Q::f(0.1), Q::zero());
    assert!(Q::f(0.1) != Q::int(1) / Q::int(10));
}

#[test]
fn hull_reference_on_known_configurations() {
    let v = |x, y, z| Vec3::new(x, y, z);
    let tri = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
    // point on the hypotenuse: touching
    assert!(hulls_intersect(&tri, &[v(0.5, 0.5, 0.0)]));
    // just outside
    assert!(!hulls_intersect(&tri, &[v(0.5, 0.5 + f32::EPSILON, 0.0)]));
    // segment piercing the triangle
    assert!(hulls_intersect(&tri, &[v(0.2, 0.2, -1.0), v(0.2, 0.2, 1.0)]));
    // segment passing beside it
    assert!(!hulls_intersect(&tri, &[v(1.2, 0.2, -1.0), v(1.2, 0.2, 1.0)]));
    // collinear disjoint segments
    assert!(!hulls_intersect(
        &[v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0)],
        &[v(2.0, 2.0, 2.0), v(3.0, 3.0, 3.0)]
    ));
    // collinear touching segments
    assert!(hulls_intersect(
        &[v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0)],
        &[v(1.0, 1.0, 1.0), v(3.0, 3.0, 3.0)]
    ));
    // two points
    assert!(hulls_intersect(&[v(1.0, 2.0, 3.0)], &[v(1.0, 2.0, 3.0)]));
    assert!(!hulls_intersect(&[v(1.0, 2.0, 3.0)], &[v(1.0, 2.0, 3.5)]));
    // coplanar triangles sharing only a vertex
    assert!(hulls_intersect(&tri, &[v(1.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(2.0, 1.0, 0.0)]));
}
