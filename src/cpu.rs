//! What a build asks of the processor, and what this processor has.
//!
//! Release artefacts are built for the x86-64 micro-architecture levels (`x86-64` alone, `-v2`
//! with POPCNT and SSE4.2, `-v3` with AVX2 and BMI2; a processor with AVX-512, `-v4`, takes the
//! v3 file: see [`TOP_RELEASED`]), and the `v3` level also
//! with magic-multiplication sliders for the AMD processors whose `pext` is microcoded (before
//! Zen 3). A binary started on a processor without an instruction set it was compiled for would
//! die with SIGILL at the first such instruction and no word of why; [`check_or_exit`], the
//! first thing `main` does, compares the two and, where something is missing, names it and the
//! artefact to take instead, and exits with status 1.
//!
//! The check itself runs before any of the engine's code, and its failure path only hands byte
//! strings to the standard library (compiled for the baseline, whatever this crate is compiled
//! for), so it runs on the older processor it is meant for: `make release` starts each x86-64
//! artefact under `qemu-x86_64` with an older CPU model to prove it.

/// The x86-64 levels, lowest first: each level's name and the features it adds to the one below
/// (as `is_x86_feature_detected!` and `target_feature` spell them).
pub const LEVELS: [(&str, &[&str]); 4] = [
    ("x86-64", &[]),
    ("x86-64-v2", &["sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "cmpxchg16b"]),
    ("x86-64-v3", &["avx", "avx2", "bmi1", "bmi2", "fma", "lzcnt", "movbe", "f16c"]),
    ("x86-64-v4", &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]),
];

/// Hands the feature names, in [`NAMES`]' order, to macro `$then` (as literals: `cfg!` and
/// `is_x86_feature_detected!` take no constants), so the one list serves every use.
macro_rules! with_feature_names {
    ($then:ident) => {
        $then!(
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "cmpxchg16b",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "fma",
            "lzcnt",
            "movbe",
            "f16c",
            "avx512f",
            "avx512bw",
            "avx512cd",
            "avx512dq",
            "avx512vl",
            "avx512vnni",
            "avx512ifma",
            "avx512vbmi",
            "avx512vbmi2",
            "avx512bitalg",
            "avx512vpopcntdq"
        )
    };
}

macro_rules! names_array {
    ($($name:tt),*) => { [$($name),*] };
}

/// The features a level names, plus the AVX-512 extensions a native build on such a machine
/// also enables and the compiler may use in vectorised loops (VNNI's dot products, VPOPCNTDQ):
/// bit `i` of a mask is `NAMES[i]`. AES, CLMUL and GFNI, which `target-cpu=native` enables too,
/// are left out: nothing here is encryption or carry-less arithmetic, and asking for them would
/// refuse a native build under valgrind, whose processor lacks them.
pub const NAMES: [&str; 25] = with_feature_names!(names_array);

/// Each level's mask over [`NAMES`], the levels named in [`LEVELS`] (a test checks the two agree).
const LEVEL_MASKS: [u64; 4] = [0, 0x3F, 0x3FC0, 0x7_C000];

/// The features this build was compiled for (empty off x86-64, where the target's baseline, NEON
/// on aarch64, is all a build asks for).
#[cfg(target_arch = "x86_64")]
pub const BUILT: u64 = {
    macro_rules! built {
        ($($name:tt),*) => {{
            let on = [$(cfg!(target_feature = $name)),*];
            let mut mask = 0u64;
            let mut i = 0;
            while i < on.len() {
                mask |= (on[i] as u64) << i;
                i += 1;
            }
            mask
        }};
    }
    with_feature_names!(built)
};
#[cfg(not(target_arch = "x86_64"))]
pub const BUILT: u64 = 0;

/// The features this processor has and the system lets programs use, read from `cpuid` and
/// `xgetbv` directly (the standard library's detection is compiled with the build's features, and
/// this runs before anything else, on processors that may lack them).
#[cfg(target_arch = "x86_64")]
pub fn present() -> u64 {
    // Which register and bit of `cpuid` says each feature is there, in NAMES' order: leaf 1's ECX,
    // leaf 7's EBX and ECX, leaf 0x8000_0001's ECX. The bits are gathered in assembly: written as
    // Rust, the compiler gathered them in vector registers (with AVX, on a processor that may
    // have none).
    macro_rules! gather {
        ($($index:literal: $reg:literal $bit:literal),* $(,)?) => {
            concat!($("bt ", $reg, ", ", $bit, "\n", "jnc 2f\n", "bts r13, ", $index, "\n", "2:\n"),*)
        };
    }
    let c1: u64;
    let raw: u64;
    // SAFETY: `cpuid` exists on every x86-64 processor; leaf 0 (and 0x8000_0000) give the highest
    // leaf of each range, and leaves above them are not read. RBX, which cpuid writes and the
    // compiler reserves, is kept in RDI meanwhile; every register written is named (none is left
    // to the compiler's choice, which may be RBX). No memory is touched.
    unsafe {
        std::arch::asm!(
            "mov rdi, rbx",
            "xor eax, eax",
            "xor ecx, ecx",
            "cpuid",
            "mov r8d, eax",
            "mov eax, 0x80000000",
            "xor ecx, ecx",
            "cpuid",
            "mov r9d, eax",
            "mov eax, 1",
            "xor ecx, ecx",
            "cpuid",
            "mov r10d, ecx",
            "xor r11d, r11d",
            "xor esi, esi",
            "cmp r8d, 7",
            "jb 3f",
            "mov eax, 7",
            "xor ecx, ecx",
            "cpuid",
            "mov r11d, ebx",
            "mov esi, ecx",
            "3:",
            "xor r12d, r12d",
            "cmp r9d, 0x80000001",
            "jb 4f",
            "mov eax, 0x80000001",
            "xor ecx, ecx",
            "cpuid",
            "mov r12d, ecx",
            "4:",
            "mov rbx, rdi",
            "xor r13d, r13d",
            gather!(
                0: "r10d" 0, 1: "r10d" 9, 2: "r10d" 19, 3: "r10d" 20, 4: "r10d" 23, 5: "r10d" 13, // sse3 .. cmpxchg16b
                6: "r10d" 28, 7: "r11d" 5, 8: "r11d" 3, 9: "r11d" 8, 10: "r10d" 12, 11: "r12d" 5, // avx .. lzcnt
                12: "r10d" 22, 13: "r10d" 29, // movbe, f16c
                14: "r11d" 16, 15: "r11d" 30, 16: "r11d" 28, 17: "r11d" 17, 18: "r11d" 31, // avx512f, bw, cd, dq, vl
                19: "esi" 11, 20: "r11d" 21, 21: "esi" 1, 22: "esi" 6, 23: "esi" 12, 24: "esi" 14, // vnni .. vpopcntdq
            ),
            out("rax") _,
            out("rcx") _,
            out("rdx") _,
            out("rsi") _,
            out("rdi") _,
            out("r8") _,
            out("r9") _,
            out("r10") c1,
            out("r11") _,
            out("r12") _,
            out("r13") raw,
            options(nomem, nostack),
        );
    }
    // The registers the system saves on a switch (XCR0): AVX needs the SSE and AVX states (bits
    // 1, 2), AVX-512 also the opmask and upper-register states (bits 5-7).
    let xcr0 = if c1 >> 27 & 1 == 1 {
        let (lo, hi): (u32, u32);
        // SAFETY: `xgetbv` with ECX 0 is defined where CPUID.1:ECX.OSXSAVE (bit 27) is set, as
        // checked; it reads a register and touches no memory.
        unsafe {
            std::arch::asm!("xgetbv", in("ecx") 0, out("eax") lo, out("edx") hi, options(nomem, nostack, preserves_flags))
        };
        (hi as u64) << 32 | lo as u64
    } else {
        0
    };
    // avx, avx2, fma, f16c need the AVX state; AVX-512's parts their own.
    const NEEDS_AVX: u64 = 1 << 6 | 1 << 7 | 1 << 10 | 1 << 13;
    const NEEDS_AVX512: u64 = 0x7FF << 14;
    let avx = xcr0 & 0b110 == 0b110;
    let avx512 = avx && xcr0 & 0xE0 == 0xE0;
    let mut mask = raw;
    if !avx {
        mask &= !NEEDS_AVX;
    }
    if !avx512 {
        mask &= !NEEDS_AVX512;
    }
    mask
}
#[cfg(not(target_arch = "x86_64"))]
pub fn present() -> u64 {
    0
}

/// The mask of a list of names.
#[cfg(all(test, target_arch = "x86_64"))]
fn mask_of(names: &[&str]) -> u64 {
    names.iter().map(|n| NAMES.iter().position(|x| x == n).map_or(0, |i| 1u64 << i)).fold(0, |a, b| a | b)
}

/// The highest level all of whose features are in `mask` (`None` off x86-64).
pub fn level_of(mask: u64) -> Option<&'static str> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    let mut need = 0;
    let mut level = LEVELS[0].0;
    for i in 1..LEVELS.len() {
        need |= LEVEL_MASKS[i];
        if mask & need != need {
            break;
        }
        level = LEVELS[i].0;
    }
    Some(level)
}

