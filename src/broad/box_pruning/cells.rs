//! The cells of the y/z grid ([`super::grid`]): each box is copied, in x
//! order, into every cell its y/z range touches; a pair is kept only in its
//! home cell (on each axis, the cell where one of the two boxes starts), so it
//! comes out once (PhysX's "multi box pruning"). The cells' build (one thread
//! or on the rayon pool) and the scan inside a cell, with the home test folded
//! into the lane compares.

use super::grid::{Grid, Span};
use super::keys::{YzStats, PAD};
use super::sweep::pair_key;
use crate::lane::{Lane, LaneMask};
use crate::mem::resize_advised;
use crate::shapes::Aabb;
use crate::simd::LaneFn;
use core::hint::select_unpredictable;
use rayon::prelude::*;

/// Boxes copied into the cells of a [`Grid`], each cell's run in x order and
/// followed by [`PAD`] sentinels. An entry is "home" on y in its cell if
/// its box starts in the cell's row (its first y cell is the cell's), i.e.
/// iff its `min.y >= first[c][0]` ([`Grid::first_of`]); likewise on z.
///
/// The six float arrays (`min_x, max_x, min_y, max_y, min_z, max_z`, in
/// that order) are consecutive stretches of `stride` entries of one
/// allocation, so that it is large enough for huge pages
/// ([`resize_advised`]): nine separate arrays (0.7 MB each at 100k boxes)
/// were faulted in page by page on every one-shot call that got fresh memory.
#[derive(Clone, Debug, Default)]
pub(super) struct Cells {
    pub(super) f: Vec<f32>,
    pub(super) stride: usize,
    pub(super) id: Vec<u32>,
    /// Cell `c` holds entries `start[c]..end[c]`.
    pub(super) start: Vec<usize>,
    pub(super) end: Vec<usize>,
    /// The least `min.y` and `min.z` of a box that starts in cell `c`'s row
    /// and column.
    pub(super) first: Vec<[f32; 2]>,
}

/// Scratch of [`build_cells`], kept between calls by a [`BoxPruner`].
#[derive(Clone, Debug, Default)]
pub(super) struct CellScratch {
    pub(super) spans: Vec<Span>,
    pub(super) count: Vec<u32>,
    pub(super) fill: Vec<u32>,
    pub(super) slot: Vec<u32>,
    /// One per contiguous range of the sorted keys ([`build_cells_par`]).
    pub(super) ranges: Vec<RangeScratch>,
}

/// The share of one contiguous range of the sorted keys in
/// [`build_cells_par`]: its entries per cell, then where its run of each
/// cell ends in `slot`, and its box indices cell by cell.
#[derive(Clone, Debug, Default)]
pub(super) struct RangeScratch {
    pub(super) count: Vec<u32>,
    pub(super) fill: Vec<u32>,
    pub(super) slot: Vec<u32>,
}

/// `count[c]` = the number of boxes of `keys` whose `spans` touch cell `c` of
/// a `g × g` grid. A 2-D difference array: each box adds +1 at its first
/// cell and at one past its last on both axes, -1 at the two mixed corners,
/// and prefix sums over rows and columns give the counts. Four increments
/// to four distinct cells per box whatever its size, with no branch (a loop
/// over each box's cells mispredicted on about every other box).
pub(super) fn count_cells(keys: &[u64], spans: &[Span], g: usize, count: &mut Vec<u32>) {
    let w = g + 1;
    count.clear();
    count.resize(w * w, 0);
    for &key in keys {
        let sp = spans[key as u32 as usize];
        let (ys, zs) = (sp.y(), sp.z());
        let (y0, y1, z0, z1) = (ys.start * w, ys.end * w, zs.start, zs.end);
        count[y0 + z0] = count[y0 + z0].wrapping_add(1);
        count[y0 + z1] = count[y0 + z1].wrapping_sub(1);
        count[y1 + z0] = count[y1 + z0].wrapping_sub(1);
        count[y1 + z1] = count[y1 + z1].wrapping_add(1);
    }
    // Prefix sums along z in each row, then along y, keeping the g × g
    // corner, packed to rows of g.
    for row in count.chunks_exact_mut(w) {
        let mut s = 0u32;
        for c in row {
            s = s.wrapping_add(*c);
            *c = s;
        }
    }
    for y in 1..g {
        for z in 0..g {
            count[y * w + z] = count[y * w + z].wrapping_add(count[(y - 1) * w + z]);
        }
    }
    for y in 0..g {
        for z in 0..g {
            count[y * g + z] = count[y * w + z];
        }
    }
    count.truncate(g * g);
}

