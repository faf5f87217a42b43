#!/usr/bin/env python3
"""Benchmark results as data: record runs into benches/results/, regenerate the
"Current figures" tables of simd-notes.md and draw the plots.

    python3 scripts/figures.py
        Rewrites every block `<!-- figures:NAME:begin -->` … `<!-- figures:NAME:end -->`
        of simd-notes.md (and the voxel peers block `<!-- voxel-peers:begin -->` …)
        from benches/results/NAME.json, and writes the SVG plots to
        benches/results/plots/. Standard library only; the output depends only on
        the data files, so running it twice changes nothing.

    python3 scripts/figures.py record KIND OUTPUT [--name NAME] [--command CMD]
                                            [--machine M] [--date YYYY-MM-DD] [--note TEXT]
        Stores one run as benches/results/NAME.json (NAME defaults to the data set
        the KIND feeds: bench, voxel_peers, rays_embree, contacts), with the
        command, machine, date and commit. OUTPUT is a file or `-` (stdin):
          bench          `widephase bench --json` (one JSON object per line)
          voxel-peers    the stdout of scripts/voxel_peers.py (Markdown table + ratios)
          raycast-peers  the stdout of scripts/raycast_peers.py
          contact-table  the stdout of scripts/contact_table.sh
          table          any Markdown table(s)
        Then run `python3 scripts/figures.py` to regenerate the notes and plots.

Every data file keeps where its figures come from (`command`, `machine`, `date`,
`commit`, `provenance`) and what they mean (`description`, kept when a run is
recorded again), and each table's caption in the notes says so.
"""
import datetime
import html
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benches", "results")
PLOTS = os.path.join(RESULTS, "plots")
NOTES = os.path.join(ROOT, "simd-notes.md")

# The data set (and the notes block) each kind of output updates by default.
DEFAULT_NAMES = {
    "bench": "bench",
    "voxel-peers": "voxel_peers",
    "raycast-peers": "rays_embree",
    "contact-table": "contacts",
}

DEFAULT_COMMANDS = {
    "bench": "cargo build --release && ./target/release/widephase bench --json",
    "voxel-peers": "scripts/voxel_peers.sh",
    "raycast-peers": "scripts/raycast_peers.sh --repeats 3",
    "contact-table": "scripts/contact_table.sh --warm-up-time 1 --measurement-time 3",
}


# ----------------------------------------------------------------------------
# recording


