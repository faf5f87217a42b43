//! closest (being written).
