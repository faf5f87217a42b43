#!/usr/bin/env bash
# Issue 19's measurement: a native build against a plain x86-64 build (what a
# library user's `cargo build --release` compiles), on the same machine at the
# same moment, runs alternating, best of each. Prints one line per workload:
# native ms, baseline ms, baseline/native. Needs ../shared/meshes.
# Usage: scripts/dispatch_ratios.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
meshes=../shared/meshes
cargo build --release --bin widephase >/dev/null 2>&1
RUSTFLAGS="-C target-cpu=x86-64" CARGO_TARGET_DIR=target/backend-x86-64 \
  cargo build --release --bin widephase >/dev/null 2>&1
native=target/release/widephase
base=target/backend-x86-64/release/widephase
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
bench_ns() { # kernel variant -> ns_per_pair
  python3 -c "
import json,sys
for l in sys.stdin:
    d=json.loads(l)
    if d['kernel']=='$1' and d['variant']=='$2': print(d['ns_per_pair']); break"
}
declare -A cmd=(
  [voxelize_bunny_512]="voxelize $meshes/bunny.obj --res 512 --repeat 5 --json|voxelize_best_ms"
  [voxelize_dragon_sub4_512]="voxelize $meshes/dragon_sub4.obj --res 512 --repeat 5 --json|voxelize_best_ms"
  [rays_bunny_1M]="raycast $meshes/bunny.obj --rays 1000000 --json|ms"
  [pairs_100k_boxes]="pairs --random 100000 --json|ms"
)
for w in voxelize_bunny_512 voxelize_dragon_sub4_512 rays_bunny_1M pairs_100k_boxes; do
  IFS='|' read -r args field <<<"${cmd[$w]}"
  bn=1e99; bb=1e99
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    n=$($native $args 2>/dev/null | json "$field")
    # shellcheck disable=SC2086
    b=$($base $args 2>/dev/null | json "$field")
    bn=$(python3 -c "print(min($bn,$n))"); bb=$(python3 -c "print(min($bb,$b))")
  done
  python3 -c "print(f'{\"$w\":28s} native {$bn:9.2f} ms  baseline {$bb:9.2f} ms  ratio {$bb/$bn:5.2f}')"
done
# the contact pipeline and every kernel row of `widephase bench --quick` (ns per pair)
$native bench --quick --json --threads 1 >/tmp/wp_native.jsonl 2>/dev/null
$base bench --quick --json --threads 1 >/tmp/wp_base.jsonl 2>/dev/null
python3 - <<'PY'
import json
def load(p):
    return {(d['kernel'], d['variant']): d['ns_per_pair'] for d in map(json.loads, open(p))}
n, b = load('/tmp/wp_native.jsonl'), load('/tmp/wp_base.jsonl')
worst = []
for k in n:
    if k in b and n[k] > 0 and k[1] != 'scalar':
        worst.append((b[k] / n[k], k))
worst.sort(reverse=True)
for r, (kern, var) in worst:
    print(f"bench {kern:38s} {var:6s} native {n[(kern, var)]:8.2f} ns  baseline {b[(kern, var)]:8.2f} ns  ratio {r:5.2f}")
PY
