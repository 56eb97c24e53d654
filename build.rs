//! Build script: generates every attack table the engine looks up, as `static` arrays in
//! `$OUT_DIR/tables.rs`.
//!
//! * Slider tables: for each square a relevant-occupancy mask and an attack table slice, indexed by
//!   `pext(occupied, mask)` where `pext` is fast (see [`choose_lookup`]), otherwise by the
//!   plain-magic index `((occupied & mask) * magic) >> shift`. Magic numbers are searched with a
//!   fixed-seed generator, so every build produces identical tables. The choice reaches the crate
//!   as `cfg(corvid_pext)`.
//! * Leaper tables (knight, king, pawn captures) and the `BETWEEN` ray table.
//! * The network to embed, copied to `$OUT_DIR/corvid.nnue`: `src/nnue/corvid.nnue`, or the file
//!   named by the `CORVID_EVALFILE` environment variable (the Makefile's `EVALFILE=`, as
//!   OpenBench passes networks under test). Its header and size are checked here, so a wrong file
//!   fails the build instead of the engine; `$OUT_DIR/network.rs` gives its hidden size to the
//!   crate, whose layers take that width.
//!
//! The script is hermetic: no network access, nothing written outside `OUT_DIR`, and the target's
//! features are read from `CARGO_CFG_TARGET_FEATURE` (never from `cfg!`, which describes the host).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn sq(file: i32, rank: i32) -> Option<usize> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| (rank * 8 + file) as usize)
}

/// Attacks of a slider on `square` along `dirs`, stopping at (and including) the first blocker.
fn slider_attacks(square: usize, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((square % 8) as i32, (square / 8) as i32);
    let mut attacks = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while let Some(s) = sq(f, r) {
            attacks |= 1 << s;
            if occupied & (1 << s) != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    attacks
}

/// Squares whose occupancy matters for a slider on `square`: the rays without their last square.
fn relevant_mask(square: usize, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((square % 8) as i32, (square / 8) as i32);
    let mut mask = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while sq(f + df, r + dr).is_some() {
            mask |= 1 << sq(f, r).unwrap();
            f += df;
            r += dr;
        }
    }
    mask
}