/// Chooses the grid and copies the boxes (`keys` from [`sorted_keys`], with
/// their statistics `st`) into `cells`. Cells are about 3.5 times the mean y/z
/// extent (2×, the earlier choice, measured slower at 10k and 100k: more
/// copies and sentinels than the shorter scans save), at most `sqrt(n/16)`
/// per axis and 256; halved while boxes spanning several cells would make
/// more than `3n` entries. `false` (and `cells` untouched) when one cell
/// would do: then plain box pruning over the sorted boxes is the same and
/// cheaper.
///
/// Count the entries per cell, place each box's index in its cells in x
/// order (a counting sort, so each cell's run stays sorted), then gather the
/// boxes cell by cell into padded SoA arrays: each SoA array is written once,
/// front to back, and none is zero-filled first.
pub(super) fn build_cells(
    boxes: &[Aabb],
    keys: &[u64],
    st: &YzStats,
    sc: &mut CellScratch,
    cells: &mut Cells,
) -> bool {
    let n = keys.len();
    if n < 64 {
        return false;
    }
    let mut g = grid_side(n, st);
    // Spans by box index, computed in input order (sequential reads: at 1M
    // boxes a pass in x order, a random gather, ran at memory latency).
    let CellScratch { spans, count, fill, slot, .. } = sc;
    let (total, grid) = loop {
        if g <= 1 {
            return false;
        }
        let grid = Grid::new(st.lo, st.hi, g);
        spans.clear();
        spans.extend(boxes.iter().map(|b| grid.span(b)));
        count_cells(keys, spans, g, count);
        let total: usize = count.iter().map(|&c| c as usize).sum();
        if total <= 3 * n {
            break (total, grid);
        }
        g /= 2;
    };
    if total >= u32::MAX as usize {
        return false; // entry offsets are u32 (more than 1.4e9 boxes)
    }
    let n_cells = g * g;
    // fill[c] = where cell c's next index goes. Padded by g + 1 unused
    // entries so that the fast path below may name the cells right of and
    // below any cell.
    cell_offsets(count, g, fill);
    // The box indices of each cell, cell by cell, each cell's in x order;
    // slot[total] takes the writes of the fast path's unused cells.
    slot.clear();
    slot.resize(total + 1, 0);
    scatter_slots(keys, spans, g, fill, slot);
    let len = total + n_cells * PAD;
    let Cells { f, stride, id: ids, start, end, first } = cells;
    // Sized once and written by index (a push per array per entry cost more
    // than the gather itself: ~1 M instructions per call at 10k boxes).
    *stride = len;
    resize_advised(f, 6 * len, 0.0);
    ids.resize(len, 0);
    let mut parts = f.chunks_exact_mut(len);
    let [min_x, max_x, min_y, max_y, min_z, max_z] =
        core::array::from_fn(|_| parts.next().expect("6 arrays"));
    start.clear();
    end.clear();
    // Home by threshold per row and column, not by two more arrays of
    // per-entry flags: those were two more stores per entry in the gather
    // below (its cost is the stores) and two more streams for the scan.
    grid.home_thresholds(g, first);
    let (mut e, mut o) = (0, 0);
    for &cnt in count.iter() {
        let cnt = cnt as usize;
        let src = &slot[e..e + cnt];
        let (x0, x1) = (&mut min_x[o..o + cnt], &mut max_x[o..o + cnt]);
        let (y0, y1) = (&mut min_y[o..o + cnt], &mut max_y[o..o + cnt]);
        let (z0, z1) = (&mut min_z[o..o + cnt], &mut max_z[o..o + cnt]);
        let id = &mut ids[o..o + cnt];
        for k in 0..cnt {
            let i = src[k];
            let b = &boxes[i as usize];
            (x0[k], x1[k]) = (b.min.x, b.max.x);
            (y0[k], y1[k]) = (b.min.y, b.max.y);
            (z0[k], z1[k]) = (b.min.z, b.max.z);
            id[k] = i;
        }
        start.push(o);
        end.push(o + cnt);
        e += cnt;
        o += cnt;
        pad_cell(
            [&mut *min_x, &mut *max_x, &mut *min_y, &mut *max_y, &mut *min_z, &mut *max_z],
            ids,
            o,
        );
        o += PAD;
    }
    true
}