/// Whether this processor's `pext` is microcoded (AMD before Zen 3: CPU family 0x15 to 0x18),
/// where magic multiplication is three times faster.
#[cfg(target_arch = "x86_64")]
pub fn slow_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: `cpuid` exists on every x86-64 processor, and leaves 0 and 1 are always defined
    // (the intrinsic is safe from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    // "AuthenticAMD" in EBX, EDX, ECX.
    let amd = (leaf0.ebx, leaf0.edx, leaf0.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
    let base = (leaf1.eax >> 8) & 0xF;
    let family = if base == 0xF { base + ((leaf1.eax >> 20) & 0xFF) } else { base };
    amd && family < 0x19
}

#[cfg(not(target_arch = "x86_64"))]
pub fn slow_pext() -> bool {
    false
}

/// The system part of an artefact's name.
pub const SYSTEM: &str = if cfg!(target_os = "windows") {
    "windows"
} else if cfg!(target_os = "macos") {
    "macos"
} else {
    "linux"
};

/// The level part of an artefact's name: the level, `-magic` where `magic`; the architecture off
/// x86-64.
fn level_name(level: Option<&str>, magic: bool) -> String {
    match level {
        Some(l) => format!("{l}{}", if magic { "-magic" } else { "" }),
        None => std::env::consts::ARCH.to_string(),
    }
}

