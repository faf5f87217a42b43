//! Output paths, checked before any work: each output's directory exists,
//! its extension names the content written there, and no two outputs of
//! one command share a path (the second would silently replace the first).
//! After the run, [`report`] says which files were written.

use std::path::{Path, PathBuf};

/// One output of a command: the option that names it, its path, and the
/// extensions its content may have (lower case, without the dot).
pub struct Output<'a> {
    pub flag: &'a str,
    pub path: &'a Path,
    pub extensions: &'a [&'a str],
}

/// The path with its directory made absolute and resolved (links, `..`),
/// so two spellings of one file compare equal; the file itself need not
/// exist.
fn resolved(p: &Path) -> PathBuf {
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match p.file_name() {
        Some(f) => dir.join(f),
        None => p.to_path_buf(),
    }
}

/// Checks the outputs (see the module docs).
pub fn check(outputs: &[Output<'_>]) -> Result<(), String> {
    for o in outputs {
        let name = o.path.display();
        let dir = o.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(format!("{name}: directory {} does not exist", dir.display()));
        }
        if o.path.is_dir() {
            return Err(format!("{name}: is a directory ({} needs a file name)", o.flag));
        }
        let ext = o.path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if !o.extensions.contains(&ext.as_str()) {
            let want: Vec<String> = o.extensions.iter().map(|e| format!(".{e}")).collect();
            let got = if ext.is_empty() { "no extension".to_string() } else { format!(".{ext}") };
            return Err(format!(
                "{name}: {} writes {} files, not {got}",
                o.flag,
                want.join(" or ")
            ));
        }
    }
    for (a, x) in outputs.iter().enumerate() {
        for y in &outputs[a + 1..] {
            if resolved(x.path) == resolved(y.path) {
                return Err(format!(
                    "{} and {} both write {}: give each output its own path",
                    x.flag,
                    y.flag,
                    x.path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Refuses an output that would replace one of the command's inputs.
pub fn not_an_input(flag: &str, out: &Path, inputs: &[&Path]) -> Result<(), String> {
    match inputs.iter().find(|i| resolved(i) == resolved(out)) {
        Some(i) => {
            Err(format!("{flag} {} would overwrite the input {}", out.display(), i.display()))
        }
        None => Ok(()),
    }
}

/// One line on stderr naming the files written and their sizes (nothing
/// when there were none).
pub fn report(paths: &[&Path]) {
    let parts: Vec<String> = paths
        .iter()
        .map(|p| match std::fs::metadata(p) {
            Ok(m) => format!("{} ({})", p.display(), widephase::voxel::budget::human(m.len())),
            Err(_) => p.display().to_string(),
        })
        .collect();
    if !parts.is_empty() {
        eprintln!("widephase: wrote {}", parts.join(", "));
    }
}
