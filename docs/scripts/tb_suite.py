# usage: tb_suite.py TABLES tests/data/syzygy/expected.txt OUT
# Positions of 4 and 5 pieces from the tables where at most two moves keep the result (none a
# capture) and at least five spoil it, 200 of them; the
# moves that keep it are the answer. Writes OUT: FEN ; uci moves that keep the result.
import random, sys, chess, chess.syzygy
tb = chess.syzygy.open_tablebase(sys.argv[1])
rng = random.Random(7)
lines = [l.split(" ; ") for l in open(sys.argv[2])]
rng.shuffle(lines)
out = []
for fen, wdl, dtz in lines:
    b = chess.Board(fen)
    if len(b.piece_map()) < 4: continue
    wdl = int(wdl)
    keep, spoil = [], []
    for m in b.legal_moves:
        b.push(m)
        v = -tb.probe_wdl(b) if not b.is_checkmate() else 2
        b.pop()
        (keep if v >= wdl else spoil).append(m.uci())
    caps = [m for m in keep if b.is_capture(chess.Move.from_uci(m))]
    if keep and len(keep) <= 2 and len(spoil) >= 5 and not caps:
        out.append(f"{fen} ; {' '.join(keep)}")
    if len(out) >= 200: break
open(sys.argv[3], "w").write("\n".join(out) + "\n")
print(len(out))
