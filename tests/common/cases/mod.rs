//! Case tables, one module per family. Each table is a `&[Case]` of plain data
//! (inputs, expected answer under exact arithmetic, a label saying what the case
//! attacks), so every path — scalar, each lane width in each lane position, each
//! thread count — replays the same rows.

pub mod boxes;
pub mod closest;
pub mod convex;
pub mod culling;
pub mod dynamic;
pub mod rays;