/// The highest level a release artefact is built for. An AVX-512 build (x86-64-v4) measured no
/// faster than the v3 one on AVX-512 processors (an Intel Xeon and an AMD Zen 4, bench 3% and
/// 4% slower; docs/build.md), so v4 processors take the v3 file.
pub const TOP_RELEASED: &str = "x86-64-v3";

/// The level of the release artefact for a processor of `level`: the level itself, or
/// [`TOP_RELEASED`] above it.
pub fn released(level: Option<&str>) -> Option<&str> {
    let rank = |l: &str| LEVELS.iter().position(|(name, _)| *name == l);
    match level {
        Some(l) if rank(l) > rank(TOP_RELEASED) => Some(TOP_RELEASED),
        other => other,
    }
}

/// The name of the release artefact for a processor of `level`: `corvid-linux-x86-64-v3-magic`.
/// Names carry no version, so that a link to the latest release's file keeps working.
pub fn artefact(level: Option<&str>, magic: bool) -> String {
    let exe = if cfg!(target_os = "windows") { ".exe" } else { "" };
    format!("corvid-{SYSTEM}-{}{exe}", level_name(released(level), magic))
}

/// The level this build was compiled for, and whether its sliders are magic where its level
/// allows `pext` (the `-magic` artefacts).
pub fn build_level() -> (Option<&'static str>, bool) {
    (level_of(BUILT), cfg!(target_feature = "bmi2") && !cfg!(corvid_pext))
}

