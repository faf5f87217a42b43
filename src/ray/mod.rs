//! ray (being written).
