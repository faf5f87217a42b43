//! Output formats: binvox, MagicaVoxel `.vox`, NumPy `.npy` and PNG previews,
//! with readers for the first three (used by the round-trip tests).
//!
//! Every writer goes through [`write_atomic`]: the bytes go to a temporary file
//! in the target's directory, renamed over the target only when complete, so an
//! error never leaves a partial file.

use super::grid::Grid;
use super::storage::{DenseBits, VoxelSet, BRICK};
use super::VoxelError;
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Writes `path` atomically: `body` writes into a temporary file next to it,
/// which is renamed to `path` on success and removed on any error.
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), VoxelError> {
    stage(path, body)?.commit()
}

/// The temporary files [`stage`] has created and not yet renamed or
/// removed, so an interrupted program can remove them
/// ([`remove_temp_files`]): a signal ends the process without running the
/// [`Staged`] destructors.
static TEMP_FILES: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

fn temp_files() -> std::sync::MutexGuard<'static, Vec<std::path::PathBuf>> {
    TEMP_FILES.lock().unwrap_or_else(|e| e.into_inner())
}

fn forget_temp_file(p: &Path) {
    temp_files().retain(|q| q != p);
}

/// Removes every temporary file of an output still being written or
/// staged (see [`stage`]) and returns how many there were. For signal
/// handlers of programs that write through this module (the `widephase`
/// CLI calls it on SIGINT, SIGTERM and SIGHUP before exiting): the outputs
/// themselves are untouched, as their renames have not happened.
pub fn remove_temp_files() -> usize {
    let mut files = temp_files();
    let n = files.len();
    for f in files.drain(..) {
        let _ = std::fs::remove_file(f);
    }
    n
}

/// A complete output waiting in its temporary file (see [`stage`]): [`commit`]
/// renames it over the target; dropping it uncommitted removes it.
///
/// [`commit`]: Staged::commit
#[derive(Debug)]
pub struct Staged {
    tmp: std::path::PathBuf,
    path: std::path::PathBuf,
    done: bool,
}

impl Staged {
    /// Renames the temporary file over the target.
    pub fn commit(mut self) -> Result<(), VoxelError> {
        self.done = true;
        let r = std::fs::rename(&self.tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            VoxelError::Io(format!("{}: {e}", self.path.display()))
        });
        forget_temp_file(&self.tmp);
        r
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
            forget_temp_file(&self.tmp);
        }
    }
}

/// Commits every staged output, in order. Several outputs of one command are
/// staged first and committed together, so a failing output (a preview
/// after the voxel file, say) leaves none of them: if a rename fails, the
/// outputs already renamed are removed again.
pub fn commit_all(staged: Vec<Staged>) -> Result<(), VoxelError> {
    let mut done: Vec<std::path::PathBuf> = Vec::new();
    for s in staged {
        let p = s.path.clone();
        if let Err(e) = s.commit() {
            for d in &done {
                let _ = std::fs::remove_file(d);
            }
            return Err(e);
        }
        done.push(p);
    }
    Ok(())
}

/// Writes `body` into a temporary file in `path`'s directory (fsynced) and
/// returns it staged for [`Staged::commit`]. Errors (naming `path`) when the
/// body fails or `path` is a directory; the temporary file is then removed.
pub fn stage(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Staged, VoxelError> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(VoxelError::Io(format!("{name}: is a directory")));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| VoxelError::Io(format!("{name}: not a file path")))?
        .to_string_lossy()
        .to_string();
    let tmp = dir.join(format!(".{file_name}.tmp{}", std::process::id()));
    temp_files().push(tmp.clone());
    let staged = Staged { tmp, path: path.to_path_buf(), done: false };
    let run = || -> std::io::Result<()> {
        let f = std::fs::File::create(&staged.tmp)?;
        let mut w = std::io::BufWriter::new(f);
        body(&mut w)?;
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    // (on error `staged` drops and removes the temporary file)
    run().map_err(|e| VoxelError::Io(format!("{name}: {e}")))?;
    Ok(staged)
}

/// Writes binvox (Min's format: header, then `(value, count ≤ 255)` run pairs
/// over voxels in x-z-y order, y fastest: index `x·n² + z·n + y`). binvox grids
/// are cubes; other dimensions are an error (see [`write_binvox_cube`], which
/// pads). `translate` is the grid origin, `scale` the cube's side `n·h`.
pub fn write_binvox(w: &mut dyn Write, grid: &Grid, set: &VoxelSet) -> std::io::Result<()> {
    let [n, ny, nz] = grid.dims;
    if n != ny || n != nz {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "binvox needs a cubic grid, got {n}×{ny}×{nz} (write_binvox_cube pads it to a cube)"
            ),
        ));
    }
    write_binvox_cube(w, grid, set)
}

/// Writes binvox for any grid: binvox files are cubes, so a non-cubic grid
/// is padded to the cube of its largest dimension `n`. The header's `dim` is
/// `n n n`; voxel `(i, j, k)` keeps its index, and the voxels beyond the
/// grid's own dimensions are empty. `translate` (the grid origin) and
/// `scale = n·h` still give the voxel size `h`, so world positions of all
/// voxels are unchanged. Cubic grids are written exactly as [`write_binvox`].
pub fn write_binvox_cube(w: &mut dyn Write, grid: &Grid, set: &VoxelSet) -> std::io::Result<()> {
    let n = grid.dims.into_iter().max().unwrap_or(1);
    write!(
        w,
        "#binvox 1\ndim {n} {n} {n}\ntranslate {} {} {}\nscale {}\ndata\n",
        grid.origin.x,
        grid.origin.y,
        grid.origin.z,
        grid.voxel as f64 * n as f64
    )?;
    let group = binvox_group_columns(n as u64) as usize;
    write_binvox_body(w, set, n as usize, group, Transpose::for_this_cpu())
}