/// The level this processor supports, and whether it should take the magic sliders.
pub fn cpu_level() -> (Option<&'static str>, bool) {
    let level = level_of(present());
    (level, level.is_some_and(|l| l == "x86-64-v3") && slow_pext())
}

/// What `corvid --version` adds: the level built for and how (`target-cpu=...`, profile-guided
/// or not), and the level and artefact this processor should run.
pub fn describe() -> String {
    let (built, magic) = build_level();
    let how = match env!("CORVID_TARGET_CPU") {
        "" => String::new(),
        cpu => format!(", target-cpu={cpu}"),
    };
    let pgo = if env!("CORVID_PGO") == "1" { ", profile-guided" } else { "" };
    let (cpu, cpu_magic) = cpu_level();
    format!(
        "built for {}{how}{pgo}\nthis CPU: {} (release artefact {})",
        level_name(built, magic),
        level_name(cpu, cpu_magic),
        artefact(cpu, cpu_magic)
    )
}

/// Exits with status 1 and a message naming what is missing, and the artefact to take, if this
/// processor lacks an instruction set this build was compiled for. The binary runs it as a
/// constructor, before the standard library's start-up code (which the link-time optimisation
/// compiles with the build's features); it does integer work on two masks and hands constant
/// byte strings to the C library's `write` (Windows: `WriteFile`), so that no instruction of the
/// missing sets runs before it has spoken.
#[inline(never)]
pub fn check_or_exit() {
    let missing = BUILT & !present();
    if missing != 0 {
        refuse(missing);
    }
}

#[cold]
#[inline(never)]
fn refuse(missing: u64) -> ! {
    let level = released(level_of(present()));
    let magic = level == Some("x86-64-v3") && slow_pext();
    raw::put("corvid: this binary is built for ");
    raw::put(level_of(BUILT).unwrap_or(std::env::consts::ARCH));
    raw::put(" and this CPU lacks");
    let mut sep = " ";
    for (i, name) in NAMES.iter().enumerate() {
        if missing >> i & 1 != 0 {
            raw::put(sep);
            raw::put(name);
            sep = ", ";
        }
    }
    raw::put(".\ncorvid: take the release artefact corvid-");
    raw::put(SYSTEM);
    raw::put("-");
    raw::put(level.unwrap_or(std::env::consts::ARCH));
    if magic {
        raw::put("-magic");
    }
    if cfg!(target_os = "windows") {
        raw::put(".exe");
    }
    raw::put(" instead, or build for this CPU from the source with `make`.\n");
    raw::exit(1)
}

/// Standard error and exit through the system's C library alone, usable before `main`.
#[cfg(unix)]
mod raw {
    pub fn put(text: &str) {
        let mut bytes = text.as_bytes();
        while !bytes.is_empty() {
            // SAFETY: `bytes` is a live slice; `write` reads at most its length from it.
            let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
            if n <= 0 {
                return;
            }
            bytes = &bytes[n as usize..];
        }
    }

    pub fn exit(code: i32) -> ! {
        // SAFETY: `_exit` ends the process at once; nothing of ours is left half done.
        unsafe { libc::_exit(code) }
    }
}

#[cfg(windows)]
mod raw {
    use windows_sys::Win32::Storage::FileSystem::WriteFile;
    use windows_sys::Win32::System::Console::{GetStdHandle, STD_ERROR_HANDLE};

    pub fn put(text: &str) {
        let mut written = 0u32;
        // SAFETY: the handle is the process's standard error (or null or invalid, which WriteFile
        // refuses); `text` is live for the call and its length fits in u32 (a constant message).
        unsafe {
            WriteFile(
                GetStdHandle(STD_ERROR_HANDLE),
                text.as_ptr(),
                text.len() as u32,
                &mut written,
                std::ptr::null_mut(),
            )
        };
    }

