//! dynamic (being written).
