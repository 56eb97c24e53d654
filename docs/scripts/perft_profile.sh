#!/usr/bin/env bash
# Where perft spends its work on each of the five standard positions, per leaf: instructions,
# branch mispredictions and first-level instruction-cache misses, from valgrind's callgrind with
# its cache and branch simulation (counts, not seconds: the same whatever else the machine does,
# and usable where `perf stat` has no hardware counters, as on these VMs).
#
#   docs/scripts/perft_profile.sh [BINARY] [DEPTH_OFFSET]
#
# Depths are each position's usual one less DEPTH_OFFSET (default 2: start 5, Kiwipete 4,
# position 3 at 6, 4 at 4, 5 at 4; about a minute under valgrind in all). The callgrind files
# stay in /tmp/perft-profile-NAME.out for callgrind_annotate.
set -euo pipefail
bin=${1:-target/release/corvid}
offset=${2:-2}
printf '%-9s %6s %14s %10s %12s %12s\n' position depth leaves Ir/leaf mispred/kleaf I1miss/kleaf
while IFS='|' read -r name depth fen; do
  depth=$((depth - offset))
  args=(perft "$depth")
  [[ $fen != startpos ]] && args+=("$fen")
  out=/tmp/perft-profile-$name.out
  log=$(valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --callgrind-out-file="$out" "$bin" "${args[@]}" 2>&1)
  leaves=$(grep -o 'Nodes searched: [0-9]*' <<<"$log" | awk '{print $3}')
  # Events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
  read -r ir i1 bcm bim < <(grep 'Collected :' <<<"$log" | awk '{print $4, $7, $14, $16}')
  awk -v n="$name" -v d="$depth" -v l="$leaves" -v ir="$ir" -v i1="$i1" -v m=$((bcm + bim)) \
    'BEGIN { printf "%-9s %6d %14d %10.2f %12.2f %12.4f\n", n, d, l, ir / l, 1000 * m / l, 1000 * i1 / l }'
done <<'EOF'
start|7|startpos
kiwipete|6|r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1
pos3|8|8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1
pos4|6|r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1
pos5|6|rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8
EOF