def machine_description():
    """CPU model, core count and widest SIMD of this machine, from /proc/cpuinfo."""
    model, flags = "unknown CPU", ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1]
    except OSError:
        pass
    simd = "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else "SSE2"
    return f"{os.cpu_count()}-core {model}, {simd}"


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def parse_markdown_tables(text):
    """Every Markdown table of `text` as {"columns", "rows"}; bullet lines apart."""
    tables, bullets, cur = [], [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("|") and s.endswith("|"):
            cells = [c.strip() for c in s[1:-1].split("|")]
            if cur is None:
                cur = {"columns": cells, "rows": []}
                tables.append(cur)
            elif all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                continue
            else:
                cur["rows"].append([number(c) for c in cells])
        else:
            cur = None
            if s.startswith("- "):
                bullets.append(s[2:])
    return tables, bullets


def number(cell):
    """A table cell as int or float when it is one, else the text (bold marks dropped)."""
    cell = re.sub(r"^\*\*(.*)\*\*$", r"\1", cell)
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def record(argv):
    import argparse

    p = argparse.ArgumentParser(prog="figures.py record")
    p.add_argument("kind", choices=["bench", "voxel-peers", "raycast-peers", "contact-table", "table"])
    p.add_argument("output", help="file with the run's output, or - for stdin")
    p.add_argument("--name", help="data set name (default: bench, voxel_peers, rays_embree, contacts)")
    p.add_argument("--title")
    p.add_argument("--command", help="the command that produced OUTPUT")
    p.add_argument("--machine", default=None)
    p.add_argument("--date", default=None, help="date of the run, YYYY-MM-DD (default: today)")
    p.add_argument("--note", action="append", default=[], help="a line printed under the table")
    a = p.parse_args(argv)
    text = sys.stdin.read() if a.output == "-" else open(a.output, encoding="utf-8").read()
    name = (a.name or DEFAULT_NAMES.get(a.kind, a.kind)).replace("-", "_")
    data = {
        "name": name,
        "kind": a.kind,
        "title": a.title or name.replace("_", " "),
        "command": a.command or DEFAULT_COMMANDS.get(a.kind, ""),
        "machine": a.machine or machine_description(),
        "date": a.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "commit": git_commit(),
        "provenance": "recorded by scripts/figures.py record",
        "notes": a.note,
    }
    if a.kind == "bench":
        data["rows"] = [json.loads(l) for l in text.splitlines() if l.strip().startswith("{")]
        if not data["rows"]:
            sys.exit("no JSON rows in the input (run `widephase bench --json`)")
    else:
        data["tables"], data["bullets"] = parse_markdown_tables(text)
        if not data["tables"]:
            sys.exit("no Markdown table in the input")
    old = os.path.join(RESULTS, name + ".json")
    if os.path.exists(old):  # keep the hand-written title and notes of an existing data set
        prev = json.load(open(old, encoding="utf-8"))
        if not a.title:
            data["title"] = prev.get("title", data["title"])
        # what the table means stays; where its numbers come from is this run
        data["description"] = prev.get("description", "")
    write_json(old, data)
    print(f"wrote {os.path.relpath(old, ROOT)}; now run scripts/figures.py", file=sys.stderr)


def write_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


# ----------------------------------------------------------------------------
# tables


def caption(d):
    c = f"Command: `{d['command']}`. Machine: {d['machine']}. Date: {d['date']}"
    if d.get("commit"):
        c += f", commit `{d['commit']}`"
    c += "."
    if d.get("provenance") and not d["provenance"].startswith("recorded by"):
        c += f" Source: {d['provenance']}"
    if d.get("description"):
        c += f" {d['description']}"
    return c


def md_table(columns, rows):
    out = ["| " + " | ".join(str(c) for c in columns) + " |",
           "|" + "|".join("---:" if i else "---" for i in range(len(columns))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt_cell(c) for c in r) + " |")
    return "\n".join(out)


def fmt_cell(c):
    """A table cell as recorded (floats in their shortest round-trip form)."""
    return repr(c) if isinstance(c, float) else str(c)


def sig3(x):
    """A measured rate to three significant digits (no more than it carries)."""
    if x == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(x))))) if abs(x) < 100 else 0
    return f"{x:.{min(digits, 3)}f}"


VARIANTS = ["scalar", "x4", "x8", "x16", "par"]


def bench_kernels(d):
    """Rows of a `widephase bench --json` run grouped by kernel, in run order."""
    kernels = {}
    for r in d["rows"]:
        kernels.setdefault(r["kernel"], {})[r["variant"]] = r
    return kernels