/// Software `pext`: gathers the bits of `value` selected by `mask` into the low bits.
fn pext(value: u64, mut mask: u64) -> u64 {
    let mut result = 0u64;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value & low != 0 {
            result |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    result
}

/// xorshift64*: small, fast, and fixed-seeded so the magics are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Sparse random numbers make good magic candidates.
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

struct SliderTable {
    masks: [u64; 64],
    magics: [u64; 64],
    shifts: [u32; 64],
    offsets: [usize; 64],
}

/// Builds the tables for one slider kind and appends its attacks to `attacks`.
fn build_slider(dirs: &[(i32, i32)], rng: &mut Rng, use_pext: bool, attacks: &mut Vec<u64>) -> SliderTable {
    let mut table = SliderTable { masks: [0; 64], magics: [0; 64], shifts: [0; 64], offsets: [0; 64] };
    for square in 0..64 {
        let mask = relevant_mask(square, dirs);
        let bits = mask.count_ones();
        let size = 1usize << bits;
        // Enumerate every subset of the mask (Carry-Rippler) with its true attack set.
        let mut occupancies = Vec::with_capacity(size);
        let mut subset = 0u64;
        loop {
            occupancies.push((subset, slider_attacks(square, subset, dirs)));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let offset = attacks.len();
        attacks.resize(offset + size, 0);
        let shift = 64 - bits;
        let magic = if use_pext {
            for &(occ, att) in &occupancies {
                attacks[offset + pext(occ, mask) as usize] = att;
            }
            0
        } else {
            let mut used = vec![0u64; size];
            let mut epoch = vec![0u32; size];
            let mut attempt = 0u32;
            loop {
                let magic = rng.sparse();
                if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                    continue;
                }
                attempt += 1;
                let ok = occupancies.iter().all(|&(occ, att)| {
                    let index = ((occ & mask).wrapping_mul(magic) >> shift) as usize;
                    if epoch[index] != attempt {
                        epoch[index] = attempt;
                        used[index] = att;
                        true
                    } else {
                        used[index] == att
                    }
                });
                if ok {
                    attacks[offset..offset + size].copy_from_slice(&used);
                    // Entries never written are unreachable; copy from `used` only where set.
                    for (i, slot) in attacks[offset..offset + size].iter_mut().enumerate() {
                        if epoch[i] != attempt {
                            *slot = 0;
                        }
                    }
                    break magic;
                }
            }
        };
        table.masks[square] = mask;
        table.magics[square] = magic;
        table.shifts[square] = shift;
        table.offsets[square] = offset;
    }
    table
}

fn leaper(square: usize, deltas: &[(i32, i32)]) -> u64 {
    let (f, r) = ((square % 8) as i32, (square / 8) as i32);
    deltas.iter().filter_map(|&(df, dr)| sq(f + df, r + dr)).fold(0, |bb, s| bb | 1 << s)
}

fn write_array(out: &mut String, name: &str, ty: &str, values: &[u64]) {
    writeln!(out, "pub static {name}: [{ty}; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(8) {
        out.push_str("    ");
        for v in chunk {
            write!(out, "0x{v:016X}, ").unwrap();
        }
        out.push('\n');
    }
    out.push_str("];\n\n");
}

fn write_slider(out: &mut String, name: &str, t: &SliderTable) {
    writeln!(out, "pub static {name}: [SliderEntry; 64] = [").unwrap();
    for s in 0..64 {
        writeln!(
            out,
            "    SliderEntry {{ mask: 0x{:016X}, magic: 0x{:016X}, shift: {}, offset: {} }},",
            t.masks[s], t.magics[s], t.shifts[s], t.offsets[s]
        )
        .unwrap();
    }
    out.push_str("];\n\n");
}

/// How the slider tables are indexed, and why: `(use_pext, reason)`.
///
/// `pext` needs BMI2, and is fast only where it is implemented in hardware: Intel from Haswell
/// and AMD from Zen 3. AMD's earlier BMI2 processors (Excavator, Zen 1 and Zen 2, CPU family
/// 0x15 to 0x18) microcode it at hundreds of cycles, and there plain magics are three times
/// faster. A build for the building machine (`-C target-cpu=native`) asks that CPU with `cpuid`;
/// a build for a named CPU or feature list judges by its features: AMD's `sse4a` without the
/// Zen 3 `vaes` marks the slow `pext`. `CORVID_PEXT=1` or `0` overrides the choice (`1` only
/// with BMI2 enabled).
fn choose_lookup() -> (bool, String) {
    println!("cargo:rerun-if-env-changed=CORVID_PEXT");
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |name: &str| features.split(',').any(|f| f == name);
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    if !x86_64 || !has("bmi2") {
        return (false, "no BMI2 in the target features".into());
    }
    match env::var("CORVID_PEXT").as_deref() {
        Ok("1" | "yes" | "on" | "true") => return (true, "CORVID_PEXT=1".into()),
        Ok("0" | "no" | "off" | "false") => return (false, "CORVID_PEXT=0".into()),
        Ok("") | Err(_) => {}
        Ok(other) => println!("cargo:warning=CORVID_PEXT='{other}' is not 0 or 1; ignored"),
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let native = flags.split('\x1f').any(|f| f.ends_with("target-cpu=native"));
    let same_machine = env::var("HOST").ok() == env::var("TARGET").ok();
    if native && same_machine {
        if let Some((vendor, family)) = host_cpu() {
            let slow = vendor == "AuthenticAMD" && family < 0x19;
            let what = format!("{vendor} family 0x{family:x}");
            return if slow {
                (false, format!("{what}: pext is microcoded there"))
            } else {
                (true, format!("{what}: pext in hardware"))
            };
        }
    }
    if has("sse4a") && !has("vaes") {
        (false, "AMD features before Zen 3 (sse4a without vaes): pext is microcoded there".into())
    } else {
        (true, "BMI2 target features".into())
    }
}

/// Tells the crate how it is compiled, for `corvid --version`: `CORVID_TARGET_CPU` (the
/// `-C target-cpu` asked for, if any) and `CORVID_PGO=1` for a profile-guided build.
fn describe_flags() {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    let mut cpu = "";
    let mut pgo = false;
    for (i, flag) in flags.iter().enumerate() {
        // `-C target-cpu=x` comes as one flag or two (`-C`, `target-cpu=x`), `-Ctarget-cpu=x` as one.
        let flag = flag.trim_start_matches("-C");
        let next = flags.get(i + 1).copied().unwrap_or("");
        let option = if flag.is_empty() { next } else { flag };
        if let Some(value) = option.strip_prefix("target-cpu=") {
            cpu = value;
        }
        pgo |= option.starts_with("profile-use=");
    }
    println!("cargo:rustc-env=CORVID_TARGET_CPU={cpu}");
    println!("cargo:rustc-env=CORVID_PGO={}", if pgo { "1" } else { "0" });
}

/// The building CPU's vendor and (extended) family, from `cpuid`.
#[cfg(target_arch = "x86_64")]
fn host_cpu() -> Option<(String, u32)> {
    use std::arch::x86_64::__cpuid;
    // SAFETY: `cpuid` exists on every x86_64 processor; leaves 0 and 1 are always defined (the
    // intrinsic is safe from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    let vendor: Vec<u8> = [leaf0.ebx, leaf0.edx, leaf0.ecx].iter().flat_map(|r| r.to_le_bytes()).collect();
    let base = (leaf1.eax >> 8) & 0xF;
    let family = if base == 0xF { base + ((leaf1.eax >> 20) & 0xFF) } else { base };
    Some((String::from_utf8_lossy(&vendor).into_owned(), family))
}

#[cfg(not(target_arch = "x86_64"))]
fn host_cpu() -> Option<(String, u32)> {
    None
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(corvid_pext)");
    let (use_pext, reason) = choose_lookup();
    describe_flags();
    if use_pext {
        println!("cargo:rustc-cfg=corvid_pext");
    }
    // WebAssembly's stack is 1 MiB unless the linker is told otherwise. A search frame holds
    // move lists sized for any position a board editor makes (682 moves, movelist.rs), and the
    // search can be 128 plies deep: 4 MiB leaves room.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size=4194304");
    }

    let mut rng = Rng(0x00C0_2B1D_5EED_0001);
    let mut attacks = Vec::new();
    let rook = build_slider(&ROOK_DIRS, &mut rng, use_pext, &mut attacks);
    let bishop = build_slider(&BISHOP_DIRS, &mut rng, use_pext, &mut attacks);

    let mut out = String::with_capacity(4 << 20);
    writeln!(out, "// Generated by build.rs; indexing: {}.\n", if use_pext { "pext" } else { "magic" }).unwrap();
    writeln!(out, "/// Whether the slider tables are indexed by `pext` (else by magic multiplication).").unwrap();
    writeln!(out, "pub const PEXT_TABLES: bool = {use_pext};\n").unwrap();
    writeln!(out, "/// Why the build chose that lookup.").unwrap();
    writeln!(out, "pub const LOOKUP_REASON: &str = {reason:?};\n").unwrap();
    write_slider(&mut out, "ROOK_TABLE", &rook);
    write_slider(&mut out, "BISHOP_TABLE", &bishop);
    write_array(&mut out, "SLIDER_ATTACKS", "u64", &attacks);

    let knight: Vec<u64> =
        (0..64).map(|s| leaper(s, &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])).collect();
    let king: Vec<u64> =
        (0..64).map(|s| leaper(s, &[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])).collect();
    let mut pawn = Vec::with_capacity(128);
    pawn.extend((0..64).map(|s| leaper(s, &[(-1, 1), (1, 1)])));
    pawn.extend((0..64).map(|s| leaper(s, &[(-1, -1), (1, -1)])));
    let rook_rays: Vec<u64> = (0..64).map(|s| slider_attacks(s, 0, &ROOK_DIRS)).collect();
    let bishop_rays: Vec<u64> = (0..64).map(|s| slider_attacks(s, 0, &BISHOP_DIRS)).collect();
    write_array(&mut out, "ROOK_RAYS", "u64", &rook_rays);
    write_array(&mut out, "BISHOP_RAYS", "u64", &bishop_rays);
    write_array(&mut out, "KNIGHT_ATTACKS", "u64", &knight);
    write_array(&mut out, "KING_ATTACKS", "u64", &king);
    write_array(&mut out, "PAWN_ATTACKS", "u64", &pawn);

    // BETWEEN[a * 64 + b]: squares strictly between two aligned squares.
    let mut between = vec![0u64; 64 * 64];
    for a in 0..64 {
        for b in 0..64 {
            if a == b {
                continue;
            }
            for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
                if slider_attacks(a, 0, dirs) & (1 << b) != 0 {
                    between[a * 64 + b] = slider_attacks(a, 1 << b, dirs) & slider_attacks(b, 1 << a, dirs);
                }
            }
        }
    }
    write_array(&mut out, "BETWEEN", "u64", &between);

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out_dir.join("tables.rs"), out).expect("write tables.rs");
    embed_network(&out_dir);
}