/// `fill[c]` = the sum of `count` before cell `c` (where cell `c`'s first
/// slot goes), padded by `g + 1` unused entries so that [`scatter_slots`]'
/// fast path may name the cells right of and below any cell; returns the
/// total.
pub(super) fn cell_offsets(count: &[u32], g: usize, fill: &mut Vec<u32>) -> u32 {
    fill.clear();
    let mut at = 0;
    for &c in count {
        fill.push(at);
        at += c;
    }
    fill.resize(count.len() + g + 1, 0);
    at
}

/// Writes the [`PAD`] sentinels of a cell at entry `o` of the six float
/// arrays (`min_x, max_x, min_y, max_y, min_z, max_z`) and of `ids`: min >
/// max on every axis and min.x = +inf, so no scan passes them.
#[inline]
pub(super) fn pad_cell(arrays: [&mut [f32]; 6], ids: &mut [u32], o: usize) {
    let pad = o..o + PAD;
    for (a, v) in arrays.into_iter().enumerate() {
        v[pad.clone()].fill(if a % 2 == 0 { f32::INFINITY } else { f32::NEG_INFINITY });
    }
    ids[pad].fill(0);
}

/// Cells per axis of the grid of [`build_cells`] before halving: about 3.5
/// mean y/z extents per cell, at most `sqrt(n/16)` and 256.
#[inline(always)]
pub(super) fn grid_side(n: usize, st: &YzStats) -> usize {
    let mean = ((st.extent[0] + st.extent[1]) / (2 * n) as f64).max(f64::MIN_POSITIVE);
    let span = ((st.hi[0] - st.lo[0]) as f64).max((st.hi[1] - st.lo[1]) as f64);
    (span / (3.5 * mean)).min(((n / 16) as f64).sqrt()).clamp(1.0, 256.0) as usize
}

/// Writes the index of each box of `keys` (in order) to `slot[fill[c]]` for
/// each cell `c` it touches, advancing `fill[c]`. `fill` holds `g + 1`
/// unused entries past the `g × g` cells and the last entry of `slot` takes
/// the writes of the fast path's unused cells.
#[inline(always)]
pub(super) fn scatter_slots(
    keys: &[u64],
    spans: &[Span],
    g: usize,
    fill: &mut [u32],
    slot: &mut [u32],
) {
    let trash = (slot.len() - 1) as u32;
    for &key in keys {
        let id = key as u32;
        let sp = spans[id as usize];
        let (ys, zs) = (sp.y(), sp.z());
        let c = ys.start * g + zs.start;
        let (dy, dz) = (ys.len() - 1, zs.len() - 1);
        if dy <= 1 && dz <= 1 {
            // At most 2 × 2 cells (every box when cells are wider than the
            // boxes): the four candidate cells, each written whether the box
            // touches it or not, the unused ones into `trash`. Branch-free:
            // the loops below mispredicted on about every other box.
            for (k, on) in [(0, true), (1, dz == 1), (g, dy == 1), (g + 1, dy + dz == 2)] {
                let f = fill[c + k];
                slot[(if on { f } else { trash }) as usize] = id;
                fill[c + k] = f + on as u32;
            }
        } else {
            for cy in ys {
                for cz in zs.clone() {
                    let f = &mut fill[cy * g + cz];
                    slot[*f as usize] = id;
                    *f += 1;
                }
            }
        }
    }
}

