#!/usr/bin/env python3
"""How each engine of a match spends its clock, from a fastchess or cutechess-cli PGN whose move
comments carry the time a move took ("{+0.31/14 0.212s}"). For each engine: the mean time a move
over moves 1-40 of each game (counted from the game's first move, book moves included in the
count when they have a time), the time a move by ten-move buckets, and the clock left when each
game ended (base + increment a move - time spent), median and quartiles.

usage: clock_use.py GAMES.pgn [BASE+INC]   (the TimeControl tag is used when BASE+INC is absent)
"""
import re
import statistics
import sys
from collections import defaultdict

TIME = re.compile(r"(\d+(?:\.\d+)?)s\b")


def comments(text):
    """(tags, [(side 0/1, comment)]) for each game: every move comment, with the side that moved
    (gauntlet_report.py reads the depths from the same comments)."""
    for block in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        body = "\n".join(l for l in block.splitlines() if not l.startswith("["))
        fen = tags.get("FEN", "")
        side = 1 if fen.split(" ")[1:2] == ["b"] else 0
        moves = []
        for comment in re.findall(r"\{([^}]*)\}", body):
            moves.append((side, comment))
            side ^= 1
        yield tags, moves


def games(text):
    """(tags, [(side 0/1, seconds)]) for each game."""
    for tags, moves in comments(text):
        times = [(side, TIME.search(c)) for side, c in moves if "book" not in c]
        yield tags, [(side, float(m.group(1))) for side, m in times if m]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    per_move = defaultdict(list)
    buckets = defaultdict(lambda: defaultdict(list))
    left = defaultdict(list)
    for tags, moves in games(text):
        tc = sys.argv[2] if len(sys.argv) > 2 else tags.get("TimeControl", "8+0.08")
        base, inc = (float(x) for x in (tc.split("+") + ["0"])[:2])
        names = (tags.get("White", "?"), tags.get("Black", "?"))
        spent, count = [0.0, 0.0], [0, 0]
        for side, secs in moves:
            count[side] += 1
            spent[side] += secs
            name = names[side]
            if count[side] <= 40:
                per_move[name].append(secs)
            buckets[name][(count[side] - 1) // 10].append(secs)
        for side in (0, 1):
            if count[side]:
                left[names[side]].append(base + inc * count[side] - spent[side])
    for name in sorted(per_move):
        clock = sorted(left[name])
        q = statistics.quantiles(clock, n=4) if len(clock) > 1 else [clock[0]] * 3
        print(f"{name}: {len(clock)} games, {statistics.mean(per_move[name]):.3f} s a move over moves 1-40; "
              f"clock left at the end: median {q[1]:.2f} s (quartiles {q[0]:.2f}-{q[2]:.2f})")
        row = "  ".join(f"{10 * b + 1}-{10 * b + 10}: {statistics.mean(v):.3f}"
                        for b, v in sorted(buckets[name].items()) if b < 8)
        print(f"  s a move by move number: {row}")


if __name__ == "__main__":
    main()