/// The network file's format, the engine's own: header, size and value ranges.
#[path = "src/nnue/format.rs"]
#[allow(dead_code)]
mod format;

/// Checks the network to embed and copies it into `out_dir`, with its hidden size beside it.
fn embed_network(out_dir: &std::path::Path) {
    println!("cargo:rerun-if-env-changed=CORVID_EVALFILE");
    println!("cargo:rerun-if-changed=src/nnue/format.rs");
    let path = match env::var("CORVID_EVALFILE") {
        Ok(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("src/nnue/corvid.nnue"),
    };
    println!("cargo:rerun-if-changed={}", path.display());
    let bytes = fs::read(&path).unwrap_or_else(|e| panic!("network {}: {e}", path.display()));
    let hidden = match format::check(&bytes) {
        Ok(header) => header.hidden,
        Err(why) => panic!("network {}: {why}", path.display()),
    };
    fs::write(out_dir.join("corvid.nnue"), &bytes).expect("write corvid.nnue");
    fs::write(
        out_dir.join("network.rs"),
        format!(
            "// Generated by build.rs from {}.\npub const EMBEDDED_HIDDEN: usize = {hidden};\npub const BUILD_COMMIT: &str = {:?};\n",
            path.display(),
            build_commit()
        ),
    )
    .expect("write network.rs");
}

/// The commit being built, for data manifests: `git rev-parse --short=12 HEAD` where the source
/// is a git checkout with git installed, else `unknown` (a crate tarball, no git).
fn build_commit() -> String {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    for watched in [".git/HEAD", ".git/refs/heads"] {
        if dir.join(watched).exists() {
            println!("cargo:rerun-if-changed={}", dir.join(watched).display());
        }
    }
    std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}
