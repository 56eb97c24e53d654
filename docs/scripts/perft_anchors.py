#!/usr/bin/env python3
"""Corvid's perft against the anchors of ../shared/tools/perft-anchors, side by side.

    docs/scripts/perft_anchors.py CORVID ANCHOR_DIR [ROUNDS] [STOCKFISH]

Single thread, no hash, bulk counting, the five standard positions at the issue's depths. Each
round runs every program on every position, the programs alternating; each run is timed as a
whole process (start-up included, as the anchors' README measured). Prints each program's median
in million leaves a second, the geometric mean, and Corvid's ratio to the fastest anchor, then
each median's spread (the slowest and fastest round, in percent of the median). STOCKFISH, a
path, adds Stockfish's `go perft` (a reference, not an anchor: fed its commands on stdin).
"""
import math
import statistics
import subprocess
import sys
import time

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7, 3_195_901_860),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 6, 8_031_647_685),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 8, 3_009_794_393),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 706_045_033),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 6, 3_048_196_529),
]


def commands(corvid, anchors, stockfish):
    """Each program's command line and standard input for a position and depth."""
    programs = {
        "Corvid": lambda fen, d: ([corvid, "perft", str(d), fen], None),
        "ellxor": lambda fen, d: ([f"{anchors}/ellxor", fen, str(d)], None),
        "MPerft": lambda fen, d: ([f"{anchors}/mperft", "--bulk", "--depth", str(d), "--fen", fen], None),
    }
    if stockfish:
        programs["Stockfish"] = lambda fen, d: ([stockfish], f"position fen {fen}\ngo perft {d}\nquit\n")
    return programs


ANCHORS = ("ellxor", "MPerft")


def main():
    corvid, anchors = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    stockfish = sys.argv[4] if len(sys.argv) > 4 else None
    programs = commands(corvid, anchors, stockfish)
    speeds = {(p, name): [] for p in programs for name, *_ in POSITIONS}
    for r in range(rounds):
        order = list(programs) if r % 2 == 0 else list(reversed(programs))
        for name, fen, depth, leaves in POSITIONS:
            for program in order:
                start = time.perf_counter()
                argv, stdin = programs[program](fen, depth)
                out = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=True)
                secs = time.perf_counter() - start
                if str(leaves) not in out.stdout.replace(",", ""):
                    sys.exit(f"{program} on {name}: no count of {leaves} in its output:\n{out.stdout}")
                speeds[(program, name)].append(leaves / secs / 1e6)
    print(f"medians of {rounds} alternating rounds, million leaves a second")
    print(f"{'position':<12}" + "".join(f"{p:>10}" for p in programs) + f"{'Corvid / best anchor':>22}")
    logs = {p: 0.0 for p in programs}
    for name, _, depth, _ in POSITIONS:
        med = {p: statistics.median(speeds[(p, name)]) for p in programs}
        for p in programs:
            logs[p] += math.log(med[p])
        best = max(med[p] for p in ANCHORS)
        print(f"{name + ', ' + str(depth):<12}" + "".join(f"{med[p]:>10.1f}" for p in programs)
              + f"{med['Corvid'] / best:>22.3f}")
    geo = {p: math.exp(logs[p] / len(POSITIONS)) for p in programs}
    best = max(geo[p] for p in ANCHORS)
    print(f"{'geo. mean':<12}" + "".join(f"{geo[p]:>10.1f}" for p in programs) + f"{geo['Corvid'] / best:>22.3f}")
    print("spread: slowest and fastest round against the median, percent")
    print(f"{'position':<12}" + "".join(f"{p:>12}" for p in programs))
    for name, _, depth, _ in POSITIONS:
        cells = []
        for p in programs:
            runs = speeds[(p, name)]
            med = statistics.median(runs)
            cells.append(f"{(min(runs) / med - 1) * 100:+.1f}/{(max(runs) / med - 1) * 100:+.1f}")
        print(f"{name + ', ' + str(depth):<12}" + "".join(f"{c:>12}" for c in cells))


main()