def render_bench(d):
    kernels = bench_kernels(d)
    par_threads = max((r["threads"] for r in d["rows"] if r["variant"] == "par"), default=2)
    cols = ["kernel/tier", "scalar", "x4", "x8", "x16", f"par ({par_threads} thr)",
            "roofline 1 thr", f"roofline {par_threads} thr", "par % of roofline", "x16 / scalar"]
    streaming, in_cache = [], []
    for k, v in kernels.items():
        m = [v[x]["items_per_s"] / 1e6 if x in v else None for x in VARIANTS]
        roof1 = next((v[x]["roofline_items_per_s"] for x in VARIANTS[:4]
                      if x in v and v[x]["roofline_items_per_s"]), None)
        roofp = v["par"]["roofline_items_per_s"] if "par" in v else None
        row = [k] + [sig3(x) if x is not None else "–" for x in m]
        if roof1:
            row += [sig3(roof1 / 1e6), sig3(roofp / 1e6) if roofp else "–",
                    f"{100 * v['par']['items_per_s'] / roofp:.0f} %" if roofp else "–"]
        else:
            row += ["in cache", "in cache", "–"]
        row.append(f"{m[3] / m[0]:.1f}×" if m[0] and m[3] else "–")
        (streaming if roof1 else in_cache).append(row)
    parts = [caption(d), "",
             "Million items (pairs, rays, queries) per second; *roofline* = the run's measured "
             "streaming read bandwidth at that thread count ÷ the bytes the kernel must read per "
             "item. Streaming rows read their inputs from memory (far larger than the last-level "
             "cache):", "", md_table(cols, streaming)]
    if in_cache:
        parts += ["", "In-cache rows (inputs stay in L1/L2: the compute speedup of each width; "
                  "`contact_*` rows are 4096 pairs of each type):", "", md_table(cols, in_cache)]
    if d.get("notes"):
        parts += [""] + [n if n.startswith("- ") else f"- {n}" for n in d["notes"]]
    return "\n".join(parts)


def render_tables(d):
    parts = [caption(d)]
    for t in d.get("tables", []):
        parts += ["", md_table(t["columns"], t["rows"])]
    if d.get("bullets"):
        parts += [""] + [f"- {b}" for b in d["bullets"]]
    if d.get("notes"):
        parts += [""] + list(d["notes"])
    return "\n".join(parts)


def render_voxel_peers(d):
    """The block scripts/voxel_peers.py --write-notes used to write, from data."""
    return render_tables(d)


RENDER = {"bench": render_bench, "voxel-peers": render_voxel_peers}


def regenerate_notes(datasets):
    text = open(NOTES, encoding="utf-8").read()
    missing = []
    for name, d in datasets.items():
        if name == "voxel_peers":
            begin, end = "<!-- voxel-peers:begin -->", "<!-- voxel-peers:end -->"
        else:
            begin, end = f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"
        if begin not in text or end not in text:
            missing.append(name)
            continue
        body = RENDER.get(d.get("kind"), render_tables)(d)
        a, b = text.index(begin) + len(begin), text.index(end)
        text = text[:a] + "\n" + body.rstrip() + "\n" + text[b:]
    for m in re.finditer(r"<!-- figures:([a-z0-9_]+):begin -->", text):
        if m.group(1) not in datasets:
            print(f"note: simd-notes.md has a block for {m.group(1)} but no data file", file=sys.stderr)
    with open(NOTES + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(NOTES + ".tmp", NOTES)
    for m in missing:
        print(f"note: no block <!-- figures:{m}:begin/end --> in simd-notes.md; "
              f"{m}.json is only plotted", file=sys.stderr)


# ----------------------------------------------------------------------------
# SVG plots (hand-written, standard library only)

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f", "#edc948"]


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.items = w, h, []

    def rect(self, x, y, w, h, fill, title=None):
        t = f"<title>{html.escape(title)}</title>" if title else ""
        self.items.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" '
                          f'height="{max(h, 0):.1f}" fill="{fill}">{t}</rect>')

    def line(self, x1, y1, x2, y2, stroke="#333", width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                          f'stroke="{stroke}" stroke-width="{width}"{d}/>')

    def text(self, x, y, s, size=11, anchor="start", weight="normal", fill="#222"):
        self.items.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                          f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">'
                          f"{html.escape(str(s))}</text>")

    def save(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        body = "\n".join(self.items)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
                    f'viewBox="0 0 {self.w} {self.h}" font-family="sans-serif">\n'
                    f'<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n')


