#!/bin/bash
# Sparring games for the network (issue 83, item 4): Corvid against a stronger engine, both at
# fixed nodes, UHO openings in random order with both colours, 1 thread and 16 MB each.
# Run from the checkout, ../shared beside it:
#   docs/scripts/sparring.sh CORVID OPPONENT PAIRS OUT [CORVID_NODES] [OPPONENT_NODES]
# CORVID_NODES defaults to 25000 (each Corvid move's comment is then its own 25,000-node score,
# the label item 4 asks for); OPPONENT_NODES to the same. SRAND=N seeds the openings' order.
# The PGN (OUT.pgn) feeds docs/scripts/sparring_positions.py; OUT.log is fastchess's report.
set -euo pipefail
CORVID=$1; OPPONENT=$2; PAIRS=$3; OUT=$4; NODES=${5:-25000}; OPP_NODES=${6:-$NODES}
SHARED=$(cd "${SHARED:-../shared}" && pwd)
CORVID=$(realpath "$CORVID"); OPPONENT=$(realpath "$OPPONENT"); OUT=$(realpath -m "$OUT")
mkdir -p "$(dirname "$OUT")"; cd "$(dirname "$OUT")"
ARGS=()
if [ -n "${SRAND:-}" ]; then ARGS+=(-srand "$SRAND"); fi
"$SHARED/tools/fastchess/fastchess" \
  -engine cmd="$CORVID" name=corvid tc=inf nodes="$NODES" \
  -engine cmd="$OPPONENT" name=opponent tc=inf nodes="$OPP_NODES" \
  -each option.Hash=16 option.Threads=1 \
  -openings file="$SHARED/data/openings/${OPENINGS:-UHO_4060_v4}.epd" format=epd order=random \
  -repeat -rounds "$PAIRS" -games 2 -concurrency "${CONCURRENCY:-2}" -recover "${ARGS[@]}" \
  -pgnout file="$OUT.pgn" > "$OUT.log" 2>&1 || true
grep -E "^(Games|Elo|Ptnml)" "$OUT.log" | tail -3
