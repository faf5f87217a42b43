//! Contact generation for a physics narrow phase: manifolds (normal, depth,
//! points, feature ids) for pairs of spheres, capsules, boxes ([`Obb`](crate::Obb)) and
//! triangles ([`contacts`]), and for spheres, capsules and boxes against
//! static triangle meshes searched through their BVH ([`mesh_contacts`],
//! one manifold per triangle touched, ghost contacts of internal edges
//! dropped; see [`mesh`]), for convex hulls ([`ConvexHull`],
//! [`hull_contacts`]; see [`hull_contact`]), and persistent manifolds kept
//! from frame to frame for warm starting ([`NarrowPhase`]).
//!
//! Every tester is written once over [`Lane`] like the rest of the crate:
//! `f32` is the scalar tester, `f32x4`/`f32x8`/`f32x16` test 4/8/16 pairs at
//! once and give bit-identical manifolds in every lane.
//!
//! # Conventions (every tester keeps them)
//! - The **normal** is a unit vector pointing **from A to B** (the first
//!   argument to the second): moving B by `depth * normal` separates the pair.
//! - Each [`ContactPoint::position`] is a point on **B's** surface (for a
//!   penetrating pair: B's deepest point inside A along `-normal`); the matching
//!   point on A is `position + depth * normal`.
//! - **depth** is the penetration along the normal: positive when the shapes
//!   overlap, zero when they touch, negative (down to `-margin`) for
//!   *speculative* contacts of pairs closer than the margin.
//! - A tester is given a speculative `margin` (finite, `>= 0`) and reports a
//!   contact (`count > 0`) for **every** pair at most `margin` apart (touching
//!   counts: closed sets, see [contracts](crate#contracts)). Which farther
//!   pairs also get one depends on the tester:
//!   - **exact**: [`sphere_sphere`], [`sphere_capsule`], [`sphere_box`],
//!     [`sphere_triangle`], [`capsule_capsule`], [`capsule_box`] and
//!     [`capsule_triangle`] compute the distance (closest points) and report
//!     exactly the pairs at most `margin` apart, up to the rounding of that
//!     distance (a few ulps of the coordinates);
//!   - **SAT, then the distance**: [`box_box()`] and [`box_triangle()`]
//!     compare the separation along their chosen SAT axis with the margin.
//!     That is a lower bound of the distance, so no pair within the margin is
//!     missed. A speculative or touching manifold whose deepest point is not
//!     a closest pair of the two shapes (the SAT axis does not see the
//!     closest features, e.g. a box vertex facing a vertex along the box's
//!     diagonal, where every axis sees only `distance/√3`) is replaced by the
//!     exact closest pair, or dropped when that is farther than the margin
//!     (see `src/contact/closest_pair.rs`). So these report the pairs at most
//!     `margin` apart too, up to a tolerance of `2^-18` of the coordinates'
//!     and the box's magnitudes, and a speculative depth is minus the
//!     distance.
//!
//!   The triangle testers are also one-sided (no contact from behind, see
//!   each). Both sides are checked against exact distances:
//!   `check_decision` in `tests/contact_spheres.rs`, the capsule–box f64
//!   reference and the `*margin_contract*` tests of `tests/contact_boxes.rs`
//!   and `tests/contact_box_triangle.rs`.
//! - `count` is the number of valid points, `0..=MAX_CONTACTS`, as an
//!   integer-valued float; points at index `>= count`, and the normal of a
//!   lane with `count == 0`, are zero.
//! - **feature ids** are integer-valued floats (exact below 2^24) naming the
//!   pair of features that produced a point (e.g. face of A × vertex of B). They
//!   depend only on the features, not on positions, so a solver can match
//!   points across frames for warm starting.
//! - Invalid inputs (NaN/∞ coordinates, negative radii, inverted boxes) give
//!   `count == 0`, following the crate's [non-finite rule](crate#contracts).

