//! Interrupted runs leave no temporary files: on SIGINT, SIGTERM or SIGHUP
//! a watcher thread removes the temporary files of the outputs being
//! written ([`formats::remove_temp_files`]) and exits with `128 + signal`,
//! the shell's convention. (The outputs are staged and renamed only when
//! complete, so an interrupted run also leaves no partial output.)

#[cfg(unix)]
use widephase::voxel::formats;

/// Starts the watcher thread (once per process; later calls do nothing).
#[cfg(unix)]
pub fn remove_temp_files_on_interrupt() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        // (registering fails only for forbidden signals, which these are not;
        // without the watcher the default action still ends the process)
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let n = formats::remove_temp_files();
                if n > 0 {
                    eprintln!("widephase: interrupted; removed {n} unfinished output file(s)");
                }
                std::process::exit(128 + sig);
            }
        });
    });
}

/// Elsewhere the default handling stays (no temporary-file cleanup).
#[cfg(not(unix))]
pub fn remove_temp_files_on_interrupt() {}
