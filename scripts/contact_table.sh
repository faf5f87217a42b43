#!/usr/bin/env bash
# Issue 6's contact table in one run: runs the `contact` criterion bench with
# the parry3d peers (benches/contact.rs: the nine pair types at scalar, x4, x8,
# x16 and x16 on two threads, parry3d in the same group, then the pipeline on
# a mixed scene) and prints Markdown tables of ns per pair from criterion's
# target/criterion/<group>/<row>/new/{estimates,benchmark}.json, plus the
# bench's parry agreement lines.
#
# Usage: scripts/contact_table.sh [criterion args...]
#   e.g. scripts/contact_table.sh --warm-up-time 1 --measurement-time 3
# CONTACT_TABLE_STAT=median|mean|slope picks criterion's estimate (default
# median). Criterion's own output goes to stderr; the tables to stdout.
# Only estimates written by this run are used: a row that did not run shows
# "–" (e.g. when criterion args filter it out).
set -euo pipefail
cd "$(dirname "$0")/.."
crit="${CARGO_TARGET_DIR:-target}/criterion"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start="$(date +%s)"
cargo bench --features peers --bench contact -- "$@" 2>&1 | tee "$log" >&2
python3 - "$crit" "$start" "$log" "${CONTACT_TABLE_STAT:-median}" <<'PY'
import json, os, sys

crit, start, log, stat = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]

def ns_per_pair(group, row):
    """criterion's estimate per element, or None if this run did not write it"""
    d = os.path.join(crit, group, row, "new")
    try:
        if os.path.getmtime(os.path.join(d, "estimates.json")) < start - 1:
            return None
        est = json.load(open(os.path.join(d, "estimates.json")))
        bench = json.load(open(os.path.join(d, "benchmark.json")))
    except OSError:
        return None
    e = est.get(stat) or est["mean"]  # slope is null for some sample sets
    return e["point_estimate"] / bench["throughput"]["Elements"]

def fmt(x):
    return "–" if x is None else (f"{x:.1f}" if x < 100 else f"{x:.0f}")

def ratio(peer, ours):
    return "–" if peer is None or ours is None else f"{peer / ours:.1f}×"

pairs = [
    ("sphere–sphere", "contact_sphere_sphere"),
    ("sphere–capsule", "contact_sphere_capsule"),
    ("sphere–box", "contact_sphere_box"),
    ("sphere–triangle", "contact_sphere_triangle"),
    ("capsule–capsule", "contact_capsule_capsule"),
    ("capsule–box", "contact_capsule_box"),
    ("capsule–triangle", "contact_capsule_triangle"),
    ("box–box", "contact_box_box"),
    ("box–triangle", "contact_box_triangle"),
]
print(f"ns per pair (criterion {stat}, 4096 pairs in cache, 2048 in contact, margin 0.05; "
      "ratio = parry3d / x16 on one thread)\n")
print("| pair type | scalar | x4 | x8 | x16 | x16 2 threads | parry3d | ratio to parry3d |")
print("|---|---|---|---|---|---|---|---|")
for label, group in pairs:
    r = {v: ns_per_pair(group, v) for v in ["scalar", "x4", "x8", "x16", "x16_t2", "parry3d"]}
    cells = [fmt(r[v]) for v in ["scalar", "x4", "x8", "x16", "x16_t2", "parry3d"]]
    print(f"| {label} | " + " | ".join(cells) + f" | {ratio(r['parry3d'], r['x16'])} |")
gjk = ns_per_pair("contact_capsule_capsule", "parry3d_contact")
if gjk is not None:
    x16 = ns_per_pair("contact_capsule_capsule", "x16")
    print(f"\ncapsule–capsule through parry3d `query::contact` (GJK/EPA) instead of "
          f"`contact_manifolds`: {fmt(gjk)} ns/pair, {ratio(gjk, x16)} x16.")

p = {v: ns_per_pair("contact_pipeline", v) for v in ["scalar_t1", "x16_t1", "x16_t2"]}
print("\nPipeline, `contacts()` on `workload::contact_scene(4096, 0.05, 71)` "
      "(ns per candidate pair):\n")
print("| scalar, 1 thread | x16, 1 thread | x16, 2 threads |")
print("|---|---|---|")
print("| " + " | ".join(fmt(p[v]) for v in ["scalar_t1", "x16_t1", "x16_t2"]) + " |")

lines = [l.strip() for l in open(log, encoding="utf-8", errors="replace")]
notes = [l for l in lines if " agrees on " in l or l.startswith("contact_pipeline: ")]
if notes:
    print("\nContact agreement with parry3d and the pipeline scene (from the bench):\n")
    for l in notes:
        print(f"- {l}")
PY
