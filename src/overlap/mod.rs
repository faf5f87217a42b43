//! overlap (being written).
