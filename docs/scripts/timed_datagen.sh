#!/bin/bash
# Self-play for the network on every core of a machine lent for minutes (the device machine),
# stopped cleanly before the time is up: SIGINT makes `corvid datagen` finish the games in play
# and write them (a few seconds at 5,000 nodes a move; 60 s are left for it). The file is named
# after the build's commit and the seed, as the issue asks, with its manifest beside it.
#   docs/scripts/timed_datagen.sh CORVID SEED [SECONDS] [OUTDIR]
# CORVID: a build that runs there (a static musl release file, or Debian's loader wrapping a
# glibc one); OUTDIR defaults to $OUT (the device's folder that comes back), else ./datagen-out.
set -u
CORVID=${1:?corvid binary}; SEED=${2:?seed}; LIMIT=${3:-480}
DIR=${4:-${OUT:-./datagen-out}}; mkdir -p "$DIR"
{ lscpu | grep -E "Model name|^CPU\(s\)"; "$CORVID" --version | head -2; } > "$DIR/machine.txt"
COMMIT=$("$CORVID" --version | awk '/^commit/ {print substr($2, 1, 7)}')
NAME="dev-${COMMIT:-unknown}-s$SEED.vf"
CORVID_DATA="$DIR" timeout -s INT -k 60 "$LIMIT" "$CORVID" datagen "$NAME" --games 1000000 --seed "$SEED" \
  > "$DIR/datagen-s$SEED.log" 2>&1
echo "datagen exit $? (124: stopped by the time limit, as planned)"
tail -1 "$DIR/datagen-s$SEED.log"
# The device returns files of up to 16 MiB: compressed (about 2.7 bytes a position against 4.3),
# a run of 10 minutes on 16 cores fits; the trainer reads .vf.xz as it is.
if command -v xz > /dev/null; then xz -T0 -6 "$DIR/$NAME" && echo "compressed to $NAME.xz"; fi
