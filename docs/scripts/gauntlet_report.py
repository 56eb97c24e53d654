#!/usr/bin/env python3
"""One engine's results against each opponent, from fastchess PGNs (a gauntlet or plain matches):
games, W/D/L, by colour, the pentanomial of complete pairs (the two games of an opening share a
Round tag in fastchess), the score and Elo with a 95% interval from the pentanomial, games lost
on time, and the mean depth each side reached (every move comment "{+0.31/17 0.212s}" counts).

usage: gauntlet_report.py ENGINE GAMES.pgn [MORE.pgn ...]
"""
import math
import re
import sys
from collections import defaultdict

from clock_use import comments

DEPTH = re.compile(r"^[+-]?(?:M?\d+(?:\.\d+)?)/(\d+)\b")


def games(text):
    """(tags, (White's depths, Black's depths)) for each game."""
    for tags, moves in comments(text):
        depths = ([], [])
        for side, comment in moves:
            m = DEPTH.match(comment.strip())
            if m:
                depths[side].append(int(m.group(1)))
        yield tags, depths


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def pentanomial_elo(penta):
    """Over the pairs of a pentanomial (counts of pairs scoring 0, 1/2, 1, 3/2, 2 points): the mean
    score a game, its standard deviation a pair, the Elo and its 95% half-width."""
    pairs = sum(penta)
    mean = sum(i / 4 * c for i, c in enumerate(penta)) / pairs
    sd = math.sqrt(sum(c * (i / 4 - mean) ** 2 for i, c in enumerate(penta)) / pairs)
    half = 1.96 * sd / math.sqrt(pairs)
    return mean, sd, elo(mean), (elo(min(mean + half, 0.999)) - elo(max(mean - half, 0.001))) / 2


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    me = sys.argv[1]
    rows = defaultdict(lambda: {"w": 0, "d": 0, "l": 0, "white": [0, 0, 0], "black": [0, 0, 0],
                                "time": 0, "dme": [], "dop": [], "pairs": defaultdict(list)})
    for path in sys.argv[2:]:
        for tags, (dw, db) in games(open(path, encoding="utf-8", errors="replace").read()):
            white, black, result = tags.get("White"), tags.get("Black"), tags.get("Result")
            if me not in (white, black) or result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            opp = black if white == me else white
            r = rows[opp]
            pts = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
            if white != me:
                pts = 1 - pts
            key = {1.0: "w", 0.5: "d", 0.0: "l"}[pts]
            r[key] += 1
            r["white" if white == me else "black"]["wdl".index(key)] += 1
            if "time" in tags.get("Termination", "").lower():
                r["time"] += 1
            r["dme"] += dw if white == me else db
            r["dop"] += db if white == me else dw
            r["pairs"][(path, tags.get("Round"))].append(pts)
    for opp, r in sorted(rows.items()):
        n = r["w"] + r["d"] + r["l"]
        penta = [0] * 5
        for pts in r["pairs"].values():
            if len(pts) == 2:
                penta[int(round(2 * sum(pts)))] += 1
        pairs = sum(penta)
        score = (r["w"] + r["d"] / 2) / n
        line = f"{me} vs {opp}: {n} games, W {r['w']} D {r['d']} L {r['l']}, {100 * score:.2f}%"
        if pairs:
            _, _, value, half = pentanomial_elo(penta)
            line += f", pentanomial {penta} ({pairs} pairs): Elo {value:+.1f} +/- {half:.1f}"
        print(line)
        print(f"  as White W/D/L {r['white']}, as Black {r['black']}; lost on time: {r['time']}")
        dme = sum(r["dme"]) / max(len(r["dme"]), 1)
        dop = sum(r["dop"]) / max(len(r["dop"]), 1)
        print(f"  mean depth {me} {dme:.1f}, {opp} {dop:.1f}")


if __name__ == "__main__":
    main()