def nice_max(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def plot_kernels(d, path):
    """Per kernel: items/s by width (1 thread) and on all threads, against the rooflines."""
    kernels = bench_kernels(d)
    names = list(kernels)
    cols, pw, ph = 4, 230, 170
    rows = math.ceil(len(names) / cols)
    svg = Svg(cols * pw + 20, rows * ph + 70)
    svg.text(10, 20, "widephase bench: million items/s by width and threads, against the measured "
             "roofline (dashed)", size=13, weight="bold")
    svg.text(10, 38, caption(d)[:170], size=9, fill="#555")
    for i, name in enumerate(names):
        v = kernels[name]
        ox, oy = 10 + (i % cols) * pw, 50 + (i // cols) * ph
        x0, y0, w, h = ox + 38, oy + 22, pw - 50, ph - 55
        vals = [v[x]["items_per_s"] / 1e6 if x in v else 0 for x in VARIANTS]
        roof1 = next((v[x]["roofline_items_per_s"] for x in VARIANTS[:4]
                      if x in v and v[x]["roofline_items_per_s"]), None)
        roofp = v["par"]["roofline_items_per_s"] if "par" in v else None
        top = nice_max(max(vals + [(roof1 or 0) / 1e6, (roofp or 0) / 1e6]) * 1.05)
        svg.text(ox + 4, oy + 12, name, size=10, weight="bold")
        svg.line(x0, y0 + h, x0 + w, y0 + h)
        svg.line(x0, y0, x0, y0 + h)
        for t in (0, 0.5, 1):
            yy = y0 + h - t * h
            svg.text(x0 - 3, yy + 3, sig3(top * t), size=8, anchor="end")
        bw = w / len(VARIANTS)
        for j, (var, val) in enumerate(zip(VARIANTS, vals)):
            bh = h * val / top
            thr = v[var]["threads"] if var in v else 1
            svg.rect(x0 + j * bw + 3, y0 + h - bh, bw - 6, bh, PALETTE[0] if var != "par" else PALETTE[1],
                     f"{name} {var} ({thr} thr): {val:.1f} M/s")
            svg.text(x0 + j * bw + bw / 2, y0 + h + 11, var, size=8, anchor="middle")
        if roof1:
            yy = y0 + h - h * roof1 / 1e6 / top
            svg.line(x0, yy, x0 + 4 * bw, yy, stroke=PALETTE[3], width=1.5, dash="4,3")
        if roofp:
            yy = y0 + h - h * roofp / 1e6 / top
            svg.line(x0 + 4 * bw, yy, x0 + w, yy, stroke=PALETTE[3], width=1.5, dash="4,3")
        if not roof1:
            svg.text(x0 + w, y0 + 8, "in cache", size=8, anchor="end", fill="#777")
    svg.save(path)


def plot_hbars(title, sub, groups, series, unit, path, log=False):
    """Horizontal grouped bars: groups = [(label, {series: value})]."""
    bar_h, gap = 11, 10
    height = 70 + sum(len([s for s in series if s in g[1]]) * bar_h + gap for g in groups) + 30
    svg = Svg(760, height)
    svg.text(10, 20, title, size=13, weight="bold")
    svg.text(10, 36, sub[:150], size=9, fill="#555")
    x0, w = 210, 440
    vals = [v for _, g in groups for v in g.values() if v and v > 0]
    if log:
        lo = 10 ** math.floor(math.log10(min(vals)))
        hi = 10 ** math.ceil(math.log10(max(vals)))
        scale = lambda v: w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        ticks = [10 ** e for e in range(int(math.log10(lo)), int(math.log10(hi)) + 1)]
    else:
        hi = nice_max(max(vals))
        scale = lambda v: w * v / hi
        ticks = [hi * t / 4 for t in range(5)]
    y = 56
    for label, g in groups:
        present = [s for s in series if s in g]
        svg.text(x0 - 8, y + len(present) * bar_h / 2 + 4, label, size=10, anchor="end")
        for s in present:
            v = g[s]
            k = series.index(s)
            svg.rect(x0, y, scale(v) if v > 0 else 0, bar_h - 2, PALETTE[k % len(PALETTE)], f"{label} {s}: {v}")
            svg.text(x0 + (scale(v) if v > 0 else 0) + 4, y + bar_h - 3, sig3(v), size=8)
            y += bar_h
        y += gap
    svg.line(x0, 50, x0, y)
    for t in ticks:
        svg.line(x0 + scale(t), y, x0 + scale(t), y + 4)
        svg.text(x0 + scale(t), y + 14, sig3(t), size=8, anchor="middle")
    svg.text(x0 + w / 2, y + 26, unit + (" (log scale)" if log else ""), size=9, anchor="middle")
    lx = 10
    for k, s in enumerate(series):
        svg.rect(lx, height - 14, 10, 8, PALETTE[k % len(PALETTE)])
        svg.text(lx + 14, height - 7, s, size=9)
        lx += 14 + 6.5 * len(s) + 12
    svg.save(path)


def table_dicts(d, i=0):
    t = d["tables"][i]
    return [dict(zip(t["columns"], r)) for r in t["rows"]]


def plot_voxel_peers(d, path):
    groups, series = {}, []
    for r in table_dicts(d):
        tool = r["tool"].split(" (")[0]
        if tool not in series:
            series.append(tool)
        groups.setdefault(f"{r['mesh']} {r['RES']}³", {})[tool] = r["ms"]
    plot_hbars("Voxelizer against its peers: ms per call (less is better)", caption(d),
               list(groups.items()), series, "ms", path, log=True)


def plot_rays(d, bvh, path):
    groups, series = {}, ["widephase", "Embree (open3d)", "parry3d", "obvhs"]
    for r in table_dicts(d):
        g = groups.setdefault(f"{r['mesh']} {r['threads']} thr", {})
        g["widephase"] = r["widephase Mrays/s"]
        g["Embree (open3d)"] = r["Embree (open3d) Mrays/s"]
    if bvh:
        for r in table_dicts(bvh):
            g = groups.setdefault(f"{r['mesh']} {r['threads']} thr (criterion)", {})
            g["widephase"] = r["widephase Mrays/s"]
            g["parry3d"] = r["parry3d Mrays/s"]
            g["obvhs"] = r["obvhs Mrays/s"]
    plot_hbars("Ray casting against its peers: million rays/s (more is better)", caption(d),
               list(groups.items()), series, "Mrays/s", path)


def plot_contacts(d, path):
    groups = {}
    for r in table_dicts(d):
        groups[r["pair type"]] = {"widephase x16": r["x16"], "widephase scalar": r["scalar"],
                                  "parry3d": r["parry3d"]}
    plot_hbars("Contact manifolds against parry3d: ns per pair, one thread (less is better)",
               caption(d), list(groups.items()), ["widephase x16", "widephase scalar", "parry3d"],
               "ns per pair", path, log=True)


def draw_plots(datasets):
    if "bench" in datasets:
        plot_kernels(datasets["bench"], os.path.join(PLOTS, "kernels.svg"))
    if "voxel_peers" in datasets:
        plot_voxel_peers(datasets["voxel_peers"], os.path.join(PLOTS, "voxel_peers.svg"))
    if "rays_embree" in datasets:
        plot_rays(datasets["rays_embree"], datasets.get("bvh_peers"), os.path.join(PLOTS, "rays.svg"))
    if "contacts" in datasets:
        plot_contacts(datasets["contacts"], os.path.join(PLOTS, "contacts.svg"))


def load_datasets():
    out = {}
    for f in sorted(os.listdir(RESULTS)):
        if f.endswith(".json"):
            d = json.load(open(os.path.join(RESULTS, f), encoding="utf-8"))
            out[d["name"]] = d
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "record":
        record(sys.argv[2:])
        return
    if len(sys.argv) > 1:
        sys.exit(f"unknown arguments {sys.argv[1:]}; see --help")
    datasets = load_datasets()
    regenerate_notes(datasets)
    draw_plots(datasets)
    print(f"regenerated {len(datasets)} data sets into simd-notes.md and {os.path.relpath(PLOTS, ROOT)}/",
          file=sys.stderr)


if __name__ == "__main__":
    main()