/// Boxes per rayon task of the span pass of [`build_cells_par`].
pub(super) const SPAN_CHUNK: usize = 1 << 14;

/// [`build_cells`] on the rayon pool (the same cells, entry for entry), for
/// more than one thread: a parallel stable counting sort. The spans are
/// computed in parallel over the boxes; the sorted keys are cut into one
/// contiguous range per thread, each range counts its entries per cell
/// ([`count_cells`]) and scatters its box indices by cell into its own
/// slot array ([`scatter_slots`]); the gather into the SoA arrays runs in
/// parallel over groups of consecutive cells (disjoint output stretches,
/// split off with `split_at_mut`), each cell taking range 0's run, then
/// range 1's, ..., which is x order since the ranges are.
pub(super) fn build_cells_par(
    boxes: &[Aabb],
    keys: &[u64],
    st: &YzStats,
    sc: &mut CellScratch,
    cells: &mut Cells,
) -> bool {
    let n = keys.len();
    if n < 64 {
        return false;
    }
    let threads = rayon::current_num_threads().max(1);
    let mut g = grid_side(n, st);
    let CellScratch { spans, count, ranges, .. } = sc;
    ranges.resize_with(threads, Default::default);
    let per = n.div_ceil(threads);
    let range_keys = |r: usize| &keys[(r * per).min(n)..((r + 1) * per).min(n)];
    let (total, grid) = loop {
        if g <= 1 {
            return false;
        }
        let grid = Grid::new(st.lo, st.hi, g);
        spans.resize(boxes.len(), Span(0));
        spans.par_chunks_mut(SPAN_CHUNK).zip(boxes.par_chunks(SPAN_CHUNK)).for_each(|(s, b)| {
            for (s, b) in s.iter_mut().zip(b) {
                *s = grid.span(b);
            }
        });
        let sp = &spans[..];
        ranges.par_iter_mut().enumerate().for_each(|(r, rs)| {
            count_cells(range_keys(r), sp, g, &mut rs.count);
        });
        let total: usize = ranges.iter().flat_map(|rs| rs.count.iter()).map(|&c| c as usize).sum();
        if total <= 3 * n {
            break (total, grid);
        }
        g /= 2;
    };
    if total >= u32::MAX as usize {
        return false;
    }
    let n_cells = g * g;
    count.clear();
    count.extend((0..n_cells).map(|c| ranges.iter().map(|rs| rs.count[c]).sum::<u32>()));
    let sp = &spans[..];
    ranges.par_iter_mut().enumerate().for_each(|(r, rs)| {
        let RangeScratch { count, fill, slot } = rs;
        let at = cell_offsets(count, g, fill);
        slot.clear();
        slot.resize(at as usize + 1, 0);
        scatter_slots(range_keys(r), sp, g, fill, slot);
        // Now fill[c] is the end of cell c's run in slot.
    });
    let len = total + n_cells * PAD;
    let Cells { f, stride, id: ids, start, end, first } = cells;
    *stride = len;
    resize_advised(f, 6 * len, 0.0);
    ids.resize(len, 0);
    start.clear();
    end.clear();
    let mut o = 0;
    for &cnt in count.iter() {
        start.push(o);
        end.push(o + cnt as usize);
        o += cnt as usize + PAD;
    }
    grid.home_thresholds(g, first);
    // Groups of consecutive cells of about equal stretches, several per
    // thread, each with its own slices of the seven arrays.
    let target = len.div_ceil(4 * threads).max(1);
    let mut arrs: [&mut [f32]; 6] = {
        let mut parts = f.chunks_exact_mut(len);
        core::array::from_fn(|_| parts.next().expect("6 arrays"))
    };
    let mut id_rest: &mut [u32] = &mut ids[..];
    let mut jobs = Vec::with_capacity(4 * threads + 1);
    let mut c0 = 0;
    for (c, &e) in end.iter().enumerate() {
        let stop = e + PAD;
        if stop - start[c0] >= target || c + 1 == n_cells {
            let glen = stop - start[c0];
            let heads: [&mut [f32]; 6] = core::array::from_fn(|a| {
                let (h, t) = core::mem::take(&mut arrs[a]).split_at_mut(glen);
                arrs[a] = t;
                h
            });
            let (h, t) = core::mem::take(&mut id_rest).split_at_mut(glen);
            id_rest = t;
            jobs.push((c0..c + 1, heads, h));
            c0 = c + 1;
        }
    }
    let (start, ranges) = (&start[..], &ranges[..]);
    jobs.into_par_iter().for_each(|(cs, heads, ids)| {
        let [min_x, max_x, min_y, max_y, min_z, max_z] = heads;
        let base = start[cs.start];
        for c in cs {
            let mut o = start[c] - base;
            for rs in ranges {
                let e = rs.fill[c] as usize;
                for &i in &rs.slot[e - rs.count[c] as usize..e] {
                    let b = &boxes[i as usize];
                    (min_x[o], max_x[o]) = (b.min.x, b.max.x);
                    (min_y[o], max_y[o]) = (b.min.y, b.max.y);
                    (min_z[o], max_z[o]) = (b.min.z, b.max.z);
                    ids[o] = i;
                    o += 1;
                }
            }
            pad_cell(
                [&mut *min_x, &mut *max_x, &mut *min_y, &mut *max_y, &mut *min_z, &mut *max_z],
                ids,
                o,
            );
        }
    });
    true
}