/// The run pairs of `set` in the binvox cube of side `n`, transposing
/// `group` word columns per read of the grid with `transpose`.
fn write_binvox_body(
    w: &mut dyn Write,
    set: &VoxelSet,
    n: usize,
    group: usize,
    transpose: Transpose,
) -> std::io::Result<()> {
    // The voxels in binvox order (x slowest, then z, then y), streamed one
    // group of word columns (64 x values each) at a time: each column's
    // words of every row are transposed in 64×64 bit blocks, so each
    // (x, z) line is a run of words of 64 y values; never a list of
    // voxels. A group is as many columns as fit in `BINVOX_GROUP_BYTES` (at
    // least one), so the grid's rows are read in whole cache lines once per
    // group, not once per column. Only blocks holding a voxel are kept (a
    // surface leaves most empty). The transposes run in parallel over z
    // chunks, then each column's x slices are run-coded in parallel pieces
    // joined in order.
    let [nx, ny, nz] = set.dims();
    let (ny, nz) = (ny as usize, nz as usize);
    let yw = ny.div_ceil(64);
    let mut rle =
        Rle { w: Some(w), value: 0, count: 0, buf: Vec::with_capacity(1 << 16), first: None };
    let wpr = DenseBits::row_words(nx);
    let group = group.max(1);
    for g0 in (0..n.div_ceil(64)).step_by(group) {
        // the group's columns inside the grid (the cube's others are empty)
        let (c0, c1) = (g0.min(wpr), (g0 + group).min(wpr));
        let cw = c1 - c0;
        let chunks: Vec<BlockChunk> = (0..if cw > 0 { nz.div_ceil(BlockChunk::LAYERS) } else { 0 })
            .into_par_iter()
            .map(|chunk| {
                let z0 = chunk * BlockChunk::LAYERS;
                let zn = BlockChunk::LAYERS.min(nz - z0);
                // rows (z, y) of the chunk's layers, `cw` words each
                let copy;
                let rows: &[u64] = match set {
                    VoxelSet::Dense(d) if cw == wpr => {
                        &d.words[z0 * ny * wpr..(z0 + zn) * ny * wpr]
                    }
                    _ => {
                        let mut col = vec![0u64; zn * ny * cw];
                        set.rows_into(z0 as u32, (z0 + zn) as u32, c0, c1, &mut col);
                        copy = col;
                        &copy
                    }
                };
                let mut out = BlockChunk { slots: vec![0; zn * cw * yw], words: Vec::new() };
                let mut block = [0u64; 64];
                for z in 0..zn {
                    for yb in 0..yw {
                        let (ya, yn) = (yb * 64, (ny - yb * 64).min(64));
                        for g in 0..cw {
                            let mut any = 0;
                            for (y, word) in block[..yn].iter_mut().enumerate() {
                                *word = rows[(z * ny + ya + y) * cw + g];
                                any |= *word;
                            }
                            if any == 0 {
                                continue;
                            }
                            block[yn..].fill(0);
                            transpose.apply(&mut block);
                            out.words.extend_from_slice(&block);
                            out.slots[(z * cw + g) * yw + yb] = (out.words.len() / 64) as u32;
                        }
                    }
                }
                out
            })
            .collect();
        for c in g0..(g0 + group).min(n.div_ceil(64)) {
            let x0 = c * 64;
            let g = c - g0;
            // (worst case, alternating voxels, the pieces hold 2 bytes per
            // voxel of the column: 1024/n of the dense grid's size)
            let xs = 64.min(n - x0);
            // One piece per x, coded eight at a time: the eight share each
            // block's cache line, read once for them all.
            let code = |xa: usize| -> std::io::Result<Vec<Piece>> {
                let xb = (xa + 8).min(xs);
                let mut pieces: Vec<Rle> = (xa..xb).map(|_| Rle::piece()).collect();
                // (x beyond the grid: no z loop)
                let inside = (nx as usize).saturating_sub(x0 + xa).min(xb - xa);
                for z in 0..if inside > 0 { nz } else { 0 } {
                    let chunk = &chunks[z / BlockChunk::LAYERS];
                    let at = (z % BlockChunk::LAYERS * cw + g) * yw;
                    let line = &chunk.slots[at..at + yw];
                    if line.iter().all(|&s| s == 0) {
                        for piece in &mut pieces[..inside] {
                            piece.push(0, n as u64)?;
                        }
                        continue;
                    }
                    for (yb, &s) in line.iter().enumerate() {
                        let bits = (ny - yb * 64).min(64) as u32;
                        if s == 0 {
                            for piece in &mut pieces[..inside] {
                                piece.push(0, bits as u64)?;
                            }
                            continue;
                        }
                        let words = &chunk.words[(s as usize - 1) * 64 + xa..][..inside];
                        for (piece, &word) in pieces.iter_mut().zip(words) {
                            piece.push_bits(word, bits)?;
                        }
                    }
                    for piece in &mut pieces[..inside] {
                        piece.push(0, (n - ny) as u64)?;
                    }
                }
                for (i, piece) in pieces.iter_mut().enumerate() {
                    match i < inside {
                        true => piece.push(0, ((n - nz) * n) as u64)?,
                        false => piece.push(0, (n * n) as u64)?,
                    }
                }
                Ok(pieces.into_iter().map(Rle::into_piece).collect())
            };
            let pieces: Vec<Vec<Piece>> = (0..xs)
                .step_by(8)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(code)
                .collect::<std::io::Result<_>>()?;
            let pieces = pieces.into_iter().flatten();
            for piece in pieces {
                rle.join(piece)?;
            }
        }
    }
    rle.finish()
}

/// binvox's run-length coder: maximal runs of one value, each written as
/// `(value, count ≤ 255)` pairs. A coder made by [`Rle::piece`] codes a part
/// of the stream into memory, keeping its first run apart (see [`Piece`]).
struct Rle<'a> {
    /// `None` for a piece, which stays in `buf`.
    w: Option<&'a mut dyn Write>,
    value: u8,
    count: u64,
    buf: Vec<u8>,
    /// `Some(None)` for a piece whose first run is still open.
    first: Option<Option<(u8, u64)>>,
}

/// A part of the voxel stream coded on its own: the runs between its first
/// and its last as bytes, the first and last as `(value, count)` so that
/// [`Rle::join`] can merge them with the neighbouring parts' runs.
struct Piece {
    /// The first run, when the piece has more than one.
    first: Option<(u8, u64)>,
    body: Vec<u8>,
    last: (u8, u64),
}

impl Rle<'_> {
    fn piece() -> Rle<'static> {
        Rle { w: None, value: 0, count: 0, buf: Vec::new(), first: Some(None) }
    }

    fn into_piece(self) -> Piece {
        Piece { first: self.first.flatten(), body: self.buf, last: (self.value, self.count) }
    }

    /// Appends a piece coded after everything pushed so far.
    fn join(&mut self, piece: Piece) -> std::io::Result<()> {
        let Some((v, c)) = piece.first else {
            return self.push(piece.last.0, piece.last.1);
        };
        self.push(v, c)?;
        self.emit()?;
        self.buf.extend_from_slice(&piece.body);
        (self.value, self.count) = piece.last;
        Ok(())
    }

    fn push(&mut self, value: u8, count: u64) -> std::io::Result<()> {
        if count == 0 {
            return Ok(());
        }
        if value != self.value {
            self.emit()?;
            self.value = value;
        }
        self.count += count;
        Ok(())
    }

    /// The low `n` bits of `word`, bit 0 first.
    fn push_bits(&mut self, word: u64, n: u32) -> std::io::Result<()> {
        let mask = if n == 64 { !0 } else { (1u64 << n) - 1 };
        let word = word & mask;
        if word == 0 || word == mask {
            return self.push((word & 1) as u8, n as u64);
        }
        // A word with both values: its runs end where a bit differs from the
        // one below it. The first run continues the open one; the runs
        // between the first and the last are complete and shorter than 64,
        // so they are written as pairs directly; the last stays open.
        let edges = (word ^ (word << 1)) & mask & !1;
        let first = edges.trailing_zeros();
        self.push((word & 1) as u8, first as u64)?;
        self.emit()?;
        let (mut start, mut rest) = (first, edges & (edges - 1));
        while rest != 0 {
            let end = rest.trailing_zeros();
            self.buf.extend_from_slice(&[(word >> start & 1) as u8, (end - start) as u8]);
            (start, rest) = (end, rest & (rest - 1));
        }
        (self.value, self.count) = ((word >> start & 1) as u8, (n - start) as u64);
        Ok(())
    }

    fn emit(&mut self) -> std::io::Result<()> {
        if self.count > 0 && self.first == Some(None) {
            self.first = Some(Some((self.value, self.count)));
            self.count = 0;
            return Ok(());
        }
        while self.count > 0 {
            let c = self.count.min(255);
            self.buf.push(self.value);
            self.buf.push(c as u8);
            self.count -= c;
        }
        if let Some(w) = self.w.as_mut().filter(|_| self.buf.len() >= 1 << 16) {
            w.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.emit()?;
        match self.w {
            Some(w) => w.write_all(&self.buf),
            None => Ok(()),
        }
    }
}

