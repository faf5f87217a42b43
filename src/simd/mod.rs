//! Run-time choice of the instruction set.
//!
//! `wide` fixes its backend when the crate is compiled (a `cfg` of the build),
//! so a library user's ordinary `cargo build` would run every kernel on the
//! x86-64 baseline: SSE2, with `f32x8`/`f32x16` emulated by halves and no
//! `roundps`/`blendvps`. The hot paths therefore take an extra step: at each
//! rayon task they call `dispatch`, which runs the task's body inside a
//! `#[target_feature]` function instantiated with lane types of our own built
//! on `core::arch` (`x86`), chosen by CPU detection once per process. The
//! kernels are still written once over [`Lane`](crate::lane::Lane); only the
//! lane type changes, so the bit-identical contract holds on every path
//! (`tests/simd_paths.rs` runs the shared vectors on each).
//!
//! How the instructions actually switch (the mechanism Embree and Open3D get
//! from separate translation units, memchr and pulp from `target_feature`):
//! - The entry points `dispatch` calls are `#[target_feature(enable = …)]`
//!   functions; the body they call (`SimdFn::call`) and everything below it
//!   is `#[inline(always)]`, so LLVM compiles it inside the entry with the
//!   entry's features. An intrinsic left outside a featured function would be
//!   emitted as a real call (correct, but slow); `.ci/run` checks the release
//!   binary for such out-of-line `core::core_arch` symbols.
//! - Closures defined inside a featured function inherit its features
//!   (rustc's rule since `target_feature_11`), but rayon's task closures are
//!   defined in the generic callers, so each task dispatches on its own; the
//!   cost is one predictable branch per task.
//! - `fma` is enabled with AVX2 (as in `x86-64-v3`) but never used: Rust does
//!   not contract `a * b + c` into a fused operation, and the kernels never
//!   call `mul_add` (the FMA policy of `simd-notes.md`).
//!
//! `WIDEPHASE_SIMD=sse2|avx2|avx512` forces a path for the whole process (the
//! best supported path at or below the request); [`with_isa`] forces one for
//! the calls made on the current thread (tests compare the paths in one
//! process). `widephase info` reports both.
//!
//! A build with `--cfg widephase_no_dispatch` in `RUSTFLAGS` compiles no
//! featured entries for the dispatched bodies: each runs on the build's own
//! `wide` types ([`Isa::Baseline`]), the only path it reports as supported. For a
//! build whose `-C target-cpu` already names the machine, and for `.ci/run`'s
//! backend stages, which test `wide`'s compile-time backends (one copy of each
//! body instead of three).

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

pub(crate) mod unroll;
pub(crate) mod vox;

use crate::pack::LanePod;
use std::cell::Cell;
use std::sync::OnceLock;

/// An instruction-set path of the dispatched kernels, from the narrowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The build's own backend: `wide`'s types as compiled (SSE2 on a plain
    /// x86-64 build; whatever `-C target-cpu` allowed otherwise).
    Baseline,
    /// AVX2 (+FMA, BMI, F16C: `x86-64-v3`): 8-lane `__m256` lanes, 16 lanes
    /// as two of them.
    Avx2,
    /// AVX-512 F/BW/DQ/VL (`x86-64-v4`): 16-lane `__m512` lanes with `k`
    /// masks; 8 lanes as AVX2.
    Avx512,
}

impl Isa {
    /// Every path, narrowest first.
    pub const ALL: [Isa; 3] = [Isa::Baseline, Isa::Avx2, Isa::Avx512];

    /// The name used by `WIDEPHASE_SIMD` and `widephase info`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "sse2",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The path for a `WIDEPHASE_SIMD` value (`sse2`/`baseline`, `avx2`,
    /// `avx512`; case-insensitive).
    pub fn parse(s: &str) -> Option<Isa> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sse2" | "baseline" | "scalar" | "none" => Some(Isa::Baseline),
            "avx2" => Some(Isa::Avx2),
            "avx512" | "avx-512" | "avx512f" => Some(Isa::Avx512),
            _ => None,
        }
    }

    /// Whether this CPU can run the path and this build compiled it (a
    /// `widephase_no_dispatch` build has [`Isa::Baseline`] only).
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Baseline => true,
            #[cfg(all(target_arch = "x86_64", not(widephase_no_dispatch)))]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("lzcnt")
                    && std::arch::is_x86_feature_detected!("popcnt")
                    && std::arch::is_x86_feature_detected!("f16c")
                    && std::arch::is_x86_feature_detected!("movbe")
            }
            #[cfg(all(target_arch = "x86_64", not(widephase_no_dispatch)))]
            Isa::Avx512 => {
                Isa::Avx2.is_supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(any(not(target_arch = "x86_64"), widephase_no_dispatch))]
            _ => false,
        }
    }

    /// The widest path this CPU runs.
    pub fn detected() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            Isa::ALL.into_iter().rev().find(|i| i.is_supported()).unwrap_or(Isa::Baseline)
        })
    }

    /// The best supported path at or below `self`.
    pub fn clamp_to_cpu(self) -> Isa {
        self.min(Isa::detected())
    }
}

