//! `--max-memory`: a job's peak memory is estimated before it starts, and a
//! job above the limit is refused with what it needs and what to change.
//! The default limit is the memory available right now (`MemAvailable` of
//! `/proc/meminfo`, Linux) plus what the process already holds; without
//! `/proc` there is no default limit.

/// Parses a size: a number of bytes with an optional binary unit
/// (`K`, `M`, `G`, `T`, optionally followed by `iB` or `B`; `2G` is 2 GiB),
/// fractions allowed (`1.5G`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(format!("{s:?} is not a size (examples: 512M, 2G, 1.5G, 1000000)")),
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (examples: 512M, 2G, 1.5G, 1000000)"))?;
    let bytes = x * scale as f64;
    if !(bytes >= 1.0 && bytes < 2f64.powi(63)) {
        return Err(format!("{s:?} is out of range: give at least 1 byte"));
    }
    Ok(bytes as u64)
}

/// `bytes` for people: `1.5 GiB`, `300 MiB`, `12 KiB`.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.0} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.0} KiB", (b / 1024.0).ceil())
    }
}

fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(file).ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024)
}

/// The process's resident set size now (0 where `/proc` is missing).
pub fn resident() -> u64 {
    proc_kib("/proc/self/status", "VmRSS:").unwrap_or(0)
}

/// The default limit: memory available now plus what the process holds.
pub fn default_limit() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:").map(|a| a + resident())
}

/// Refuses a job whose estimated peak (`needed` bytes, including what the
/// process already holds) is above the limit: `--max-memory` if given,
/// else [`default_limit`]. `advice` says what would make the job smaller.
pub fn check(needed: u64, max_memory: Option<u64>, advice: &str) -> Result<(), String> {
    let (limit, source) = match max_memory {
        Some(m) => (m, format!("--max-memory {}", human(m))),
        None => match default_limit() {
            Some(l) => (l, format!("the available memory, {}", human(l))),
            None => return Ok(()),
        },
    };
    if needed > limit {
        return Err(format!(
            "this job needs about {} of memory, more than {source}; {advice}, or raise --max-memory if the estimate is too cautious",
            human(needed)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in ["", "G", "2X", "-1G", "0", "1e9", "nan"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}