/// Bytes of transposed columns the binvox writer holds at once: a group of
/// columns shares one read of the grid's rows, in whole cache lines
/// (simd-notes, "Streaming writers").
const BINVOX_GROUP_BYTES: u64 = 16 << 20;

/// How many word columns (64 x values each) of a binvox cube of side `side`
/// the writer transposes per read of the grid: as many as fit in
/// [`BINVOX_GROUP_BYTES`] at 8 bytes per (y, z) each, at least one.
pub(crate) fn binvox_group_columns(side: u64) -> u64 {
    let column = 8 * side.max(1) * side.div_ceil(64) * 64;
    (BINVOX_GROUP_BYTES / column).clamp(1, side.div_ceil(64).max(1))
}

/// The binvox writer's transposed blocks of `LAYERS` z layers of a group of
/// columns: the blocks holding a voxel, 64 words each (word `xl` bit `y %
/// 64` = voxel `(x0 + xl, y, z)` of the block's column), and a slot per
/// `(z, column, y / 64)` of the chunk: 0 for an empty block, else the
/// block's number in `words` plus 1.
struct BlockChunk {
    slots: Vec<u32>,
    words: Vec<u64>,
}

impl BlockChunk {
    const LAYERS: usize = 16;
}

/// The 64×64 bit transpose the binvox writer runs, chosen once per file.
#[derive(Clone, Copy, Debug)]
enum Transpose {
    /// [`transpose64`].
    Scalar,
    /// GFNI on the AVX-512 path (`simd::x86::transpose`).
    #[cfg(target_arch = "x86_64")]
    Gfni,
}

impl Transpose {
    /// Every transpose this CPU can run (the tests replay the writer on each).
    #[cfg(test)]
    fn all_on_this_cpu() -> Vec<Transpose> {
        #[allow(unused_mut)]
        let mut all = vec![Transpose::Scalar];
        #[cfg(target_arch = "x86_64")]
        if crate::simd::x86::transpose::has_gfni() {
            all.push(Transpose::Gfni);
        }
        all
    }

    fn for_this_cpu() -> Transpose {
        #[cfg(target_arch = "x86_64")]
        if crate::simd::current() == crate::simd::Isa::Avx512
            && crate::simd::x86::transpose::has_gfni()
        {
            return Transpose::Gfni;
        }
        Transpose::Scalar
    }

    fn apply(self, a: &mut [u64; 64]) {
        match self {
            Transpose::Scalar => transpose64(a),
            // SAFETY: chosen only when the CPU has the features
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Transpose::Gfni => unsafe { crate::simd::x86::transpose::transpose64_gfni(a) },
        }
    }
}

/// Transposes a 64×64 bit matrix in place: afterwards bit `c` of `a[r]` is
/// what bit `r` of `a[c]` was (the recursive block swap of Warren,
/// *Hacker's Delight*, 2nd ed., §7-3, for bit 0 as the first column).
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            // swap the high j-bit half of a[k] with the low half of a[k + j]
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// A decoded voxel file: dimensions and the set voxels as sorted `[i, j, k]`,
/// plus the origin and voxel size where the format stores them.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// Grid dimensions.
    pub dims: [u32; 3],
    /// Voxels, sorted by `(k, j, i)`.
    pub voxels: Vec<[u32; 3]>,
    /// Origin (`translate` of binvox), if stored.
    pub origin: Option<[f32; 3]>,
    /// Voxel size (`scale / n` of binvox), if stored.
    pub voxel: Option<f64>,
}

fn bad(m: impl Into<String>) -> VoxelError {
    VoxelError::Format(m.into())
}

/// Reads a binvox file written by [`write_binvox`] (or by binvox itself).
pub fn read_binvox(bytes: &[u8]) -> Result<Decoded, VoxelError> {
    let mut pos = 0;
    let mut line = || -> Result<String, VoxelError> {
        let e = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| bad("binvox: truncated header"))?;
        let s = String::from_utf8_lossy(&bytes[pos..pos + e]).to_string();
        pos += e + 1;
        Ok(s)
    };
    if !line()?.starts_with("#binvox") {
        return Err(bad("binvox: missing #binvox magic"));
    }
    let mut dims = [0u32; 3];
    let mut origin = None;
    let mut scale = None;
    loop {
        let l = line()?;
        let mut it = l.split_whitespace();
        match it.next() {
            Some("dim") => {
                for d in dims.iter_mut() {
                    *d = it
                        .next()
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(|| bad("binvox: bad dim"))?;
                }
            }
            Some("translate") => {
                let mut t = [0f32; 3];
                for x in t.iter_mut() {
                    *x = it
                        .next()
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(|| bad("binvox: bad translate"))?;
                }
                origin = Some(t);
            }
            Some("scale") => scale = it.next().and_then(|t| t.parse::<f64>().ok()),
            Some("data") => break,
            _ => return Err(bad(format!("binvox: unexpected header line {l:?}"))),
        }
    }
    let data = &bytes[pos..];
    let n = dims[0] as u64;
    let (ny, nz) = (dims[1] as u64, dims[2] as u64);
    let total = n * ny * nz;
    let mut idx = 0u64;
    let mut voxels = Vec::new();
    for pair in data.chunks(2) {
        if pair.len() != 2 {
            return Err(bad("binvox: odd data length"));
        }
        let (v, c) = (pair[0], pair[1] as u64);
        if v == 1 {
            for l in idx..idx + c {
                // index = x·(ny·nz) + z·ny + y
                let x = l / (ny * nz);
                let z = l / ny % nz;
                let y = l % ny;
                voxels.push([x as u32, y as u32, z as u32]);
            }
        }
        idx += c;
    }
    if idx != total {
        return Err(bad(format!("binvox: data covers {idx} voxels, expected {total}")));
    }
    voxels.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
    Ok(Decoded { dims, voxels, origin, voxel: scale.map(|s| s / n as f64) })
}

