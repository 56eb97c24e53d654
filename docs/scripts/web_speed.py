#!/usr/bin/env python3
"""Corvid's speed in headless Chromium against the native build, side by side: `bench` (13, one
thread, 16 MB) alternately in the native binary and in the page's worker (shared-memory mode),
ROUNDS times; the medians and their ratio. Each round loads the page afresh and runs `bench`
twice there: the first ("cold") runs partly in V8's baseline code while its optimising compiler
catches up, the second ("warm") as a game's later moves run. Extra folders (built like web/dist,
for instance without SIMD) are measured in the same rounds. Run from the checkout with nothing
else running:

    python3 docs/scripts/web_speed.py target/release/corvid ROUNDS [web/dist [OTHER_DIST...]]
"""

import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "browser"))
import harness  # noqa: E402


def native(binary):
    last = subprocess.run([binary, "bench"], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    nodes, _, nps, _ = last.split()
    return int(nodes), int(nps)


def browser(driver, url):
    """(nodes, cold nodes a second, warm nodes a second) of a freshly loaded page."""
    driver.get(url)
    w = harness.Worker(driver)
    speeds = []
    for _ in range(2):
        w.send("bench")
        last = w.wait_for(lambda l: l.endswith(" nps"), 300, "the bench total")[-1]
        nodes, _, nps, _ = last.split()
        speeds.append(int(nps))
    return int(nodes), speeds[0], speeds[1]


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return
    if len(args) < 2 or not args[1].isdigit() or int(args[1]) < 1:
        sys.exit("usage: web_speed.py NATIVE_BINARY ROUNDS [DIST_FOLDER...] (--help says more)")
    if not os.path.isfile(args[0]):
        sys.exit(f"web_speed.py: {args[0]}: no such binary (build it with `cargo build --release`)")
    binary, rounds = args[0], int(args[1])
    folders = sys.argv[3:] or [harness.DIST]
    servers = [harness.serve.serve_in_background(os.path.abspath(f), isolated=True) for f in folders]
    driver = harness.chromium()
    speeds = {"native": []}
    for f in folders:
        speeds.update({f"{f} (cold)": [], f"{f} (warm)": []})
    try:
        for r in range(rounds):
            nodes, nps = native(binary)
            speeds["native"].append(nps)
            line = [f"round {r + 1}: native {nps} ({nodes} nodes)"]
            for folder, (_, url) in zip(folders, servers):
                nodes, cold, warm = browser(driver, url)
                speeds[f"{folder} (cold)"].append(cold)
                speeds[f"{folder} (warm)"].append(warm)
                line.append(f"{folder} {cold} then {warm} ({nodes} nodes)")
            print(", ".join(line), flush=True)
    finally:
        driver.quit()
    base = statistics.median(speeds["native"])
    for name, values in speeds.items():
        median = statistics.median(values)
        print(f"{name}: median {median:,.0f} nodes a second, {median / base:.3f} of native")


if __name__ == "__main__":
    main()
