//! `widephase info`: what SIMD backend this build uses and what the CPU offers.

use super::CliResult;
use widephase::lane::{compiled_simd_level, COMPILED_WITH_FMA};

/// Prints the compiled SIMD level, the lane widths and the CPU's features, and
/// warns when the build leaves a wider backend of this CPU unused.
pub fn run() -> CliResult {
    println!("widephase {}", env!("CARGO_PKG_VERSION"));
    println!("compiled SIMD level : {}", compiled_simd_level());
    println!("dispatched path     : {}", widephase::simd::describe());
    println!(
        "                      (batch drivers, contact testers, BVH rays; WIDEPHASE_SIMD=sse2|avx2|avx512 forces one)"
    );
    println!("lane widths         : scalar (1), f32x4 (4), f32x8 (8), f32x16 (16)");
    println!(
        "fma at compile time : {} (never used by kernels: see simd-notes.md, FMA policy)",
        if COMPILED_WITH_FMA { "yes" } else { "no" }
    );
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = [
            ("sse2", is_x86_feature_detected!("sse2")),
            ("sse4.1", is_x86_feature_detected!("sse4.1")),
            ("avx", is_x86_feature_detected!("avx")),
            ("avx2", is_x86_feature_detected!("avx2")),
            ("fma", is_x86_feature_detected!("fma")),
            ("avx512f", is_x86_feature_detected!("avx512f")),
        ];
        let have: Vec<&str> = cpu.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect();
        println!("CPU features        : {}", have.join(" "));
        let cpu_avx512 = is_x86_feature_detected!("avx512f");
        let cpu_avx2 = is_x86_feature_detected!("avx2");
        // (the wide BVH's box queries still use the compiled level)
        if cpu_avx512 && !cfg!(target_feature = "avx512f") {
            println!("note: this CPU has AVX-512; the dispatched paths (voxelizer included) use it, the wide BVH's box queries and the convex hull testers run at the compiled level. For those too, rebuild with RUSTFLAGS=\"-C target-cpu=native\".");
        } else if cpu_avx2 && !cfg!(target_feature = "avx2") {
            println!("note: this CPU has AVX2; the dispatched paths (voxelizer included) use it, the wide BVH's box queries and the convex hull testers run at the compiled level. For those too, rebuild with RUSTFLAGS=\"-C target-cpu=native\".");
        }
    }
    println!("rayon threads       : {}", rayon::current_num_threads());
    Ok(())
}