/// Writes a NumPy `.npy` file: `dense == false` gives an `int32` array of
/// shape `(N, 3)` holding `[i, j, k]` rows sorted by `(k, j, i)`;
/// `dense == true` gives a `uint8` array of shape `(nx, ny, nz)` (C order,
/// so `a[i, j, k]` is voxel `(i, j, k)`).
pub fn write_npy(w: &mut dyn Write, set: &VoxelSet, dense: bool) -> std::io::Result<()> {
    let [nx, ny, nz] = set.dims();
    if dense {
        let header =
            format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({nx}, {ny}, {nz}), }}");
        npy_header(w, &header)?;
        // one word column (64 x values) of every row at a time (8 bytes per
        // (y, z) pair), then one (y, z) plane of bytes per x
        let (ny, nz) = (ny as usize, nz as usize);
        let mut col = vec![0u64; ny * nz];
        let mut plane = vec![0u8; ny * nz];
        for c in 0..DenseBits::row_words(nx) {
            set.rows_into(0, nz as u32, c, c + 1, &mut col);
            for xl in 0..64.min(nx as usize - c * 64) {
                for j in 0..ny {
                    for k in 0..nz {
                        plane[j * nz + k] = (col[k * ny + j] >> xl & 1) as u8;
                    }
                }
                w.write_all(&plane)?;
            }
        }
        Ok(())
    } else {
        let header =
            format!("{{'descr': '<i4', 'fortran_order': False, 'shape': ({}, 3), }}", set.count());
        npy_header(w, &header)?;
        if let VoxelSet::Dense(d) = set {
            // blocks of rows (a 2 MiB share of the grid's words each),
            // indexed in parallel (`indices_flat`'s order: (k, j, i))
            let rows = d.words.len() / d.words_per_row.max(1);
            let step = ((1 << 18) / d.words_per_row.max(1)).max(1);
            for r in (0..rows).step_by(step) {
                let flat = d.indices_flat_rows(r..(r + step).min(rows));
                if cfg!(target_endian = "little") {
                    // (coordinates below 2³¹: the u32 and i32 bytes agree)
                    w.write_all(bytemuck::cast_slice(&flat))?;
                } else {
                    let bytes: Vec<u8> =
                        flat.iter().flat_map(|&c| (c as i32).to_le_bytes()).collect();
                    w.write_all(&bytes)?;
                }
            }
            return Ok(());
        }
        // streamed in (k, j, i) order, 64 KiB at a time
        let mut buf = Vec::with_capacity(1 << 16);
        let mut err = Ok(());
        set.for_each_sorted(|p| {
            for c in p {
                buf.extend_from_slice(&(c as i32).to_le_bytes());
            }
            if buf.len() >= 1 << 16 {
                if err.is_ok() {
                    err = w.write_all(&buf);
                }
                buf.clear();
            }
        });
        err?;
        w.write_all(&buf)
    }
}

/// Writes voxel index rows as [`write_npy`]'s `int32 (N, 3)` index list, in
/// the order given (a tile's voxels by their whole-grid indices, from
/// [`TileVoxels::indices`](super::TileVoxels::indices)).
pub fn write_npy_index_rows(w: &mut dyn Write, rows: &[[u32; 3]]) -> std::io::Result<()> {
    let header =
        format!("{{'descr': '<i4', 'fortran_order': False, 'shape': ({}, 3), }}", rows.len());
    npy_header(w, &header)?;
    for chunk in rows.chunks(1 << 12) {
        let buf: Vec<u8> = chunk.iter().flatten().flat_map(|&c| (c as i32).to_le_bytes()).collect();
        w.write_all(&buf)?;
    }
    Ok(())
}

fn npy_header(w: &mut dyn Write, dict: &str) -> std::io::Result<()> {
    // magic (6) + version (2) + length (2) + dict + padding + '\n', total % 64 == 0
    let mut h = dict.to_string();
    let unpadded = 10 + h.len() + 1;
    h.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    h.push('\n');
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(h.len() as u16).to_le_bytes())?;
    w.write_all(h.as_bytes())
}

/// Reads an `.npy` written by [`write_npy`] (either layout); `dims` is taken
/// from the array for dense files and must be given for index files.
pub fn read_npy(bytes: &[u8], dims: [u32; 3]) -> Result<Decoded, VoxelError> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("npy: missing magic"));
    }
    let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = String::from_utf8_lossy(&bytes[10..10 + hl]).to_string();
    let data = &bytes[10 + hl..];
    let shape: Vec<u64> = header
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("npy: no shape"))?
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    let mut voxels = Vec::new();
    let dims = if header.contains("'|u1'") {
        let d = [shape[0] as u32, shape[1] as u32, shape[2] as u32];
        for (l, &b) in data.iter().enumerate() {
            if b != 0 {
                let l = l as u64;
                let (j, k) = (l / shape[2] % shape[1], l % shape[2]);
                voxels.push([(l / (shape[1] * shape[2])) as u32, j as u32, k as u32]);
            }
        }
        d
    } else {
        for c in data.chunks(12) {
            let g = |o: usize| i32::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]]) as u32;
            voxels.push([g(0), g(4), g(8)]);
        }
        dims
    };
    voxels.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
    Ok(Decoded { dims, voxels, origin: None, voxel: None })
}

/// Largest MagicaVoxel model edge.
pub const VOX_TILE: u32 = 256;

/// Most voxels a `.vox` file holds: its `MAIN` chunk's size is a `u32`, and
/// each voxel takes 4 bytes (64 MiB are kept for the model and scene
/// chunks). [`write_vox`] errors above the exact limit.
pub const VOX_MAX_VOXELS: u64 = (u32::MAX as u64 - (1 << 26)) / 4;

fn chunk(out: &mut Vec<u8>, id: &[u8; 4], content: &[u8], children: &[u8]) {
    out.extend_from_slice(id);
    out.extend_from_slice(&(content.len() as u32).to_le_bytes());
    out.extend_from_slice(&(children.len() as u32).to_le_bytes());
    out.extend_from_slice(content);
    out.extend_from_slice(children);
}

fn vox_dict(out: &mut Vec<u8>, kv: &[(&str, String)]) {
    out.extend_from_slice(&(kv.len() as u32).to_le_bytes());
    for (k, v) in kv {
        for s in [k.as_bytes(), v.as_bytes()] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        }
    }
}

