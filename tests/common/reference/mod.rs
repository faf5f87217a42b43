//! Exact reference predicates (rational arithmetic on the f32 inputs), one module
//! per family, independent of the crate's own code.

pub mod boxes;
pub mod closest;
pub mod convex;
pub mod culling;
pub mod dynamic;
pub mod rays;
