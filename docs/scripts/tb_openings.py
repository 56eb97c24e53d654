# usage: tb_openings.py tests/data/syzygy/expected.txt OUT.epd
# 60 five-piece starts for a match with and without tables: 40 decisive, 20 drawn, seeded.
import random, sys
rng = random.Random(11)
lines = [l.split(" ; ") for l in open(sys.argv[1])]
five = lambda l: sum(c.isalpha() for c in l[0].split()[0]) == 5
wins = [l for l in lines if five(l) and l[1] != "0"]
draws = [l for l in lines if five(l) and l[1] == "0"]
rng.shuffle(wins); rng.shuffle(draws)
open(sys.argv[2], "w").write("".join(" ".join(l[0].split()[:4]) + "\n" for l in wins[:40] + draws[:20]))