/// The slices of one cell of [`Cells`] (its entries and the [`PAD`]
/// sentinels after them).
pub(super) struct CellView<'a> {
    min_x: &'a [f32],
    max_x: &'a [f32],
    min_y: &'a [f32],
    max_y: &'a [f32],
    min_z: &'a [f32],
    max_z: &'a [f32],
    id: &'a [u32],
    /// The least `min.y` and `min.z` of a box starting in the cell's row and
    /// column ([`Cells::first`]).
    first: [f32; 2],
    /// Number of entries (without the sentinels).
    len: usize,
}

impl<'a> CellView<'a> {
    #[inline(always)]
    fn of(cells: &'a Cells, c: usize) -> Self {
        let (s, e) = (cells.start[c], cells.end[c]);
        let lim = e + PAD;
        // Array `a` of the six in `cells.f`, this cell's stretch.
        let arr = |a: usize| &cells.f[a * cells.stride + s..a * cells.stride + lim];
        CellView {
            min_x: arr(0),
            max_x: arr(1),
            min_y: arr(2),
            max_y: arr(3),
            min_z: arr(4),
            max_z: arr(5),
            id: &cells.id[s..lim],
            first: cells.first[c],
            len: e - s,
        }
    }

    /// Box pruning of entry `i` against the later entries of the cell,
    /// calling `emit(k, true)` for each entry `k` whose pair with `i` the cell
    /// owns, and `emit(k, false)` for some entries `k` it does not own (at
    /// most two per lane vector), which the sink must ignore.
    ///
    /// A pair belongs to the cell iff, on each axis, one of the two boxes
    /// starts in it (is "home"). That test is folded into the overlap
    /// compares, so a duplicate costs no branch: on y, if probe `i` is home
    /// the test is the plain `min_y[k] <= max_y[i] && min_y[i] <= max_y[k]`;
    /// if it is not, box `k` must be home, and then `cell(min_y[i]) <
    /// cell(min_y[k])` gives `min_y[i] < min_y[k] <= max_y[k]` (the cell
    /// function is monotone), so the second half holds and is replaced by
    /// "`k` is home": `first_y <= min_y[k]`. Same on z. The probe picks the
    /// array and the value it compares against once.
    #[inline(always)]
    fn probe<L: Lane>(&self, i: usize, mut emit: impl FnMut(usize, bool)) {
        let CellView { min_x, max_x, min_y, max_y, min_z, max_z, first, .. } = *self;
        let [first_y, first_z] = first;
        // if i is home: min_y[i] <= max_y[k]   else: first_y <= min_y[k]
        // About a quarter of the probes are not home on an axis, in no
        // pattern: as a plain `if` these compiled to branches that
        // mispredicted; `select_unpredictable` asks for conditional moves.
        let home = |m: f32, f: f32| m >= f;
        let (ty, vy) =
            select_unpredictable(home(min_y[i], first_y), (max_y, min_y[i]), (min_y, first_y));
        let (tz, vz) =
            select_unpredictable(home(min_z[i], first_z), (max_z, min_z[i]), (min_z, first_z));
        let (px, py, pz) = (L::splat(max_x[i]), L::splat(max_y[i]), L::splat(max_z[i]));
        let (vy, vz) = (L::splat(vy), L::splat(vz));
        let mut j = i + 1;
        loop {
            // if (min_x[j] > max_x[i]) break;   -- per lane, a prefix of the lanes passes
            let in_x = L::load(&min_x[j..]).le(px);
            if in_x.none() {
                break;
            }
            let hit = in_x
                & L::load(&min_y[j..]).le(py)
                & vy.le(L::load(&ty[j..]))
                & L::load(&min_z[j..]).le(pz)
                & vz.le(L::load(&tz[j..]));
            let mut bits = hit.bits();
            // The first two hits (for a missing one, lane W - 1, inside the
            // loaded vector) go out with a flag instead of a branch: most
            // vectors hold zero to two hits, and the loop over the mask bits
            // mispredicted on about every other probe. One flagged hit cut
            // Terdiman 10k by 7 %, a second one 100k by another 5 %.
            for _ in 0..2 {
                emit(j + (bits | 1 << (L::WIDTH - 1)).trailing_zeros() as usize, bits != 0);
                bits &= bits.wrapping_sub(1);
            }
            while bits != 0 {
                emit(j + bits.trailing_zeros() as usize, true);
                bits &= bits - 1;
            }
            if !in_x.all() {
                break;
            }
            j += L::WIDTH;
        }
    }
}