pub mod box_box;
pub mod box_triangle;
mod capsule_box;
mod capsule_capsule;
mod capsule_triangle;
mod closest_pair;
pub mod hull;
pub mod hull_contact;
pub mod internal_edges;
pub mod mesh;
pub mod narrow_phase;
pub mod pipeline;
mod sphere_box;
mod sphere_capsule;
mod sphere_sphere;
mod sphere_triangle;
mod util;

pub use box_box::box_box;
pub use box_triangle::box_triangle;
pub use capsule_box::{capsule_box, CAPSULE_FACE_ID_BASE};
pub use capsule_capsule::{capsule_capsule, CAPSULE_PARALLEL_SIN};
pub use capsule_triangle::capsule_triangle;
pub use hull::{ConvexHull, HullEdge, HullError, HULL_MAX_VERTICES};
pub use hull_contact::{
    hull_box, hull_capsule, hull_contacts, hull_hull, hull_sphere, hull_triangle, HullPartner,
    PlacedHull,
};
pub use mesh::{mesh_contacts, mesh_contacts_with_hulls, MeshContact, MeshManifolds, StaticMesh};
pub use narrow_phase::{ContactChange, FrameStats, GoneContact, NarrowPhase};
pub use pipeline::{
    contacts, contacts_with_hulls, Collider, ContactTester, HullCollider, ShapeKind,
};
pub use sphere_box::sphere_box;
pub use sphere_capsule::sphere_capsule;
pub use sphere_sphere::sphere_sphere;
pub use sphere_triangle::sphere_triangle;
pub use util::FALLBACK_NORMAL;

use crate::lane::Lane;
use crate::math::V3;
use crate::pack::{LanePod, Packable};
use crate::shapes::pod_generic;

/// Most points one manifold holds (bepu, Box2D and ODE's `dBoxBox` keep 4).
pub const MAX_CONTACTS: usize = 4;

/// One contact point of a [`Manifold`] (see the [module conventions](self)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint<L = f32> {
    /// Point on B's surface.
    pub position: V3<L>,
    /// Penetration depth along the manifold normal (negative: speculative gap).
    pub depth: L,
    /// Integer-valued feature id, stable across frames for the same features.
    pub feature_id: L,
}

/// A contact manifold: one normal and up to [`MAX_CONTACTS`] points.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold<L = f32> {
    /// Unit normal from A to B.
    pub normal: V3<L>,
    /// Number of valid points (integer-valued).
    pub count: L,
    /// The points; entries at index `>= count` are zero.
    pub points: [ContactPoint<L>; MAX_CONTACTS],
}

pod_generic!(ContactPoint, Manifold);

impl Packable for Manifold {
    type Lanes<L: LanePod> = Manifold<L>;
    const PADDING: Self = Manifold::EMPTY;
}

impl Manifold<f32> {
    /// No contact.
    pub const EMPTY: Self = Manifold {
        normal: V3 { x: 0.0, y: 0.0, z: 0.0 },
        count: 0.0,
        points: [ContactPoint {
            position: V3 { x: 0.0, y: 0.0, z: 0.0 },
            depth: 0.0,
            feature_id: 0.0,
        }; MAX_CONTACTS],
    };

    /// The valid points.
    pub fn contacts(&self) -> &[ContactPoint] {
        &self.points[..(self.count as usize).min(MAX_CONTACTS)]
    }

    /// Deepest penetration among the valid points (`None` without contact).
    pub fn max_depth(&self) -> Option<f32> {
        self.contacts().iter().map(|p| p.depth).reduce(f32::max)
    }
}

impl<L: Lane> Manifold<L> {
    /// All lanes empty.
    #[inline(always)]
    pub fn empty() -> Self {
        let z = L::splat(0.0);
        let p = ContactPoint { position: V3::splat(z), depth: z, feature_id: z };
        Manifold { normal: V3::splat(z), count: z, points: [p; MAX_CONTACTS] }
    }
}
