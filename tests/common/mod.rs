//! Shared test kit: exact reference arithmetic, seeded generators, the case
//! tables (one per predicate, replayed by the scalar functions and, later, by
//! every lane width), and the exact reference predicates.
#![allow(dead_code)]

pub mod cases;
pub mod contact64;
pub mod exact;
pub mod lanes;
pub mod reference;
pub mod rng;

/// Tally of one exact-checked property run, printed as one line so the totals
/// can be collected (`cargo test --release -- --nocapture | grep EXACT`).
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub cases: usize,
    /// default variant disagreed with exact, inside the ulp band (allowed)
    pub default_in_band: usize,
    /// default variant disagreed with exact outside the band (a bug: must be 0)
    pub default_out_of_band: usize,
    /// conservative said separated, exact said touching/overlapping (must be 0)
    pub conservative_false_neg: usize,
    /// conservative said overlapping, exact said separated (allowed, in band)
    pub conservative_false_pos: usize,
    /// cases where exact said "intersecting"
    pub exact_hits: usize,
}

impl Tally {
    pub fn report(&self, predicate: &str) {
        eprintln!(
            "EXACT {predicate}: cases={} exact_hits={} default_disagree_in_band={} default_disagree_out_of_band={} conservative_false_neg={} conservative_false_pos={}",
            self.cases,
            self.exact_hits,
            self.default_in_band,
            self.default_out_of_band,
            self.conservative_false_neg,
            self.conservative_false_pos
        );
    }
}
