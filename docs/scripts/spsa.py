#!/usr/bin/env python3
"""A local SPSA tuner for Corvid's search and clock constants, stoppable and resumable.

Each iteration plays a few game pairs (fastchess) between the tune build (`make TUNE=1`) at
theta + c_k x delta and at theta - c_k x delta (delta a random +-1 per constant), then moves theta
along delta by the result. The schedule is OpenBench's: `c_k = c_end x N^gamma / k^gamma`,
`a_k = r_end x c_end^2 x (A + N)^alpha / (A + k)^alpha`, step `a_k / c_k x (wins - losses)`,
with A = N / 10, alpha 0.602, gamma 0.101, so after N iterations the perturbation is c_end and the
learning rate r_end (the `corvid spsa` lines give both).

The whole state (theta, the iteration, the settings) is one JSON file, rewritten after each
iteration; run the same command again to resume. Ctrl-C stops after the iteration in play.

    docs/scripts/spsa.py run --engine ./corvid-tune --state ~/spsa/search.json \\
        --iterations 2000 --pairs 4 --limit nodes=25000 --only RFP_,NMP_,LMR_
    docs/scripts/spsa.py show --state ~/spsa/search.json
    docs/scripts/spsa.py write --state ~/spsa/search.json --params src/search/params.rs

`write` puts the rounded values into params.rs as the new defaults (then test them in a match).
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys

ALPHA, GAMMA = 0.602, 0.101
SHARED = os.environ.get("SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))


def read_spsa_lines(engine):
    out = subprocess.run([engine, "spsa"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{engine} spsa: {out.stderr.strip()} (build it with 'make TUNE=1')")
    params = {}
    for line in out.stdout.splitlines():
        name, _kind, value, lo, hi, c_end, r_end = [f.strip() for f in line.split(",")]
        params[name] = {"value": float(value), "min": float(lo), "max": float(hi),
                        "c_end": float(c_end), "r_end": float(r_end)}
    return params


def save(path, state):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def play(state, plus, minus, seed, where):
    """Plays the pairs in the directory `where` (fastchess leaves its config.json there);
    returns (wins, losses) of the `plus` side."""
    fastchess = os.path.join(SHARED, "tools", "fastchess", "fastchess")
    book = os.path.join(SHARED, "data", "openings", state["book"])
    limit = state["limit"]
    each = ["tc=inf", limit] if limit.startswith("nodes=") else [limit]

    def engine(name, values):
        return ["-engine", f"cmd={state['engine']}", f"name={name}"] + [
            f"option.{k}={int(round(v))}" for k, v in values.items()]

    cmd = [fastchess] + engine("plus", plus) + engine("minus", minus) + [
        "-each", *each, "option.Hash=16", "option.Threads=1",
        "-openings", f"file={book}", "format=epd", "order=random", "-srand", str(seed),
        "-repeat", "-rounds", str(state["pairs"]), "-games", "2",
        "-concurrency", str(state["concurrency"]), "-recover"]
    out = subprocess.run(cmd, capture_output=True, text=True, start_new_session=True, cwd=where).stdout
    found = re.findall(r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)", out)
    if not found:
        raise RuntimeError("no result from fastchess:\n" + out[-2000:])
    games, wins, losses, _ = map(int, found[-1])
    return wins, losses


def run(args):
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
        print(f"resuming {args.state} at iteration {state['k']} of {state['iterations']}")
    else:
        params = read_spsa_lines(args.engine)
        if args.only:
            prefixes = args.only.split(",")
            params = {k: v for k, v in params.items() if any(k.startswith(p) for p in prefixes)}
        if not params:
            sys.exit("no constants to tune")
        state = {"engine": os.path.abspath(args.engine), "iterations": args.iterations, "pairs": args.pairs,
                 "limit": args.limit, "book": args.book, "concurrency": args.concurrency, "k": 0,
                 "seed": args.seed, "params": params, "games": 0, "history": []}
        for p in params.values():
            p["r_end"] *= args.rate
        save(args.state, state)
        print(f"tuning {len(params)} constants over {args.iterations} iterations; state in {args.state}")
    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    n = state["iterations"]
    big_a = n / 10
    rng = random.Random(state["seed"] * 1_000_003 + state["k"])
    while state["k"] < n and not stop:
        k = state["k"] + 1
        plus, minus, deltas, cks = {}, {}, {}, {}
        for name, p in state["params"].items():
            c = p["c_end"] * n ** GAMMA / k ** GAMMA
            d = rng.choice((-1, 1))
            plus[name] = min(p["max"], max(p["min"], p["value"] + c * d))
            minus[name] = min(p["max"], max(p["min"], p["value"] - c * d))
            deltas[name], cks[name] = d, c
        wins, losses = play(state, plus, minus, state["seed"] * 100_000 + k, os.path.dirname(os.path.abspath(args.state)))
        for name, p in state["params"].items():
            c = cks[name]
            a = p["r_end"] * p["c_end"] ** 2 * (big_a + n) ** ALPHA / (big_a + k) ** ALPHA
            p["value"] = min(p["max"], max(p["min"], p["value"] + a / c * (wins - losses) * deltas[name]))
        state["k"] = k
        state["games"] += 2 * state["pairs"]
        if k % 10 == 0 or k == n:
            state["history"].append({"k": k, "values": {m: round(p["value"], 2) for m, p in state["params"].items()}})
        save(args.state, state)
        print(f"iteration {k}/{n}: plus {wins}-{losses}, games {state['games']}", flush=True)
    print("stopped" if stop else "done", f"at iteration {state['k']}")


def show(args):
    with open(args.state) as f:
        state = json.load(f)
    print(f"iteration {state['k']} of {state['iterations']}, {state['games']} games")
    for name, p in state["params"].items():
        print(f"{name:28} {p['value']:9.2f}  ({p['min']:g}..{p['max']:g})")


def write(args):
    with open(args.state) as f:
        state = json.load(f)
    with open(args.params) as f:
        text = f.read()
    for name, p in state["params"].items():
        value = int(round(p["value"]))
        text, count = re.subn(rf"^(\s+{name} = )-?\d+(,)", rf"\g<1>{value}\g<2>", text, flags=re.M)
        if count != 1:
            sys.exit(f"{name}: found {count} times in {args.params}")
    tmp = args.params + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.params)
    print(f"wrote {len(state['params'])} values into {args.params}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--engine", required=True, help="the tune build (make TUNE=1)")
    r.add_argument("--state", required=True)
    r.add_argument("--iterations", type=int, default=2000)
    r.add_argument("--pairs", type=int, default=4, help="game pairs an iteration")
    r.add_argument("--limit", default="nodes=25000", help="nodes=N or tc=B+I")
    r.add_argument("--book", default="UHO_4060_v4.epd")
    r.add_argument("--concurrency", type=int, default=2)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--only", help="comma-separated name prefixes to tune (default all)")
    r.add_argument("--rate", type=float, default=1.0,
                   help="multiplies every r_end: OpenBench's rates suit tens of thousands of pairs, "
                        "a two-core run plays a few thousand")
    s = sub.add_parser("show")
    s.add_argument("--state", required=True)
    w = sub.add_parser("write")
    w.add_argument("--state", required=True)
    w.add_argument("--params", required=True)
    args = parser.parse_args()
    {"run": run, "show": show, "write": write}[args.command](args)


if __name__ == "__main__":
    main()
