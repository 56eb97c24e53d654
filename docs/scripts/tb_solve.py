# usage: tb_solve.py ENGINE MS TABLES|none SUITE
# Plays each suite position with Corvid for MS milliseconds, with or without tables.
import sys, chess, chess.engine
engine_path, ms, tables = sys.argv[1], int(sys.argv[2]), sys.argv[3]
eng = chess.engine.SimpleEngine.popen_uci(engine_path)
if tables != "none":
    eng.configure({"SyzygyPath": tables})
ok = n = 0
for line in open(sys.argv[4]):
    fen, keep = line.strip().split(" ; ")
    b = chess.Board(fen)
    r = eng.play(b, chess.engine.Limit(time=ms / 1000))
    n += 1
    ok += r.move.uci() in keep.split()
eng.quit()
print(f"tables={tables} {ms}ms: {ok}/{n} solved")