/// What the process-wide choice was made from (for `widephase info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The path the dispatched kernels run.
    pub isa: Isa,
    /// The widest path the CPU supports.
    pub detected: Isa,
    /// The raw `WIDEPHASE_SIMD` value, if set.
    pub requested: Option<String>,
    /// Why the request was not followed as written, if it was not.
    pub note: Option<String>,
}

/// The process-wide path: `WIDEPHASE_SIMD` if set (clamped to what the CPU
/// runs), else the widest detected. Read once.
pub fn selection() -> &'static Selection {
    static SELECTION: OnceLock<Selection> = OnceLock::new();
    SELECTION.get_or_init(|| {
        let detected = Isa::detected();
        let requested = std::env::var("WIDEPHASE_SIMD").ok().filter(|s| !s.trim().is_empty());
        let (isa, note) = match requested.as_deref().map(|s| (s, Isa::parse(s))) {
            None => (detected, None),
            Some((s, None)) => (
                detected,
                Some(format!(
                    "WIDEPHASE_SIMD={s:?} is not one of sse2, avx2, avx512; using {}",
                    detected.name()
                )),
            ),
            Some((_, Some(want))) if want > detected => (
                detected,
                Some(format!("this CPU does not run {}; using {}", want.name(), detected.name())),
            ),
            Some((_, Some(want))) => (want, None),
        };
        Selection { isa, detected, requested, note }
    })
}

thread_local! {
    static FORCED: Cell<Option<Isa>> = const { Cell::new(None) };
}

/// The path calls made now on this thread use: the innermost [`with_isa`]
/// override, else the process-wide [`selection`].
#[inline]
pub fn current() -> Isa {
    FORCED.with(|f| f.get()).unwrap_or_else(|| selection().isa)
}

/// Runs `f` with every dispatched call made from this thread (including the
/// rayon tasks those calls start) on `isa`, clamped to what the CPU runs;
/// returns the path used and `f`'s value. For tests and comparisons: the
/// answers are bit-identical on every path, only the speed differs.
pub fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> (Isa, R) {
    let isa = isa.clamp_to_cpu();
    let prev = FORCED.with(|c| c.replace(Some(isa)));
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(prev);
    (isa, f())
}

/// The lane types of one path.
pub(crate) trait Simd: Copy + Send + Sync + 'static {
    /// Eight `f32` lanes.
    type F8: LanePod;
    /// Sixteen `f32` lanes (with the voxelizer's operations).
    type F16: LanePod + vox::VoxF32;
    /// Eight `f64` lanes (the voxelizer's setup).
    type D8: vox::VoxF64;
}

/// The build's own `wide` types.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Baseline;
impl Simd for Baseline {
    type F8 = wide::f32x8;
    type F16 = wide::f32x16;
    type D8 = wide::f64x8;
}

/// A body instantiated once per path. `call` must be `#[inline(always)]`
/// (and so must everything it calls that uses the lane types), so that it is
/// compiled inside the featured entry of `dispatch`.
pub(crate) trait SimdFn {
    /// The body's result.
    type Out;
    /// The body at the lane types of `S`.
    fn call<S: Simd>(self) -> Self::Out;
}

/// Runs `f` on `isa`'s lane types with `isa`'s instructions enabled.
/// `isa` must come from [`current`] (or be otherwise known to be supported).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn dispatch<F: SimdFn>(isa: Isa, f: F) -> F::Out {
    match isa {
        // SAFETY: `current()` only yields paths `Isa::is_supported` confirmed
        // on this CPU (`selection` and `with_isa` clamp to `Isa::detected`).
        #[cfg(all(target_arch = "x86_64", not(widephase_no_dispatch)))]
        Isa::Avx512 => unsafe { x86::run_avx512(f) },
        #[cfg(all(target_arch = "x86_64", not(widephase_no_dispatch)))]
        Isa::Avx2 => unsafe { x86::run_avx2(f) },
        _ => f.call::<Baseline>(),
    }
}

/// A body written over one lane type `M` of the caller's width `L::WIDTH`
/// (8 or 16 lanes become the path's own types; other widths stay `L`).
pub(crate) trait WidthFn<L: LanePod> {
    /// The body's result.
    type Out;
    /// The body at lane type `M` (`M::WIDTH == L::WIDTH`; `L`'s packs are
    /// readable as `M`'s through [`recast`]). `#[inline(always)]`.
    fn call<M: LanePod>(self) -> Self::Out;
}

/// Adapts a [`WidthFn`] to [`SimdFn`].
struct AtWidth<B, L>(B, core::marker::PhantomData<L>);
impl<L: LanePod, B: WidthFn<L>> SimdFn for AtWidth<B, L> {
    type Out = B::Out;
    #[inline(always)]
    fn call<S: Simd>(self) -> B::Out {
        match L::WIDTH {
            8 => self.0.call::<S::F8>(),
            16 => self.0.call::<S::F16>(),
            _ => self.0.call::<L>(),
        }
    }
}

