#!/usr/bin/env python3
"""One SPRT over several runs of the same pairing: the pentanomials of the runs added up and the
test's figures computed on the sum, as fastchess computes them for one run (normalized model,
elo0 0 and elo1 5 unless told, alpha = beta = 0.05).

A run of `docs/scripts/selfplay.sh` that is stopped (a session's end, a machine given back) can be
followed by another with a different SRAND (other openings, or at fixed nodes the same games are
played again), and the test goes on from where the first stopped: this adds them. Each argument
is a fastchess log (its last "Ptnml(0-2)" line is taken) or a pentanomial written as five counts,
"52,166,284,199,59".

usage: sprt_sum.py RUN [RUN ...] [--elo0 X] [--elo1 X]
"""
import math
import re
import sys

from gauntlet_report import pentanomial_elo

PTNML = re.compile(r"Ptnml\(0-2\): \[([\d, ]+)\]")
# The normalized model's scale: nElo = t * 800 / ln 10 / sqrt 2, t the score's mean over its
# standard deviation per pair.
NELO = 800 / math.log(10) / math.sqrt(2)


def pentanomial(arg):
    """The five counts of a log's last report, or of a written list."""
    if re.fullmatch(r"\d+(,\d+){4}", arg.replace(" ", "")):
        return [int(x) for x in arg.replace(" ", "").split(",")]
    try:
        found = PTNML.findall(open(arg, encoding="utf-8", errors="replace").read())
    except OSError as e:
        sys.exit(f"sprt_sum.py: cannot read {arg}: {e.strerror}")
    if not found:
        sys.exit(f"sprt_sum.py: no Ptnml(0-2) line in {arg}")
    return [int(x) for x in found[-1].split(",")]


def figures(counts, elo0, elo1):
    """Pairs, score, Elo and its 95% half-width, nElo, and the LLR of H1 (elo1) against H0."""
    pairs = sum(counts)
    mean, sd, value, half = pentanomial_elo(counts)
    if sd == 0:
        sys.exit("sprt_sum.py: every pair scored the same; the test has no variance to judge by")
    t = (mean - 0.5) / sd
    t0, t1 = elo0 / NELO, elo1 / NELO
    llr = pairs * ((t1 - t0) * t - (t1 * t1 - t0 * t0) / 2)
    return pairs, mean, value, half, t * NELO, llr


def main(argv):
    elo0, elo1, runs = 0.0, 5.0, []
    args = iter(argv)
    for arg in args:
        if arg in ("--elo0", "--elo1"):
            value = next(args, None)
            try:
                value = float(value)
            except (TypeError, ValueError):
                sys.exit(f"sprt_sum.py: {arg} wants a number")
            if arg == "--elo0":
                elo0 = value
            else:
                elo1 = value
        elif arg in ("-h", "--help"):
            print(__doc__)
            return
        else:
            runs.append((arg, pentanomial(arg)))
    if not runs:
        sys.exit(__doc__)
    if elo1 <= elo0:
        sys.exit("sprt_sum.py: elo1 must be above elo0")
    total = [0] * 5
    for name, counts in runs:
        print(f"{name}: {counts}")
        total = [a + b for a, b in zip(total, counts)]
    pairs, mean, value, half, nelo, llr = figures(total, elo0, elo1)
    bound = math.log((1 - 0.05) / 0.05)
    verdict = "H1 accepted" if llr >= bound else "H0 accepted" if llr <= -bound else "undecided"
    print(
        f"together {total}: {pairs} pairs, {2 * pairs} games, score {100 * mean:.2f}%, "
        f"Elo {value:+.1f} +/- {half:.1f}, nElo {nelo:+.1f}, "
        f"LLR {llr:.2f} ({-bound:.2f}, {bound:.2f}) [{elo0:g}, {elo1:g}]: {verdict}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
