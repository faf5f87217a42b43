#!/usr/bin/env bash
# Checks that a release binary (the CLI or a test binary) built for the
# x86-64 baseline has no AVX intrinsic compiled out of line. Every dispatched
# body is meant to compile inside a `#[target_feature]` entry (src/simd); an
# intrinsic left outside one becomes a real function call per vector
# operation (correct but many times slower), and shows up here as a
# `core::core_arch::x86::avx*` symbol.
# Usage: scripts/check_dispatch.sh path/to/binary
set -euo pipefail
bin="$1"
out_of_line=$(nm -C "$bin" | grep -E 'core_arch::x86::(avx|avx2|avx512[a-z]*|fma|f16c|bmi[12]?)::' || true)
if [ -n "$out_of_line" ]; then
    echo "AVX intrinsics compiled out of line in $bin (a dispatched body was not inlined):" >&2
    echo "$out_of_line" | awk '{print "  " $3}' | sort | uniq -c | sort -rn | head -20 >&2
    echo "callers:" >&2
    objdump -d --no-show-raw-insn -C "$bin" \
        | awk '/^[0-9a-f]+ <.*>:$/{fn=$0} /call.*core_arch::x86::(avx|fma)/{print fn}' \
        | sort | uniq -c | sort -rn | head -20 >&2
    exit 1
fi
echo "dispatch check: no out-of-line AVX intrinsics in $bin"