    pub fn exit(code: i32) -> ! {
        // SAFETY: ends the process; called before anything of ours has started.
        unsafe { windows_sys::Win32::System::Threading::ExitProcess(code as u32) }
    }
}

#[cfg(not(any(unix, windows)))]
mod raw {
    pub fn put(text: &str) {
        eprint!("{text}");
    }

    pub fn exit(code: i32) -> ! {
        std::process::exit(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn levels_are_named_by_the_highest_complete_set() {
        let v2 = mask_of(LEVELS[1].1);
        let v3 = v2 | mask_of(LEVELS[2].1);
        let v4 = v3 | mask_of(LEVELS[3].1);
        assert_eq!(level_of(0), Some("x86-64"));
        assert_eq!(level_of(v2), Some("x86-64-v2"));
        assert_eq!(level_of(v3), Some("x86-64-v3"));
        assert_eq!(level_of(v4 | mask_of(&["avx512vnni"])), Some("x86-64-v4"));
        // v3's features without POPCNT (a v2 feature): still the baseline.
        assert_eq!(level_of(v3 & !mask_of(&["popcnt"])), Some("x86-64"));
        // AVX-512 on top of v2 alone does not make v4; v4 less one AVX-512 part is v3.
        assert_eq!(level_of(v2 | mask_of(LEVELS[3].1)), Some("x86-64-v2"));
        assert_eq!(level_of(v4 & !mask_of(&["avx512vl"])), Some("x86-64-v3"));
        // Every level's name is a name of NAMES (a misspelt one would count as never present).
        for (_, adds) in LEVELS {
            assert_eq!(mask_of(adds).count_ones() as usize, adds.len(), "{adds:?}");
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_masks_read_what_the_compiler_and_the_standard_library_read() {
        for (i, mask) in LEVEL_MASKS.iter().enumerate() {
            assert_eq!(*mask, mask_of(LEVELS[i].1), "{}", LEVELS[i].0);
        }
        // Bit by bit, the compiler's features and std's run-time detection, by name.
        macro_rules! each {
            ($($name:tt),*) => {$(
                let i = NAMES.iter().position(|n| *n == $name).unwrap();
                assert_eq!(BUILT >> i & 1 == 1, cfg!(target_feature = $name), "built {}", $name);
                assert_eq!(present() >> i & 1 == 1, std::arch::is_x86_feature_detected!($name), "present {}", $name);
            )*};
        }
        with_feature_names!(each);
        assert_eq!(NAMES.len(), 25);
    }

    #[test]
    fn this_cpu_runs_this_test_build() {
        // The tests run on the machine they were built for: nothing may be missing, and the
        // processor's level is at least the build's.
        assert_eq!(BUILT & !present(), 0);
        let order = |l: Option<&str>| LEVELS.iter().position(|(n, _)| Some(*n) == l);
        assert!(order(cpu_level().0) >= order(build_level().0));
    }

    #[test]
    fn artefacts_are_named_system_level_without_the_version() {
        let exe = if cfg!(windows) { ".exe" } else { "" };
        assert_eq!(artefact(Some("x86-64-v3"), true), format!("corvid-{SYSTEM}-x86-64-v3-magic{exe}"));
        assert_eq!(artefact(Some("x86-64"), false), format!("corvid-{SYSTEM}-x86-64{exe}"));
        // No file is built above v3: an AVX-512 processor takes the v3 one.
        assert_eq!(artefact(Some("x86-64-v4"), false), format!("corvid-{SYSTEM}-x86-64-v3{exe}"));
        assert_eq!(released(Some("x86-64-v4")), Some("x86-64-v3"));
        assert_eq!(released(Some("x86-64-v2")), Some("x86-64-v2"));
        assert_eq!(released(None), None);
        assert_eq!(artefact(None, false), format!("corvid-{SYSTEM}-{}{exe}", std::env::consts::ARCH));
    }
}
