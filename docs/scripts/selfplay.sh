#!/bin/bash
# One build against another (self-play), UHO openings, 1 thread, 16 MB, pentanomial report.
# Run from the checkout, ../shared beside it:
#   docs/scripts/selfplay.sh NEW BASE PAIRS OUT [LIMIT]
# LIMIT is a fastchess limit: "nodes=25000" (the default; fixed nodes, for search changes) or
# "tc=8+0.08" (anything that changes speed or the clock). SPRT=1 runs an SPRT (elo0=0 elo1=5,
# normalized) that stops early instead of playing all the pairs. OPENINGS=8moves_v3 (a file of
# ../shared/data/openings/, without .epd) plays balanced openings instead of UHO_4060_v4.
# SRAND=N seeds the openings' order: a second run of the same pair needs another seed, or at fixed
# nodes it replays the first run's games. ELO1=10 sets the SPRT's upper bound (default 5).
# CONCURRENCY=1 plays one game at a time (default 2), so two matches can share the two cores
# and go on side by side.
set -euo pipefail
NEW=$1; BASE=$2; PAIRS=$3; OUT=$4; LIMIT=${5:-nodes=25000}
SHARED=$(cd "${SHARED:-../shared}" && pwd)
NEW=$(realpath "$NEW"); BASE=$(realpath "$BASE"); OUT=$(realpath -m "$OUT")
# fastchess leaves its config.json where it runs: beside the results, not in the checkout.
mkdir -p "$(dirname "$OUT")"; cd "$(dirname "$OUT")"
case $LIMIT in
  nodes=*) EACH="tc=inf $LIMIT" ;;
  *) EACH=$LIMIT ;;
esac
SPRT_ARGS=()
if [ -n "${SRAND:-}" ]; then SPRT_ARGS+=(-srand "$SRAND"); fi
if [ "${SPRT:-0}" = 1 ]; then
  SPRT_ARGS+=(-sprt elo0=0 elo1=${ELO1:-5} alpha=0.05 beta=0.05 model=normalized)
fi
"$SHARED/tools/fastchess/fastchess" \
  -engine cmd="$NEW" name=new \
  -engine cmd="$BASE" name=base \
  -each $EACH option.Hash=16 option.Threads=1 \
  -openings file="$SHARED/data/openings/${OPENINGS:-UHO_4060_v4}.epd" format=epd order=random \
  -repeat -rounds "$PAIRS" -games 2 -concurrency "${CONCURRENCY:-2}" -recover "${SPRT_ARGS[@]}" \
  -pgnout file="$OUT.pgn" > "$OUT.log" 2>&1 || true
grep -E "^(Games|Elo|Ptnml|LLR)" "$OUT.log" | tail -4
