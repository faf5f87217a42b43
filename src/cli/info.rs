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
        "                      (voxelizer, batch drivers, contact and hull testers, box pruning, BVH rays and box queries;\n                       WIDEPHASE_SIMD=sse2|avx2|avx512 forces one)"
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
        // every hot path dispatches; what stays at the compiled level is a
        // kernel a caller instantiates itself on `wide`'s lane types
        for (has, name, feature) in [
            (cpu_avx512, "AVX-512", cfg!(target_feature = "avx512f")),
            (cpu_avx2, "AVX2", cfg!(target_feature = "avx2")),
        ] {
            if has && !feature {
                println!("note: this CPU has {name} and the build's baseline does not; the dispatched paths above use it. Kernels your own code instantiates on `wide` lane types (e.g. `overlap::aabb_aabb::<f32x8>` in your own loop) run at the compiled level: for those, build with RUSTFLAGS=\"-C target-cpu=native\".");
                break;
            }
        }
    }
    println!("rayon threads       : {}", rayon::current_num_threads());
    Ok(())
}