/// Writes MagicaVoxel `.vox` (version 150): the grid is cut into tiles of at
/// most 256³ voxels, each non-empty tile a model (`SIZE` + `XYZI`, colour
/// index 1) placed by a transform node (`nTRN` `_t` = tile centre) under one
/// group, as MagicaVoxel 0.99 writes scenes, and one `LAYR` chunk for the
/// layer 0 the transforms name. An empty set writes one empty model of the
/// grid's size (clamped to 256 per axis): MagicaVoxel needs a model.
/// MagicaVoxel's z axis is up, as here.
pub fn write_vox(w: &mut dyn Write, set: &VoxelSet) -> std::io::Result<()> {
    let dims = set.dims();
    // Two passes over the set, no voxel list: the first counts the voxels of
    // every tile (the chunk sizes come first in the file), the second
    // writes each tile's voxels straight from the set.
    let mut tiles = vox_tile_counts(set);
    if tiles.is_empty() {
        // MagicaVoxel needs at least one model: an empty one of the first
        // tile's size (the grid clamped to 256 per axis)
        tiles.insert((0, 0, 0), 0);
    }
    let mut models = Vec::new();
    let mut model_bytes = 0u64;
    for &(tz, ty, tx) in tiles.keys() {
        let sz = [
            (dims[0] - tx * VOX_TILE).min(VOX_TILE),
            (dims[1] - ty * VOX_TILE).min(VOX_TILE),
            (dims[2] - tz * VOX_TILE).min(VOX_TILE),
        ];
        models.push(([tx * VOX_TILE, ty * VOX_TILE, tz * VOX_TILE], sz));
        // SIZE (12 + 12) and XYZI (12 + 4 + 4 per voxel)
        model_bytes += 24 + 16 + 4 * tiles[&(tz, ty, tx)];
    }
    let mut body = Vec::new();
    // scene graph: nTRN(0) -> nGRP(1) -> [nTRN(2+2m) -> nSHP(3+2m) -> model m]
    let mut c = Vec::new();
    c.extend_from_slice(&0u32.to_le_bytes());
    vox_dict(&mut c, &[]);
    c.extend_from_slice(&1u32.to_le_bytes()); // child
    c.extend_from_slice(&(-1i32).to_le_bytes()); // reserved
    c.extend_from_slice(&(-1i32).to_le_bytes()); // layer
    c.extend_from_slice(&1u32.to_le_bytes()); // frames
    vox_dict(&mut c, &[]);
    chunk(&mut body, b"nTRN", &c, &[]);
    let mut g = Vec::new();
    g.extend_from_slice(&1u32.to_le_bytes());
    vox_dict(&mut g, &[]);
    g.extend_from_slice(&(models.len() as u32).to_le_bytes());
    for m in 0..models.len() as u32 {
        g.extend_from_slice(&(2 + 2 * m).to_le_bytes());
    }
    chunk(&mut body, b"nGRP", &g, &[]);
    for (m, (off, sz)) in models.iter().enumerate() {
        let m = m as u32;
        // MagicaVoxel places a model's centre (integer half size) at _t
        let t = [0, 1, 2].map(|a| off[a] as i64 + (sz[a] / 2) as i64);
        let mut c = Vec::new();
        c.extend_from_slice(&(2 + 2 * m).to_le_bytes());
        vox_dict(&mut c, &[]);
        c.extend_from_slice(&(3 + 2 * m).to_le_bytes());
        c.extend_from_slice(&(-1i32).to_le_bytes());
        c.extend_from_slice(&0i32.to_le_bytes());
        c.extend_from_slice(&1u32.to_le_bytes());
        vox_dict(&mut c, &[("_t", format!("{} {} {}", t[0], t[1], t[2]))]);
        chunk(&mut body, b"nTRN", &c, &[]);
        let mut s = Vec::new();
        s.extend_from_slice(&(3 + 2 * m).to_le_bytes());
        vox_dict(&mut s, &[]);
        s.extend_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&m.to_le_bytes());
        vox_dict(&mut s, &[]);
        chunk(&mut body, b"nSHP", &s, &[]);
    }
    // the layer the model transforms name (layer 0): `LAYR` = layer id,
    // attribute dict, reserved id −1 (MagicaVoxel-file-format-vox-extension.txt)
    let mut l = Vec::new();
    l.extend_from_slice(&0i32.to_le_bytes());
    vox_dict(&mut l, &[("_name", "voxels".to_string())]);
    l.extend_from_slice(&(-1i32).to_le_bytes());
    chunk(&mut body, b"LAYR", &l, &[]);
    let children = u32::try_from(model_bytes + body.len() as u64).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "vox: more voxels than a .vox file can hold (its chunks are sized in 32 bits)",
        )
    })?;
    let mut head = Vec::with_capacity(20);
    head.extend_from_slice(b"VOX ");
    head.extend_from_slice(&150u32.to_le_bytes());
    head.extend_from_slice(b"MAIN");
    head.extend_from_slice(&0u32.to_le_bytes());
    head.extend_from_slice(&children.to_le_bytes());
    w.write_all(&head)?;
    let mut buf = Vec::with_capacity(1 << 16);
    for ((&tile, &count), (_, sz)) in tiles.iter().zip(&models) {
        let mut c = Vec::with_capacity(12);
        for s in sz {
            c.extend_from_slice(&s.to_le_bytes());
        }
        chunk(&mut buf, b"SIZE", &c, &[]);
        buf.extend_from_slice(b"XYZI");
        buf.extend_from_slice(&(4 + 4 * count as u32).to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&(count as u32).to_le_bytes());
        vox_tile_voxels(set, tile, |v| {
            buf.extend_from_slice(&v);
            if buf.len() >= 1 << 16 {
                w.write_all(&buf)?;
                buf.clear();
            }
            Ok(())
        })?;
    }
    w.write_all(&buf)?;
    w.write_all(&body)
}

/// Voxel counts of the non-empty `.vox` tiles, keyed `(tz, ty, tx)`.
fn vox_tile_counts(set: &VoxelSet) -> std::collections::BTreeMap<(u32, u32, u32), u64> {
    let mut tiles = std::collections::BTreeMap::new();
    match set {
        VoxelSet::Dense(d) => {
            let (ny, wpr) = (d.dims[1] as usize, d.words_per_row);
            for (w, &word) in d.words.iter().enumerate() {
                if word != 0 {
                    let row = w / wpr;
                    let tx = (w % wpr) as u32 * 64 / VOX_TILE;
                    let key = ((row / ny) as u32 / VOX_TILE, (row % ny) as u32 / VOX_TILE, tx);
                    *tiles.entry(key).or_insert(0) += word.count_ones() as u64;
                }
            }
        }
        VoxelSet::Sparse(s) => {
            let nb = s.dims.map(|d| d.div_ceil(BRICK) as u64);
            let per = (VOX_TILE / BRICK) as u64;
            for (key, brick) in &s.bricks {
                let (bx, by, bz) = (key % nb[0], key / nb[0] % nb[1], key / nb[0] / nb[1]);
                let t = ((bz / per) as u32, (by / per) as u32, (bx / per) as u32);
                *tiles.entry(t).or_insert(0) +=
                    brick.iter().map(|w| w.count_ones() as u64).sum::<u64>();
            }
        }
    }
    tiles.retain(|_, c| *c > 0);
    tiles
}

