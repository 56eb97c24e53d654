//! The browser tests (issue 67): `web/build.sh` builds the page into web/dist, then
//! tests/browser/run.py serves it on 127.0.0.1 and drives headless Chromium through Selenium:
//! the UCI worker in each of its modes (tests/browser/worker_tests.py lists every check), its
//! bench against the native signature. Skipped, saying so, where Chromium, ChromeDriver,
//! Selenium, python-chess or the WebAssembly target is missing (a failure under CI, whose
//! `.ci/run` installs them): `apt-get install chromium chromium-driver`, `pip install selenium
//! chess`, `rustup target add wasm32-unknown-unknown`.

use std::path::Path;
use std::process::Command;

mod common;

/// What the browser tests need that this machine lacks, if anything.
fn missing() -> Option<String> {
    // The same paths and variables as tests/browser/harness.py.
    for (program, variable, package) in [
        ("/usr/bin/chromium", "CORVID_CHROMIUM", "chromium"),
        ("/usr/bin/chromedriver", "CORVID_CHROMEDRIVER", "chromium-driver"),
    ] {
        let path = std::env::var(variable).unwrap_or(program.into());
        if !Path::new(&path).exists() {
            return Some(format!("{package} is not installed ({path})"));
        }
    }
    let python = Command::new("python3").args(["-c", "import selenium, chess"]).output();
    if !python.is_ok_and(|o| o.status.success()) {
        return Some("python3 cannot import selenium and chess".into());
    }
    let installed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    if !installed.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l == "wasm32-unknown-unknown")) {
        return Some("the wasm32-unknown-unknown target is not installed".into());
    }
    None
}

#[test]
fn the_page_and_its_worker_work_in_headless_chromium() {
    if let Some(why) = missing() {
        common::skip("the browser tests", &why);
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = Command::new("bash").current_dir(root).arg("web/build.sh").output().expect("bash runs");
    assert!(built.status.success(), "web/build.sh failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let signature = corvid::bench::bench(13).0;
    let out = Command::new("python3")
        .current_dir(root)
        .arg("tests/browser/run.py")
        .args(["--signature", &signature.to_string()])
        .output()
        .expect("python3 runs");
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{report}");
    assert!(out.status.success(), "the browser tests failed:\n{report}");
    assert!(report.contains("browser tests: 0 failures"), "{report}");
}