/// Runs `body` on `isa` at the path's lane type of width `L::WIDTH`.
#[inline(always)]
pub(crate) fn dispatch_width<L: LanePod, B: WidthFn<L>>(isa: Isa, body: B) -> B::Out {
    dispatch(isa, AtWidth(body, core::marker::PhantomData))
}

/// A body written over one lane type `M` of the caller's width `L::WIDTH`
/// that needs only [`Lane`](crate::lane::Lane) (no packs to read as `M`'s;
/// box pruning's scans load `f32` arrays): the [`WidthFn`] of generic code
/// whose lane type is not [`LanePod`].
pub(crate) trait LaneFn<L: crate::lane::Lane> {
    /// The body's result.
    type Out;
    /// The body at lane type `M` (`M::WIDTH == L::WIDTH`). `#[inline(always)]`.
    fn call<M: crate::lane::Lane>(self) -> Self::Out;
}

/// Adapts a [`LaneFn`] to [`SimdFn`].
struct AtLaneWidth<B, L>(B, core::marker::PhantomData<L>);
impl<L: crate::lane::Lane, B: LaneFn<L>> SimdFn for AtLaneWidth<B, L> {
    type Out = B::Out;
    #[inline(always)]
    fn call<S: Simd>(self) -> B::Out {
        match L::WIDTH {
            8 => self.0.call::<S::F8>(),
            16 => self.0.call::<S::F16>(),
            _ => self.0.call::<L>(),
        }
    }
}

/// Runs `body` on `isa` at the path's lane type of width `L::WIDTH`.
#[inline(always)]
pub(crate) fn dispatch_lane<L: crate::lane::Lane, B: LaneFn<L>>(isa: Isa, body: B) -> B::Out {
    dispatch(isa, AtLaneWidth(body, core::marker::PhantomData))
}

/// `s` (packs of lane type `L`) read as packs of lane type `M` of the same
/// width: the same floats in the same places (both are `#[repr(C)]` field-major
/// lanes). `M`'s alignment never exceeds `L`'s for the pairs [`dispatch_width`]
/// forms (wide's `f32x8`/`f32x16` are 32/64-byte aligned).
#[inline(always)]
pub(crate) fn recast<P: crate::pack::Packable, L: LanePod, M: LanePod>(
    s: &[P::Lanes<L>],
) -> &[P::Lanes<M>] {
    assert_eq!(L::WIDTH, M::WIDTH, "recast keeps the lane width");
    bytemuck::cast_slice(s)
}

/// One pack of lane type `L` read as lane type `M` (see [`recast`]).
#[inline(always)]
pub(crate) fn recast_one<P: crate::pack::Packable, L: LanePod, M: LanePod>(
    s: &P::Lanes<L>,
) -> &P::Lanes<M> {
    &recast::<P, L, M>(core::slice::from_ref(s))[0]
}

/// [`recast`] for a mutable slice.
#[inline(always)]
pub(crate) fn recast_mut<P: crate::pack::Packable, L: LanePod, M: LanePod>(
    s: &mut [P::Lanes<L>],
) -> &mut [P::Lanes<M>] {
    assert_eq!(L::WIDTH, M::WIDTH, "recast keeps the lane width");
    bytemuck::cast_slice_mut(s)
}

/// A one-line description of the path in use, for `widephase info`.
pub fn describe() -> String {
    let s = selection();
    let mut line = format!("{} (detected {})", current().name(), s.detected.name());
    if let Some(r) = &s.requested {
        line.push_str(&format!(", WIDEPHASE_SIMD={r}"));
    }
    if let Some(n) = &s.note {
        line.push_str(&format!(": {n}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_the_documented_names() {
        assert_eq!(Isa::parse("SSE2"), Some(Isa::Baseline));
        assert_eq!(Isa::parse(" avx2 "), Some(Isa::Avx2));
        assert_eq!(Isa::parse("avx512"), Some(Isa::Avx512));
        assert_eq!(Isa::parse("neon"), None);
    }

    #[test]
    fn with_isa_is_scoped_and_clamped() {
        let outer = current();
        let (used, inner) = with_isa(Isa::Avx512, current);
        assert_eq!(used, inner);
        assert!(used <= Isa::detected());
        let (_, nested) = with_isa(Isa::Baseline, || with_isa(Isa::Avx2, current).1);
        assert_eq!(nested, Isa::Avx2.clamp_to_cpu());
        assert_eq!(current(), outer);
    }

    #[cfg(widephase_no_dispatch)]
    #[test]
    fn a_no_dispatch_build_runs_every_request_on_the_baseline() {
        for isa in Isa::ALL {
            assert_eq!(with_isa(isa, current).1, Isa::Baseline, "{isa:?}");
        }
        assert_eq!(Isa::detected(), Isa::Baseline);
        assert_eq!(selection().isa, Isa::Baseline);
    }
}
