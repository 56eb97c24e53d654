#!/usr/bin/env python3
"""Training positions from sparring games (issue 83, item 4): Corvid against a stronger engine.

    sparring_positions.py PGN... --prefix OUT [--engine corvid] [--min-ply 16] [--gap 50]

Reads the PGN that docs/scripts/sparring.sh writes (fastchess; each move's comment holds the
mover's score, `{+0.35/12 0.021s}`) and writes, for every position from ply --min-ply on (plies
counted from the standard start, as `corvid train --min-ply` counts them) that is not in check:

- OUT.scored.txt: the positions Corvid moved in, as `FEN | score | result` (the trainer's text;
  score in centipawns and result from White's view): the score is Corvid's own search score of
  that move, so at fixed nodes it is the label `corvid label` would give at those nodes.
  Mate scores are left out, as `corvid label` leaves them out.
- OUT.opponent.epd: the positions the opponent moved in, as `FEN [result]`, for
  `corvid label --nodes N` to score with Corvid's own search (the opponent's scores are on its own
  scale and are not training labels).
- OUT.book.epd: the positions where Corvid's score stood --gap centipawns or more above the
  opponent's score of the position after Corvid's move (both from Corvid's side): the
  misjudgements item 4's option (b) starts self-play from (`corvid datagen --book`).

It prints the games, the positions of each kind and Corvid's own-side bias (its score minus the
opponent's, from Corvid's side, mean and median by ply bucket): the figure item 4 wants to shrink.
"""
import argparse
import statistics
import sys

import chess
import chess.pgn


def comment_score(comment):
    """The mover's score in centipawns from a fastchess comment, None for none or a mate."""
    text = comment.strip().split()
    if not text:
        return None
    head = text[0].split("/")[0]
    if "M" in head:
        return None
    try:
        return round(float(head) * 100)
    except ValueError:
        return None


RESULTS = {"1-0": "1.0", "0-1": "0.0", "1/2-1/2": "0.5"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--engine", default="corvid", help="Corvid's player name in the PGN")
    parser.add_argument("--min-ply", type=int, default=16)
    parser.add_argument("--gap", type=int, default=50)
    args = parser.parse_args()

    games = skipped = 0
    scored = opponent = book = 0
    bias = {}
    with open(args.prefix + ".scored.txt", "w") as out_scored, \
            open(args.prefix + ".opponent.epd", "w") as out_opp, \
            open(args.prefix + ".book.epd", "w") as out_book:
        for path in args.pgn:
            with open(path) as handle:
                while True:
                    game = chess.pgn.read_game(handle)
                    if game is None:
                        break
                    result = RESULTS.get(game.headers.get("Result", "*"))
                    players = (game.headers.get("White"), game.headers.get("Black"))
                    if result is None or args.engine not in players:
                        skipped += 1
                        continue
                    corvid = chess.WHITE if players[0] == args.engine else chess.BLACK
                    games += 1
                    board = game.board()
                    nodes = list(game.mainline())
                    for i, node in enumerate(nodes):
                        ply = (board.fullmove_number - 1) * 2 + (0 if board.turn == chess.WHITE else 1)
                        score = comment_score(node.comment)
                        if ply >= args.min_ply and not board.is_check():
                            fen = board.fen()
                            if board.turn == corvid:
                                if score is not None:
                                    white = score if board.turn == chess.WHITE else -score
                                    out_scored.write(f"{fen} | {white} | {result}\n")
                                    scored += 1
                                    reply = comment_score(nodes[i + 1].comment) if i + 1 < len(nodes) else None
                                    if reply is not None:
                                        # Corvid's score against the opponent's of the next position,
                                        # both from Corvid's side.
                                        gap = score + reply
                                        bias.setdefault(min(ply // 20 * 20, 100), []).append(gap)
                                        if gap >= args.gap:
                                            out_book.write(f"{fen}\n")
                                            book += 1
                            else:
                                out_opp.write(f"{fen} [{result}]\n")
                                opponent += 1
                        board.push(node.move)
    print(f"games {games} (skipped {skipped}); Corvid's positions scored {scored}; "
          f"the opponent's to label {opponent}; book positions (gap >= {args.gap}) {book}")
    print("Corvid's score minus the opponent's, from Corvid's side (centipawns):")
    print("plies     n     mean  median")
    for start in sorted(bias):
        values = bias[start]
        label = f"{start}-{start + 19}" if start < 100 else "100+"
        print(f"{label:8} {len(values):6} {statistics.mean(values):7.1f} {statistics.median(values):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
