#!/usr/bin/env bash
# Speed of several builds side by side: `bench` nodes a second and perft on the five standard
# positions, in alternating rounds (every build once per round, in turn), then the median of each
# figure and its ratio to the first build's. Nothing else may run meanwhile.
#
#   docs/scripts/speed_side_by_side.sh ROUNDS label=command [label=command ...]
#   docs/scripts/speed_side_by_side.sh 5 native=target/release/corvid "v3=dist/corvid-linux-x86-64-v3" \
#       "win-v3=wine dist/corvid-windows-x86-64-v3.exe"
#
# PERFT="name|depth|fen;..." replaces the positions (the default: start 6, Kiwipete 5,
# position 3 at 7, 4 at 5, 5 at 5, each well under a second on one core).
set -euo pipefail
rounds=$1
shift
perft=${PERFT:-"start|6|startpos;kiwipete|5|r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1;pos3|7|8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1;pos4|5|r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1;pos5|5|rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"}
out=$(mktemp)
# Builds run under wine: its services are started first, away from the pipes below (started by
# the first `$(wine ...)`, they would hold its output open for ever).
# The wine prefix is `make release`'s (it holds the bcryptprimitives.dll stand-in that Rust's
# standard library needs under wine 8), unless WINEPREFIX names another.
if [[ "$*" == *wine* ]]; then
  export WINEPREFIX=${WINEPREFIX:-$PWD/target/release-work/wine} WINEDEBUG=${WINEDEBUG:--all}
  [[ -d $WINEPREFIX ]] || { echo "no wine prefix at $WINEPREFIX: run make release first" >&2; exit 1; }
  wineserver -p
  trap 'wineserver -k 2>/dev/null || true' EXIT
  wineboot -i >/dev/null 2>&1 || true
fi
for ((r = 1; r <= rounds; r++)); do
  for spec in "$@"; do
    label=${spec%%=*}
    cmd=${spec#*=}
    nps=$($cmd bench </dev/null 2>&1 | tr -d '\r' | tail -1 | awk '{print $3}')
    echo "$label bench $nps" >>"$out"
    IFS=';' read -ra positions <<<"$perft"
    for p in "${positions[@]}"; do
      IFS='|' read -r name depth fen <<<"$p"
      if [[ $fen == startpos ]]; then args=(perft "$depth"); else args=(perft "$depth" "$fen"); fi
      nps=$($cmd "${args[@]}" </dev/null 2>&1 | tr -d '\r' | grep -o '[0-9]* nps' | awk '{print $1}')
      echo "$label $name $nps" >>"$out"
    done
  done
done
python3 - "$out" "$@" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
labels = [a.split('=', 1)[0] for a in sys.argv[2:]]
tests = list(dict.fromkeys(r[1] for r in rows))
med = {(l, t): statistics.median(float(r[2]) for r in rows if r[0] == l and r[1] == t) for l in labels for t in tests}
print('build ' + ' '.join(f'{t:>16}' for t in tests))
for l in labels:
    cells = []
    for t in tests:
        v, base = med[(l, t)], med[(labels[0], t)]
        unit = v / 1e6
        cells.append(f'{unit:8.2f}M {v / base:5.3f}')
    print(f'{l} ' + ' '.join(f'{c:>16}' for c in cells))
EOF
rm -f "$out"
