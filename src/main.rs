//! The `corvid` binary: a thin shell over the library's command line.

fn main() {
    std::process::exit(corvid::cli::main(std::env::args().skip(1).collect()));
}

/// Before anything else, the standard library's start-up included (the link-time optimisation
/// compiles it with this build's instruction sets): a processor without one of them gets a
/// message naming it and the release artefact to take, and status 1, instead of SIGILL. A
/// constructor of the lowest priority number runs before the standard library's own (00099).
#[cfg(target_arch = "x86_64")]
#[used]
#[cfg_attr(
    any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd"
    ),
    link_section = ".init_array.00050"
)]
#[cfg_attr(windows, link_section = ".CRT$XCB")]
#[cfg_attr(target_vendor = "apple", link_section = "__DATA,__mod_init_func")]
static CHECK_CPU: extern "C" fn() = check_cpu;

#[cfg(target_arch = "x86_64")]
extern "C" fn check_cpu() {
    corvid::cpu::check_or_exit();
}
