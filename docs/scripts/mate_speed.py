#!/usr/bin/env python3
"""How fast an engine mates a bare king (issue 69, item 4): random placements of KQ, KR, KBN and
KBB against K, the strong side to move, each played out by the engine for both sides at NODES a
move until mate, a draw, or 100 plies; plies to mate against the tables' distance to zeroing
(DTZ, here the distance to mate: the attacker never captures and the defender has nothing to
capture but an undefended piece, which the search never leaves); the fifty-move rule ends a
game at 100 plies. ENDINGS=KBNvK,... measures only those. Needs python-chess and the Syzygy
tables in ../shared/data/syzygy.

    python3 docs/scripts/mate_speed.py ENGINE [NODES] [PER_ENDING] [SEED]
"""

import os
import random
import statistics
import sys

import chess
import chess.engine
import chess.syzygy

ENDINGS = {"KQvK": [chess.QUEEN], "KRvK": [chess.ROOK], "KBNvK": [chess.BISHOP, chess.KNIGHT], "KBBvK": [chess.BISHOP, chess.BISHOP]}


def placement(rng, pieces):
    """A legal position, White (the strong side) to move, not over, winning by the tables."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 2 + len(pieces))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq, p in zip(squares[2:], pieces):
            board.set_piece_at(sq, chess.Piece(p, chess.WHITE))
        bishops = [sq for sq, p in zip(squares[2:], pieces) if p == chess.BISHOP]
        if len(bishops) == 2 and chess.square_file(bishops[0]) % 2 ^ chess.square_rank(bishops[0]) % 2 == chess.square_file(bishops[1]) % 2 ^ chess.square_rank(bishops[1]) % 2:
            continue
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_game_over():
            return board


def main():
    engine_path = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    per = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 69)
    tables = chess.syzygy.open_tablebase("../shared/data/syzygy")
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    engine.configure({"Hash": 16})
    total_extra = []
    try:
        only = [e for e in os.environ.get("ENDINGS", "").split(",") if e]
        for name, pieces in ENDINGS.items():
            if only and name not in only:
                continue
            extra, unmated = [], 0
            for _ in range(per):
                board = placement(rng, pieces)
                dtz = tables.probe_dtz(board)
                if dtz <= 0:
                    continue
                start = board.copy()
                engine.protocol.send_line("ucinewgame")
                while not board.is_game_over(claim_draw=True) and board.ply() < 100:
                    board.push(engine.play(board, chess.engine.Limit(nodes=nodes), game=start).move)
                if board.is_checkmate() and board.turn == chess.BLACK:
                    extra.append(board.ply() - dtz)
                else:
                    unmated += 1
            mean = statistics.mean(extra) if extra else float("nan")
            total_extra += extra
            print(f"{name}: {len(extra)} mated, {unmated} not mated in 100 plies, plies beyond the tables' distance: mean {mean:.1f}, max {max(extra, default=0)}", flush=True)
    finally:
        engine.quit()
    print(f"all: {len(total_extra)} mated, mean plies beyond the tables' {statistics.mean(total_extra):.2f}")


if __name__ == "__main__":
    main()
