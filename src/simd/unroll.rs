//! Written-out arrays for bodies that must compile inside a featured entry.
//!
//! `core::array::from_fn(|i| …)` and `[x; N].map(|v| …)` call their closure
//! from library code (`core::array::try_from_fn`), which is compiled without
//! the entry's target features; a closure over lane values then calls every
//! `_mm256_*` intrinsic out of line (correct, but each vector operation
//! becomes a function call). These macros expand to the array literal the
//! closure would have built, element by element in index order, so the
//! arithmetic and its order are exactly those of `from_fn`/`map`.

/// `[f(0), f(1)]`: `array::from_fn` for two elements, written out.
macro_rules! from2 {
    (|$i:ident| $body:expr) => {
        [
            {
                let $i: usize = 0;
                $body
            },
            {
                let $i: usize = 1;
                $body
            },
        ]
    };
}

/// `[f(0), f(1), f(2)]` for `from3!(|i| f(i))`: `array::from_fn` for three
/// elements, written out.
macro_rules! from3 {
    (|$i:ident| $body:expr) => {
        [
            {
                let $i: usize = 0;
                $body
            },
            {
                let $i: usize = 1;
                $body
            },
            {
                let $i: usize = 2;
                $body
            },
        ]
    };
}

/// `[f(0), …, f(3)]`: `array::from_fn` for four elements, written out.
macro_rules! from4 {
    (|$i:ident| $body:expr) => {
        [
            {
                let $i: usize = 0;
                $body
            },
            {
                let $i: usize = 1;
                $body
            },
            {
                let $i: usize = 2;
                $body
            },
            {
                let $i: usize = 3;
                $body
            },
        ]
    };
}

/// `a.map(|x| f(x))` for a three-element array `a`, written out.
macro_rules! map3 {
    ($a:expr, |$x:ident| $body:expr) => {{
        let [a0, a1, a2] = $a;
        [
            {
                let $x = a0;
                $body
            },
            {
                let $x = a1;
                $body
            },
            {
                let $x = a2;
                $body
            },
        ]
    }};
}

pub(crate) use {from2, from3, from4, map3};
