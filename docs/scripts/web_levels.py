#!/usr/bin/env python3
"""A game through the page at each strength level: Corvid (the page, as Black, at the level, 3+2)
against Stockfish 15.1 limited to UCI_Elo ELO (default 1500; Debian's `stockfish`), whose moves
the script clicks on the board as a person would. Prints each game's result and length.

    python3 docs/scripts/web_levels.py [ELO] [LEVEL...]
"""

import os
import sys
import time

import chess
import chess.engine

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "browser"))
import harness  # noqa: E402
import page_tests  # noqa: E402


def play(driver, url, level, sf):
    driver.get(url)
    page_tests.wait(lambda: driver.execute_script("return Engine.ready"), 30, "the engine")
    page_tests.new_game(driver, "white", level, "180+2")
    board = chess.Board()
    deadline = time.monotonic() + 900
    while page_tests.text(driver, "result") == "*" and time.monotonic() < deadline:
        if page_tests.text(driver, "turn") == "white" and len(page_tests.board_of(driver).move_stack) % 2 == 0:
            board = page_tests.board_of(driver)
            move = sf.play(board, chess.engine.Limit(time=0.1)).move.uci()
            page_tests.click(driver, move[:2])
            page_tests.click(driver, move[2:4])
            if len(move) == 5:
                driver.find_element("css selector", f'#promotion [data-piece="{move[4]}"]').click()
        time.sleep(0.05)
    game = page_tests.pgn_game(driver)
    reason = driver.execute_script("return game.over ? game.over.reason : 'unfinished'")
    return page_tests.text(driver, "result"), len(game.end().board().move_stack), reason


def main():
    elo = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    levels = sys.argv[2:] or ["1000", "1200", "1400", "1600", "1800", "2000", "2200", "2400", "full"]
    server, url = harness.serve.serve_in_background(harness.DIST, isolated=True)
    driver = harness.chromium()
    sf = chess.engine.SimpleEngine.popen_uci("/usr/games/stockfish")
    sf.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
    try:
        for level in levels:
            result, plies, reason = play(driver, url, level, sf)
            verdict = {"0-1": "Corvid won", "1-0": "Stockfish won", "1/2-1/2": "draw"}.get(result, "unfinished")
            print(f"level {level}: Stockfish 15.1 at UCI_Elo {elo} (White) against Corvid: {result} ({verdict}, {reason}), {plies} plies", flush=True)
    finally:
        sf.quit()
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
