//! The `corvid` binary: a thin shell over the library's command line.

fn main() {
    std::process::exit(corvid::cli::main(std::env::args().skip(1).collect()));
}
