//! The `bench` signature: the node count of `corvid bench` (depth 13 on its fixed positions),
//! which OpenBench reads to tell one search from another. It must equal the figure the README
//! gives for this source, so that a change of the search's output that was not meant (or not
//! written down) fails here instead of reaching OpenBench as a silent new signature.

mod common;

/// The figure after "Bench signature of this source:" in the README.
fn readme_signature() -> u64 {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let marker = "Bench signature of this source:";
    let at = readme.find(marker).expect("the README gives the bench signature") + marker.len();
    let digits: String =
        readme[at..].chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().expect("a number after the marker")
}

#[test]
fn bench_gives_the_signature_in_the_readme() {
    let (code, out, err) = common::run_corvid(&["bench"], "", None);
    assert_eq!(code, Some(0), "{err}");
    let last = out.lines().last().unwrap_or_default();
    let nodes: u64 = last.split_whitespace().next().and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{out}"));
    assert!(out.contains("depth 13"), "the signature is taken at the default depth: {out}");
    assert_eq!(
        nodes,
        readme_signature(),
        "`corvid bench` counts {nodes} nodes: a change of the search's output must carry its new \
         signature in the README (and `Bench: {nodes}` in its commit message)"
    );
}
