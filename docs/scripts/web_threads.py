#!/usr/bin/env python3
"""Threads in the browser against native, side by side (issue 81, item 12): for each position,
`ucinewgame` then `go depth DEPTH` with 1 and with 2 threads, in the page's worker (cross-origin
isolated: the threaded module) and in the native binary, alternately, ROUNDS times; the median
time to the depth and nodes a second of each. Run from the checkout, `make web` done, with
nothing else running:

    python3 docs/scripts/web_threads.py target/release/corvid [ROUNDS] [DEPTH]
"""

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "browser"))
import harness  # noqa: E402

POSITIONS = [
    "startpos",
    "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
]


def parse(lines):
    """(milliseconds, nodes) of the search's last report."""
    last = [l for l in lines if " nodes " in l and " time " in l][-1].split()
    return int(last[last.index("time") + 1]), int(last[last.index("nodes") + 1])


class Native:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def until(self, start):
        lines = []
        while True:
            line = self.p.stdout.readline().strip()
            lines.append(line)
            if line.startswith(start):
                return lines

    def search(self, threads, position, depth):
        self.send(f"setoption name Threads value {threads}")
        self.send("ucinewgame")
        self.send("isready")
        self.until("readyok")
        self.send(f"position {position}")
        self.send(f"go depth {depth}")
        return parse(self.until("bestmove"))


class Browser:
    def __init__(self, driver):
        self.w = harness.Worker(driver)
        self.w.send("uci")
        self.w.wait_for(lambda l: l == "uciok", 30, "uciok")

    def search(self, threads, position, depth):
        self.w.send(f"setoption name Threads value {threads}")
        self.w.send("ucinewgame")
        self.w.send("isready")
        self.w.wait_for(lambda l: l == "readyok", 30, "readyok")
        self.w.send(f"position {position}")
        self.w.send(f"go depth {depth}")
        return parse(self.w.wait_for(lambda l: l.startswith("bestmove"), 600, "bestmove"))


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return
    binary = args[0]
    rounds = int(args[1]) if len(args) > 1 else 3
    depth = int(args[2]) if len(args) > 2 else 16
    server, url = harness.serve.serve_in_background(harness.DIST, isolated=True)
    driver = harness.chromium()
    try:
        driver.get(url)
        cores = driver.execute_script("return navigator.hardwareConcurrency")
        browser, native = Browser(driver), Native(binary)
        runs = {}
        for r in range(rounds):
            for threads in (1, 2):
                for name, engine in (("native", native), ("browser", browser)):
                    total_ms, total_nodes = 0, 0
                    for position in POSITIONS:
                        ms, nodes = engine.search(threads, position, depth)
                        total_ms += ms
                        total_nodes += nodes
                    runs.setdefault((name, threads), []).append((total_ms, total_nodes))
                    print(f"round {r + 1}: {name}, {threads} thread(s): {total_ms} ms to depth {depth} "
                          f"({len(POSITIONS)} positions), {total_nodes} nodes, "
                          f"{round(total_nodes * 1000 / max(total_ms, 1))} nodes a second", flush=True)
        print(f"medians ({rounds} rounds, depth {depth}, {len(POSITIONS)} positions, page cores {cores}):")
        for (name, threads), values in sorted(runs.items()):
            ms = statistics.median(v[0] for v in values)
            nps = statistics.median(v[1] * 1000 / max(v[0], 1) for v in values)
            print(f"  {name:8} {threads} thread(s): {ms:9.0f} ms, {nps:12,.0f} nodes a second")
        native.send("quit")
    finally:
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
