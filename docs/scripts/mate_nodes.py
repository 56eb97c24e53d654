#!/usr/bin/env python3
"""How many nodes each build needs to report a mate in six basic endings.

    docs/scripts/mate_nodes.py BUILD...

One line a build: for each ending, (mate distance, nodes) at the first `score mate` the build
printed, or None if it printed none within 3,000,000 nodes (8 MB hash, one thread).
"""
import re
import subprocess
import sys

ENDINGS = [
    "8/8/8/4k3/8/8/8/KQ6 w - - 10 60",  # the fifty-move test's K+Q against K
    "8/8/8/3k4/8/8/8/K6R w - - 0 1",
    "8/8/8/8/3k4/8/8/R3K3 w - - 0 1",
    "8/8/3k4/8/8/8/8/Q3K3 w - - 0 1",
    "7k/8/8/8/8/8/8/K1R5 w - - 0 1",
    "8/8/4k3/8/8/8/8/2B1KB2 w - - 0 1",
]
NODES = 3_000_000


def first_mate(build, fen):
    engine = subprocess.Popen([build], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    engine.stdin.write(f"uci\nsetoption name Hash value 8\nposition fen {fen}\ngo nodes {NODES}\n")
    engine.stdin.flush()
    found = None
    for line in engine.stdout:
        m = re.search(r"score mate (\d+).* nodes (\d+)", line)
        if m and found is None:
            found = (int(m.group(1)), int(m.group(2)))
        if line.startswith("bestmove"):
            break
    engine.stdin.write("quit\n")
    engine.stdin.flush()
    engine.wait()
    return found


for build in sys.argv[1:]:
    print(build, [first_mate(build, fen) for fen in ENDINGS])
