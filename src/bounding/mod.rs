//! bounding (being written).
