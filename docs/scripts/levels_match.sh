#!/bin/bash
# Corvid at UCI_Elo ELO against Stockfish 15.1 at the same UCI_Elo (the calibration of the
# strength levels, docs/strength.md). Run from the checkout, ../shared beside it:
#   docs/scripts/levels_match.sh ./corvid 2000 50 /tmp/levels-2000    (50 pairs = 100 games)
set -euo pipefail
BIN=$1; ELO=$2; PAIRS=$3; OUT=$4
SHARED=${SHARED:-../shared}
"$SHARED/tools/fastchess/fastchess" \
  -engine cmd="$BIN" name=corvid option.UCI_LimitStrength=true option.UCI_Elo="$ELO" \
  -engine cmd=/usr/games/stockfish name=sf option.UCI_LimitStrength=true option.UCI_Elo="$ELO" \
  -each tc=8+0.08 option.Hash=16 option.Threads=1 \
  -openings file="$SHARED/data/openings/8moves_v3.epd" format=epd order=random \
  -repeat -rounds "$PAIRS" -games 2 -concurrency 2 -recover \
  -pgnout file="$OUT.pgn" > "$OUT.log" 2>&1
grep -E "^(Games|Elo|Ptnml)" "$OUT.log" | tail -3