/// Box pruning inside cell `c`, keeping the pairs the cell owns (see
/// [`CellView::probe`]): writes the keys `(lo << 32) | hi` to
/// `keys[w..]` (growing `keys` once per probe as needed, not per pair) and
/// returns the new `w`.
#[inline(always)]
pub(super) fn scan_cell_into<L: Lane>(
    cells: &Cells,
    c: usize,
    keys: &mut Vec<u64>,
    mut w: usize,
) -> usize {
    let v = CellView::of(cells, c);
    for i in 0..v.len {
        // Entry i pairs with at most the v.len - i - 1 entries after it.
        let need = w + v.len - i;
        if need > keys.len() {
            let grown = (2 * keys.len()).max(need).max(1024);
            resize_advised(keys, grown, 0);
        }
        let buf = keys.as_mut_slice();
        let a = v.id[i];
        // A pair the cell does not own is written past the end (room is
        // there: it comes before this probe's last pair).
        v.probe::<L>(i, |k, own| {
            let b = v.id[k];
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            buf[w] = pair_key(lo, hi);
            w += own as usize;
        });
    }
    w
}

/// [`scan_cell_into`] over the cells `range` as one dispatched body
/// (`crate::simd`): returns the new `w`.
pub(super) struct ScanCellsTask<'a> {
    pub cells: &'a Cells,
    pub range: core::ops::Range<usize>,
    pub keys: &'a mut Vec<u64>,
    pub w: usize,
}

impl<L: Lane> LaneFn<L> for ScanCellsTask<'_> {
    type Out = usize;
    #[inline(always)]
    fn call<M: Lane>(self) -> usize {
        let mut w = self.w;
        for c in self.range {
            w = scan_cell_into::<M>(self.cells, c, self.keys, w);
        }
        w
    }
}
