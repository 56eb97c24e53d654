# An independent reading of a UCI session: replays the lines a test sent with python-chess's
# boards, as the UCI specification defines `position`, `ucinewgame` and `UCI_Chess960`, and
# checks that the `bestmove` of each search is legal in the position it was asked in.
#
# usage: python3 tests/uci_oracle.py LOG GOS
#   LOG: the lines sent, one a line.
#   GOS: one search a line: the index (from 0) of its `go` line in LOG, a tab, its `bestmove` line.
# Prints one line per disagreement and a summary; exits 1 on any disagreement.
#
# The engine is Corvid (tests/fuzz.rs); nothing here comes from its parser. Rules read from the
# specification: a `position` that cannot be read, or a FEN the board cannot take, leaves no
# position, and every search until a good `position` or `ucinewgame` answers `bestmove 0000` (a
# move of the position before would be one the GUI did not ask about); the move list stops
# at the first move that is not legal, keeping the moves before it; `ucinewgame` goes back to the
# start position; `UCI_Chess960` (a check option, "true" or "false" in any case) writes castling
# as king takes rook, and a FEN whose castling rights only Chess960 has is a Chess960 position
# whatever the option says. A FEN needs at least its first four fields; the other rules a board
# must keep are in `board_from`.
import re
import sys

import chess

# Rust's `split_whitespace` (the Unicode White_Space property), which UCI engines and GUIs use;
# Python's `str.split()` also splits on \x1c-\x1f, which are not white space there.
WHITE = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


def words(line):
    return [w for w in WHITE.split(line) if w]


def board_from(fen_words, chess960_option):
    """The board a `position fen` names, or None when it is not a legal position."""
    # At least the four fields of an EPD position (placement, side, castling, en passant); the
    # clocks may be left out. python-chess would also take fewer.
    if not 4 <= len(fen_words) <= 6:
        return None
    # Runs of digits in a rank are read as their sum (`1b1n11p1`), as lenient readers do; a 0 is
    # no count of squares.
    if "0" in fen_words[0]:
        return None
    placement = re.sub(r"\d{2,}", lambda m: str(sum(int(c) for c in m.group())), fen_words[0])
    # Each castling right once; the clocks whole numbers, the move number from 1 (the FEN
    # standard's rules, which python-chess does not all enforce).
    castling = fen_words[2]
    if castling != "-" and len(set(castling)) != len(castling):
        return None
    clocks = list(fen_words[4:])
    if not all(c.isdigit() for c in clocks) or (len(clocks) == 2 and int(clocks[1]) < 1):
        return None
    fen = " ".join([placement] + list(fen_words[1:]))
    try:
        board = chess.Board(fen, chess960=True)
    except ValueError:
        return None
    # A check that no last move could have given is still a position to play from; any other
    # fault python-chess finds (kings, pawns on the last rank, the side not to move in check,
    # castling rights or an en-passant square that cannot be) refuses it.
    # More material than a game can reach (a board editor's position) is played too, as
    # Stockfish and shakmaty's `ignore_too_much_material` play it.
    beyond_game = (chess.STATUS_TOO_MANY_WHITE_PAWNS | chess.STATUS_TOO_MANY_BLACK_PAWNS
                   | chess.STATUS_TOO_MANY_WHITE_PIECES | chess.STATUS_TOO_MANY_BLACK_PIECES)
    if board.status() & ~(chess.STATUS_IMPOSSIBLE_CHECK | beyond_game):
        return None
    board.chess960 = chess960_option or board.has_chess960_castling_rights()
    return board


def parse_move(board, text):
    try:
        move = board.parse_uci(text)
    except ValueError:
        return None
    return move if board.is_legal(move) else None


def main():
    log = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
    gos = {}
    for line in open(sys.argv[2], encoding="utf-8").read().splitlines():
        index, best = line.split("\t", 1)
        gos[int(index)] = best
    chess960 = False
    board = chess.Board()
    checked = bad = 0
    for n, line in enumerate(log):
        w = words(line)
        if n in gos:
            best = gos.pop(n)
            ok, why = check(board, best)
            checked += 1
            if not ok:
                bad += 1
                where = "no position" if board is None else f"{board.fen()} (chess960 {board.chess960})"
                print(f"line {n} ({line[:80]!r}): '{best}' {why} in {where}")
            continue
        if not w:
            continue
        if w[0] == "ucinewgame" and len(w) == 1:
            board = chess.Board(chess960=chess960)
        elif w[0] == "setoption" and len(w) >= 2 and w[1] == "name":
            rest = w[2:]
            name, value = (rest, None)
            if "value" in rest:
                i = rest.index("value")
                name, value = rest[:i], " ".join(rest[i + 1:])
            if " ".join(name).lower() == "uci_chess960" and value is not None:
                v = value.strip().lower()
                if v in ("true", "false"):
                    chess960 = v == "true"
                    if board is not None:
                        board.chess960 = chess960 or board.has_chess960_castling_rights()
        elif w[0] == "position":
            board = position(w[1:], chess960)
    if gos:
        print(f"{len(gos)} searches not found in the log")
        bad += 1
    print(f"oracle: {checked} searches checked, {bad} disagreements")
    sys.exit(1 if bad else 0)


def position(w, chess960):
    if w[:1] == ["startpos"]:
        board, rest = chess.Board(chess960=chess960), w[1:]
    elif w[:1] == ["fen"]:
        end = w.index("moves") if "moves" in w else len(w)
        if end == 1:
            return None
        board, rest = board_from(w[1:end], chess960), w[end:]
        if board is None:
            return None
    else:
        return None
    if rest and rest[0] != "moves":
        return None
    for text in rest[1:]:
        move = parse_move(board, text)
        if move is None:
            break
        board.push(move)
    return board


def check(board, line):
    w = words(line)
    if len(w) not in (2, 4) or w[0] != "bestmove" or (len(w) == 4 and w[2] != "ponder"):
        return False, "is malformed"
    if board is None:
        return w[1] == "0000" and len(w) == 2, "is a move after a refused position"
    if w[1] == "0000":
        return (not any(board.legal_moves)), "has a legal move"
    move = parse_move(board, w[1])
    if move is None:
        return False, "is not legal"
    if len(w) == 4:
        after = board.copy()
        after.push(move)
        if parse_move(after, w[3]) is None:
            return False, "ponders a move not legal"
    return True, ""


if __name__ == "__main__":
    main()
