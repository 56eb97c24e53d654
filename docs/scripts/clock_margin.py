#!/usr/bin/env python3
"""How close each engine of a match came to losing on time, from a fastchess PGN written with
`-pgnout ... timeleft=true latency=true` (move comments such as "{+0.31/14 0.212s, tl=3.938s,
latency=0.001s, n=98614}"). For each engine: games, games lost on time, the least clock left
after a move (anywhere, and at the last move before a repeating control's time is added: the
runner counts the engine's own moves, after the opening's), the median and least clock left at
the game's end, and the runner's delay a move (median, 99th percentile, worst).

usage: clock_margin.py GAMES.pgn [GAMES.pgn ...]
"""
import re
import statistics
import sys
from collections import defaultdict

COMMENT = re.compile(r"\{([^}]*)\}")
TL = re.compile(r"tl=(-?\d+(?:\.\d+)?)s")
LAT = re.compile(r"latency=(-?\d+(?:\.\d+)?)s")


def games(text):
    """(tags, [(engine, move number, the engine's own move count, clock left, latency)]) for each
    game; the own count starts after the opening's book moves, as the runner's controls do."""
    for block in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        if "White" not in tags:
            continue
        body = "\n".join(l for l in block.splitlines() if not l.startswith("["))
        fen = tags.get("FEN", "")
        fields = fen.split(" ")
        side = 1 if fields[1:2] == ["b"] else 0
        number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
        moves = []
        own = defaultdict(int)
        for comment in COMMENT.findall(body):
            tl, lat = TL.search(comment), LAT.search(comment)
            if tl:
                engine = tags["White"] if side == 0 else tags["Black"]
                own[engine] += 1
                moves.append((engine, number, own[engine], float(tl.group(1)), float(lat.group(1)) if lat else 0.0))
            if side == 1:
                number += 1
            side ^= 1
        yield tags, moves


def control(tc):
    """A repeating control's moves and seconds a period ("40/4" -> (40, 4.0), "40/4:00" ->
    (40, 240.0); cutechess-style: a bare number is seconds), else None."""
    m = re.match(r"(\d+)/(?:(\d+):)?(\d+(?:\.\d+)?)", tc or "")
    if not m:
        return None
    return int(m.group(1)), float(m.group(2) or 0) * 60 + float(m.group(3))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    played = defaultdict(int)
    lost = defaultdict(int)
    least = {}
    least_at_control = {}
    end = defaultdict(list)
    lat = defaultdict(list)
    tcs = set()
    for path in sys.argv[1:]:
        text = open(path, encoding="utf-8", errors="replace").read()
        for tags, moves in games(text):
            tcs.add(tags.get("TimeControl"))
            period = control(tags.get("TimeControl"))
            for name in (tags["White"], tags["Black"]):
                played[name] += 1
            if tags.get("Termination") == "time forfeit":
                loser = tags["White"] if tags.get("Result") == "0-1" else tags["Black"]
                lost[loser] += 1
            last = {}
            for engine, number, count, tl, latency in moves:
                if engine not in least or tl < least[engine][0]:
                    least[engine] = (tl, number, tags.get("Round"))
                if period and count % period[0] == 0:
                    # The runner reports the clock with the next period's time already added.
                    before = tl - period[1]
                    if engine not in least_at_control or before < least_at_control[engine][0]:
                        least_at_control[engine] = (before, number, tags.get("Round"))
                lat[engine].append(latency)
                last[engine] = tl
            for engine, tl in last.items():
                end[engine].append(tl)
    print(f"time controls: {', '.join(sorted(t for t in tcs if t))}")
    for engine in sorted(played):
        lats = sorted(lat[engine])
        line = [f"{engine}: {played[engine]} games, {lost[engine]} lost on time"]
        if engine in least:
            tl, number, rnd = least[engine]
            line.append(f"least clock after a move {tl * 1000:.0f} ms (move {number}, round {rnd})")
        if engine in least_at_control:
            tl, number, rnd = least_at_control[engine]
            line.append(f"least after a control's last move, before its time is added {tl * 1000:.0f} ms (move {number}, round {rnd})")
        if end[engine]:
            line.append(f"at the end median {statistics.median(end[engine]) * 1000:.0f} ms, least {min(end[engine]) * 1000:.0f} ms")
        if lats:
            p99 = lats[min(len(lats) - 1, int(len(lats) * 0.99))]
            line.append(f"delay median {statistics.median(lats) * 1000:.1f} ms, 99% {p99 * 1000:.1f} ms, worst {lats[-1] * 1000:.1f} ms")
        print("; ".join(line))


if __name__ == "__main__":
    main()
