#!/usr/bin/env python3
"""Writes expected.txt: random legal positions of every table in ../shared/data/syzygy with
python-chess's WDL and DTZ for them (an independent prober of the same files).

    python3 tests/data/syzygy/make_expected.py ../shared/data/syzygy > tests/data/syzygy/expected.txt

Lines are `FEN ; wdl ; dtz`. Per table 250 positions, a fifth of them with an en-passant
capture on the board where the table has pawns on both sides. Seeded: the same files give the
same lines."""
import os
import random
import sys

import chess
import chess.syzygy

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(rng, white, black, ep):
    while True:
        board = chess.Board(None)
        squares = list(range(64))
        rng.shuffle(squares)
        ok = True
        for color, side in ((chess.WHITE, white), (chess.BLACK, black)):
            for ch in side:
                sq = squares.pop()
                if ch == "P" and chess.square_rank(sq) in (0, 7):
                    ok = False
                board.set_piece_at(sq, chess.Piece(PIECES[ch], color))
        if not ok:
            continue
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if ep:
            # Put a pawn of the side not to move just past its double step, beside a pawn of
            # the side to move.
            mover = board.turn
            theirs = [s for s in board.pieces(chess.PAWN, not mover)]
            mine = [s for s in board.pieces(chess.PAWN, mover)]
            if not theirs or not mine:
                continue
            rank = 4 if mover == chess.WHITE else 3
            f = rng.randrange(8)
            g = f + rng.choice([-1, 1])
            if not 0 <= g < 8:
                continue
            t, m = theirs[0], mine[0]
            board.remove_piece_at(t)
            board.remove_piece_at(m)
            to, beside = chess.square(f, rank), chess.square(g, rank)
            step = 8 if mover == chess.WHITE else -8
            passed, start = to + step, to + 2 * step
            if any(board.piece_at(s) for s in (to, beside, passed, start)):
                continue
            board.set_piece_at(to, chess.Piece(chess.PAWN, not mover))
            board.set_piece_at(beside, chess.Piece(chess.PAWN, mover))
            board.ep_square = passed
        if board.is_valid() and (not ep or board.has_legal_en_passant()):
            return board


def main():
    directory = sys.argv[1]
    rng = random.Random(20261124)
    names = sorted({os.path.splitext(f)[0] for f in os.listdir(directory) if f.endswith(".rtbw")})
    with chess.syzygy.open_tablebase(directory) as tb:
        for name in names:
            white, black = name.split("v")
            both_pawns = "P" in white and "P" in black
            for i in range(250):
                w, b = (black, white) if i % 2 else (white, black)
                board = random_position(rng, w, b, both_pawns and i % 5 == 0)
                wdl = tb.probe_wdl(board)
                dtz = tb.probe_dtz(board)
                print(f"{board.fen()} ; {wdl} ; {dtz}")


if __name__ == "__main__":
    main()
