//! What the operating system says about memory, for the tables that size themselves by it (the
//! transposition table, the perft table).

/// Memory available to new allocations, in MiB (Linux `MemAvailable`; `None` elsewhere).
pub fn available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