/// Calls `f` with the `XYZI` entry (tile-local x, y, z, colour 1) of every
/// voxel of tile `(tz, ty, tx)`: dense sets in `(k, j, i)` order, sparse
/// sets brick by brick in key order (each brick z, y, x).
fn vox_tile_voxels(
    set: &VoxelSet,
    (tz, ty, tx): (u32, u32, u32),
    mut f: impl FnMut([u8; 4]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dims = set.dims();
    let lo = [tx, ty, tz].map(|t| t * VOX_TILE);
    let hi = [0, 1, 2].map(|a| (lo[a] + VOX_TILE).min(dims[a]));
    let entry =
        |[x, y, z]: [u32; 3]| [(x % VOX_TILE) as u8, (y % VOX_TILE) as u8, (z % VOX_TILE) as u8, 1];
    match set {
        VoxelSet::Dense(d) => {
            let (ny, wpr) = (d.dims[1] as usize, d.words_per_row);
            let (c0, c1) = ((lo[0] / 64) as usize, hi[0].div_ceil(64) as usize);
            for k in lo[2]..hi[2] {
                for j in lo[1]..hi[1] {
                    let row = (k as usize * ny + j as usize) * wpr;
                    for c in c0..c1 {
                        let mut bits = d.words[row + c];
                        while bits != 0 {
                            let b = bits.trailing_zeros();
                            bits &= bits - 1;
                            f(entry([c as u32 * 64 + b, j, k]))?;
                        }
                    }
                }
            }
        }
        VoxelSet::Sparse(s) => {
            let nb = s.dims.map(|d| d.div_ceil(BRICK) as u64);
            let b0 = lo.map(|l| (l / BRICK) as u64);
            let b1 = [0, 1, 2].map(|a| (hi[a].div_ceil(BRICK)) as u64);
            for bz in b0[2]..b1[2] {
                for by in b0[1]..b1[1] {
                    let row = (bz * nb[1] + by) * nb[0];
                    let a = s.bricks.partition_point(|b| b.0 < row + b0[0]);
                    let e = s.bricks.partition_point(|b| b.0 < row + b1[0]);
                    for (key, brick) in &s.bricks[a..e] {
                        let base = [(key - row) as u32, by as u32, bz as u32].map(|b| b * BRICK);
                        for (z, &word) in brick.iter().enumerate() {
                            let mut bits = word;
                            while bits != 0 {
                                let b = bits.trailing_zeros();
                                bits &= bits - 1;
                                f(entry([base[0] + b % 8, base[1] + b / 8, base[2] + z as u32]))?;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Reads a `.vox` written by [`write_vox`]: models placed by their `nTRN`
/// translations (model `m` is the child of the `m`-th shape). Returns global
/// voxel indices; `dims` is the bounding size of the placed models.
pub fn read_vox(bytes: &[u8]) -> Result<Decoded, VoxelError> {
    if bytes.len() < 20 || &bytes[..4] != b"VOX " {
        return Err(bad("vox: missing magic"));
    }
    let u32at = |b: &[u8], o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mut pos = 20; // skip header and MAIN chunk header
    let mut models: Vec<([u32; 3], Vec<[u8; 4]>)> = Vec::new();
    let mut trans: Vec<[i64; 3]> = Vec::new();
    while pos + 12 <= bytes.len() {
        let id = &bytes[pos..pos + 4];
        let n = u32at(bytes, pos + 4) as usize;
        let c = &bytes[pos + 12..pos + 12 + n];
        match id {
            b"SIZE" => models.push(([u32at(c, 0), u32at(c, 4), u32at(c, 8)], Vec::new())),
            b"XYZI" => {
                let k = u32at(c, 0) as usize;
                let m = models.last_mut().ok_or_else(|| bad("vox: XYZI before SIZE"))?;
                m.1 = c[4..4 + 4 * k].chunks(4).map(|v| [v[0], v[1], v[2], v[3]]).collect();
            }
            b"nTRN" => {
                // node id, dict, child, reserved, layer, frames, frame dict
                let mut o = 4;
                let skip_dict = |o: &mut usize| -> Vec<(String, String)> {
                    let k = u32at(c, *o) as usize;
                    *o += 4;
                    let mut kv = Vec::new();
                    for _ in 0..k {
                        let mut s = [String::new(), String::new()];
                        for x in s.iter_mut() {
                            let l = u32at(c, *o) as usize;
                            *x = String::from_utf8_lossy(&c[*o + 4..*o + 4 + l]).to_string();
                            *o += 4 + l;
                        }
                        kv.push((s[0].clone(), s[1].clone()));
                    }
                    kv
                };
                skip_dict(&mut o);
                o += 16;
                let frame = skip_dict(&mut o);
                if let Some((_, t)) = frame.iter().find(|(k, _)| k == "_t") {
                    let v: Vec<i64> = t.split_whitespace().filter_map(|x| x.parse().ok()).collect();
                    trans.push([v[0], v[1], v[2]]);
                }
            }
            _ => {}
        }
        pos += 12 + n + u32at(bytes, pos + 8) as usize;
    }
    if trans.len() != models.len() {
        return Err(bad("vox: model and transform counts differ"));
    }
    let mut voxels = Vec::new();
    let mut dims = [0u32; 3];
    for ((sz, vox), t) in models.iter().zip(&trans) {
        let off = [0, 1, 2].map(|a| (t[a] - (sz[a] / 2) as i64) as u32);
        for a in 0..3 {
            dims[a] = dims[a].max(off[a] + sz[a]);
        }
        for v in vox {
            voxels.push([off[0] + v[0] as u32, off[1] + v[1] as u32, off[2] + v[2] as u32]);
        }
    }
    voxels.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
    Ok(Decoded { dims, voxels, origin: None, voxel: None })
}

/// Renders a PNG preview: three depth-shaded axis projections side by side
/// (looking down −z, −y and −x; nearer voxels are brighter), grey on black,
/// each at most 512 pixels wide (large grids are binned), each labelled
/// below with its image axes, horizontal then vertical: `XY` (the view
/// along z), `XZ` (along y), `YZ` (along x).
#[cfg(feature = "preview")]
pub fn write_png(w: &mut dyn Write, set: &VoxelSet) -> std::io::Result<()> {
    let dims = set.dims();
    let maxd = *dims.iter().max().unwrap();
    let bin = maxd.div_ceil(512).max(1);
    let d = dims.map(|x| x.div_ceil(bin) as usize);
    // view a: image axes (u, v) and depth axis
    let views = [(0usize, 1usize, 2usize), (0, 2, 1), (1, 2, 0)];
    let gap = 8;
    let width: usize = views.iter().map(|v| d[v.0]).sum::<usize>() + gap * 4;
    let panels = views.iter().map(|v| d[v.1]).max().unwrap();
    // the label strip: one row of 5×7 glyphs under the panels
    let height = panels + gap * 2 + GLYPH_ROWS + 4;
    let mut depth: Vec<Vec<u32>> = views.iter().map(|v| vec![u32::MAX; d[v.0] * d[v.1]]).collect();
    set.for_each(|p| {
        for (n, v) in views.iter().enumerate() {
            let (u, vv) = (p[v.0] / bin, p[v.1] / bin);
            let c = &mut depth[n][vv as usize * d[v.0] + u as usize];
            *c = (*c).min(p[v.2]);
        }
    });
    let mut img = vec![0u8; width * height];
    let mut x0 = gap;
    for (n, v) in views.iter().enumerate() {
        let (du, dv) = (d[v.0], d[v.1]);
        let full = dims[v.2].max(1) as f32;
        for y in 0..dv {
            for x in 0..du {
                let z = depth[n][y * du + x];
                if z != u32::MAX {
                    // flip so v grows upward
                    let row = gap + (dv - 1 - y);
                    img[row * width + x0 + x] = (255.0 - 190.0 * (z as f32 / full)) as u8;
                }
            }
        }
        let label = [v.0, v.1].map(|a| AXIS_GLYPHS[a]);
        for (g, glyph) in label.iter().enumerate() {
            for (r, bits) in glyph.iter().enumerate() {
                for c in 0..5 {
                    let x = x0 + g * 6 + c;
                    if bits >> (4 - c) & 1 == 1 && x < width {
                        img[(gap + panels + 2 + r) * width + x] = 255;
                    }
                }
            }
        }
        x0 += du + gap;
    }
    write_gray_png(w, width, height, &img)
}

/// Writes `img` (row-major, `width × height` bytes) as an 8-bit greyscale PNG.
#[cfg(feature = "preview")]
pub fn write_gray_png(
    w: &mut dyn Write,
    width: usize,
    height: usize,
    img: &[u8],
) -> std::io::Result<()> {
    let mut enc = png::Encoder::new(w, width as u32, height as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().map_err(std::io::Error::other)?;
    wr.write_image_data(img).map_err(std::io::Error::other)?;
    wr.finish().map_err(std::io::Error::other)
}

/// Rows of the preview's label glyphs.
#[cfg(feature = "preview")]
const GLYPH_ROWS: usize = 7;

/// 5×7 glyphs of the letters X, Y, Z (bit 4 the leftmost column).
#[cfg(feature = "preview")]
const AXIS_GLYPHS: [[u8; GLYPH_ROWS]; 3] = [
    [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001],
    [0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100],
    [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111],
];

/// Reads a 2-D little-endian `float32` `.npy` array with `cols` columns
/// (NumPy format 1.0–3.0, C order) and returns its rows, flattened.
///
/// Every malformation is an error naming the problem: missing magic, an
/// unsupported version, a header that is not a dict with `descr`,
/// `fortran_order` and `shape`, a dtype other than `<f4`, Fortran order, a shape
/// other than `(rows, cols)`, more than `max_rows` rows, or a data section whose
/// length is not `rows · cols · 4`.
pub fn read_npy_f32_rows(bytes: &[u8], cols: usize, max_rows: usize) -> Result<Vec<f32>, String> {
    read_npy_f32_table(bytes, &[cols], max_rows).map(|(_, v)| v)
}

/// [`read_npy_f32_rows`] accepting any column count of `cols`: returns the
/// array's column count and its rows, flattened.
pub fn read_npy_f32_table(
    bytes: &[u8],
    cols: &[usize],
    max_rows: usize,
) -> Result<(usize, Vec<f32>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (missing \\x93NUMPY magic)".into());
    }
    let (hl, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => {
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes.get(start..start.saturating_add(hl)).ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "npy header is not text")?;
    let field = |name: &str| -> Result<&str, String> {
        let at = header
            .find(&format!("'{name}'"))
            .ok_or_else(|| format!("npy header has no '{name}'"))?;
        let rest = header[at + name.len() + 2..].trim_start();
        rest.strip_prefix(':')
            .map(str::trim_start)
            .ok_or_else(|| format!("npy header: bad '{name}'"))
    };
    let descr = field("descr")?;
    if !(descr.starts_with("'<f4'") || descr.starts_with("\"<f4\"")) {
        let d: String = descr.chars().take_while(|&c| c != ',').collect();
        return Err(format!("dtype {d} is not little-endian float32 ('<f4')"));
    }
    if !field("fortran_order")?.starts_with("False") {
        return Err("Fortran-order arrays are not supported (use C order)".into());
    }
    let shape = field("shape")?;
    let inner = shape
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("npy header: shape is not a tuple")?;
    let dims: Vec<u64> = inner
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<u64>().map_err(|_| format!("npy header: bad shape entry {t:?}")))
        .collect::<Result<_, _>>()?;
    if dims.len() != 2 || !cols.iter().any(|&c| dims[1] == c as u64) {
        let want: Vec<String> = cols.iter().map(|c| format!("(N, {c})")).collect();
        return Err(format!("shape ({inner}) is not {}", want.join(" or ")));
    }
    let cols = dims[1] as usize;
    if dims[0] > max_rows as u64 {
        return Err(format!("{} rows is more than the limit of {max_rows}", dims[0]));
    }
    let rows = dims[0] as usize;
    let data = &bytes[start + hl..];
    if data.len() != rows * cols * 4 {
        return Err(format!(
            "data is {} bytes, shape ({rows}, {cols}) of float32 needs {}",
            data.len(),
            rows * cols * 4
        ));
    }
    Ok((cols, data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()))
}

/// Writes `rows` as a little-endian `uint32` `.npy` array of shape `(N, 2)`.
pub fn write_npy_u32_pairs(w: &mut dyn Write, rows: &[(u32, u32)]) -> std::io::Result<()> {
    let header =
        format!("{{'descr': '<u4', 'fortran_order': False, 'shape': ({}, 2), }}", rows.len());
    npy_header(w, &header)?;
    let mut buf = Vec::with_capacity(rows.len() * 8);
    for &(a, b) in rows {
        buf.extend_from_slice(&a.to_le_bytes());
        buf.extend_from_slice(&b.to_le_bytes());
    }
    w.write_all(&buf)
}

/// Writes per-voxel triangle lists ([`super::triangle_lists`]) as a
/// little-endian `uint32` `.npy` array of shape `(P, 4)`: one row
/// `[i, j, k, triangle]` per (voxel, triangle) pair, sorted by voxel
/// `(k, j, i)` (the order of [`write_npy`]'s index list) and then by triangle.
pub fn write_npy_triangle_rows(
    w: &mut dyn Write,
    lists: &[([u32; 3], Vec<u32>)],
) -> std::io::Result<()> {
    let rows: usize = lists.iter().map(|(_, l)| l.len()).sum();
    let header = format!("{{'descr': '<u4', 'fortran_order': False, 'shape': ({rows}, 4), }}");
    npy_header(w, &header)?;
    let mut buf = Vec::with_capacity(rows.min(1 << 20) * 16);
    for (v, l) in lists {
        for &t in l {
            for x in [v[0], v[1], v[2], t] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            if buf.len() >= 1 << 16 {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
    }
    w.write_all(&buf)
}

#[cfg(test)]
mod tests {
    //! The streaming writers against the list-based writers they replaced
    //! (kept here as the reference): byte-identical files on random dense
    //! and sparse sets of awkward dimensions.
    use super::*;
    use crate::math::Vec3;
    use crate::voxel::storage::SparseBricks;

    #[test]
    fn transpose64_swaps_rows_and_columns() {
        let mut rng = fastrand::Rng::with_seed(7);
        let a: [u64; 64] = std::array::from_fn(|_| rng.u64(..));
        let mut t = a;
        transpose64(&mut t);
        for (r, row) in t.iter().enumerate() {
            for (c, col) in a.iter().enumerate() {
                assert_eq!(row >> c & 1, col >> r & 1, "bit ({r}, {c})");
            }
        }
    }

    fn random_sets(dims: [u32; 3], fill: f64, seed: u64) -> [VoxelSet; 2] {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut d = DenseBits::new(dims).unwrap();
        // runs along x and y of random length, so the files have long runs too
        for k in 0..dims[2] {
            for j in 0..dims[1] {
                let mut i = 0;
                while i < dims[0] {
                    let len = rng.u32(1..=dims[0].min(200));
                    if rng.f64() < fill {
                        for x in i..(i + len).min(dims[0]) {
                            d.set([x, j, k]);
                        }
                    }
                    i += len;
                }
            }
        }
        let nb = dims.map(|d| d.div_ceil(BRICK) as u64);
        let mut bricks: std::collections::BTreeMap<u64, [u64; 8]> = Default::default();
        VoxelSet::Dense(d.clone()).for_each(|[x, y, z]| {
            let key = ((z / 8) as u64 * nb[1] + (y / 8) as u64) * nb[0] + (x / 8) as u64;
            bricks.entry(key).or_default()[(z % 8) as usize] |= 1 << ((y % 8) * 8 + x % 8);
        });
        let sparse = SparseBricks { dims, bricks: bricks.into_iter().collect() };
        [VoxelSet::Dense(d), VoxelSet::Sparse(sparse)]
    }

    fn reference_binvox(grid: &Grid, set: &VoxelSet) -> Vec<u8> {
        let n = grid.dims.into_iter().max().unwrap() as u64;
        let mut w = format!(
            "#binvox 1\ndim {n} {n} {n}\ntranslate {} {} {}\nscale {}\ndata\n",
            grid.origin.x,
            grid.origin.y,
            grid.origin.z,
            grid.voxel as f64 * n as f64
        )
        .into_bytes();
        let mut lin = Vec::new();
        set.for_each(|[x, y, z]| lin.push(x as u64 * n * n + z as u64 * n + y as u64));
        lin.sort_unstable();
        let mut run = |value: u8, mut count: u64| {
            while count > 0 {
                let c = count.min(255);
                w.push(value);
                w.push(c as u8);
                count -= c;
            }
        };
        let (mut pos, mut s) = (0, 0);
        while s < lin.len() {
            let mut e = s + 1;
            while e < lin.len() && lin[e] == lin[e - 1] + 1 {
                e += 1;
            }
            run(0, lin[s] - pos);
            run(1, (e - s) as u64);
            pos = lin[e - 1] + 1;
            s = e;
        }
        run(0, n * n * n - pos);
        w
    }

    fn reference_npy(set: &VoxelSet, dense: bool) -> Vec<u8> {
        let [nx, ny, nz] = set.dims();
        let mut w = Vec::new();
        if dense {
            let h = format!(
                "{{'descr': '|u1', 'fortran_order': False, 'shape': ({nx}, {ny}, {nz}), }}"
            );
            npy_header(&mut w, &h).unwrap();
            for i in 0..nx {
                for j in 0..ny {
                    for k in 0..nz {
                        w.push(set.get([i, j, k]) as u8);
                    }
                }
            }
        } else {
            let mut v = Vec::new();
            set.for_each(|p| v.push(p));
            v.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
            let h =
                format!("{{'descr': '<i4', 'fortran_order': False, 'shape': ({}, 3), }}", v.len());
            npy_header(&mut w, &h).unwrap();
            for p in v {
                for c in p {
                    w.extend_from_slice(&(c as i32).to_le_bytes());
                }
            }
        }
        w
    }

    fn written(f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Vec<u8> {
        let mut v = Vec::new();
        f(&mut v).unwrap();
        v
    }

    #[test]
    fn streaming_writers_match_the_list_based_ones() {
        for (n, (dims, fill)) in [
            ([70, 130, 9], 0.3),
            ([64, 64, 64], 0.5),
            ([1, 1, 1], 1.0),
            ([300, 20, 270], 0.02),
            ([65, 3, 129], 0.0),
            ([129, 128, 127], 0.9),
        ]
        .into_iter()
        .enumerate()
        {
            let grid = Grid::new(Vec3::new(0.5, -1.0, 2.0), 0.125, dims).unwrap();
            let sets = random_sets(dims, fill, n as u64);
            let base = reference_binvox(&grid, &sets[0]);
            let vox = written(|w| write_vox(w, &sets[0]));
            let got = read_vox(&vox).unwrap();
            assert_eq!(got.voxels, sets[0].indices(), "{dims:?}: vox voxels");
            for set in &sets {
                let kind = if matches!(set, VoxelSet::Dense(_)) { "dense" } else { "sparse" };
                assert_eq!(written(|w| write_binvox_cube(w, &grid, set)), base, "{dims:?} {kind}");
                // groups of one column (a read of the grid per column), groups
                // that leave a partial group at the end, and all columns, with
                // the scalar and the GFNI transposes
                let n = dims.into_iter().max().unwrap() as usize;
                let body = &base[base.windows(5).position(|w| w == b"data\n").unwrap() + 5..];
                for transpose in Transpose::all_on_this_cpu() {
                    for group in [1, 2, 3, n.div_ceil(64)] {
                        let got = written(|w| write_binvox_body(w, set, n, group, transpose));
                        assert_eq!(got, body, "{dims:?} {kind} group {group} {transpose:?}");
                    }
                }
                for dense in [false, true] {
                    let got = written(|w| write_npy(w, set, dense));
                    assert_eq!(got, reference_npy(set, dense), "{dims:?} {kind} npy {dense}");
                }
                assert_eq!(set.indices(), sets[0].indices(), "{dims:?} {kind} indices");
            }
        }
    }
}
