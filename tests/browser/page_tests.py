"""The page in headless Chromium, as a person uses it: squares clicked, controls set, the PGN
read back. Element ids and `data-square` attributes are the page's documented test surface
(docs/web.md)."""

import io
import random
import time

import chess
import chess.pgn
from selenium.webdriver.support.ui import Select

import harness


def click(driver, square):
    driver.find_element("css selector", f'[data-square="{square}"]').click()


def text(driver, id_):
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", id_)


def pgn_game(driver):
    game = chess.pgn.read_game(io.StringIO(text(driver, "pgn")))
    assert game is not None, text(driver, "pgn")
    assert not game.errors, game.errors
    return game


def board_of(driver):
    """The position the page's PGN replays to."""
    return pgn_game(driver).end().board()


def wait(test, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {timeout} s")


def page_fen(driver):
    return driver.execute_script("return game.state.fen")


def new_game(driver, colour="white", level="1800", tc="300+3"):
    Select(driver.find_element("id", "colour")).select_by_value(colour)
    Select(driver.find_element("id", "level")).select_by_value(level)
    Select(driver.find_element("id", "tc")).select_by_value(tc)
    driver.find_element("id", "new-game").click()


def loads_without_errors_and_starts_a_game_with_white_to_move(driver):
    wait(lambda: driver.execute_script("return Engine.ready"), 20, "the engine ready")
    assert text(driver, "turn") == "white", text(driver, "turn")
    assert text(driver, "result") == "*"
    assert len(driver.find_elements("css selector", "[data-square]")) == 64
    errors = harness.console_errors(driver)
    assert not errors, errors


def a_click_move_is_answered_with_a_legal_move(driver):
    new_game(driver)
    click(driver, "e2")
    click(driver, "e4")
    assert "1. e4" in text(driver, "pgn"), text(driver, "pgn")
    wait(lambda: text(driver, "turn") == "white", 30, "Corvid's answer")
    board = board_of(driver)
    assert len(board.move_stack) == 2, text(driver, "pgn")
    assert board.fen() == page_fen(driver)


def an_illegal_move_changes_nothing(driver):
    before = (text(driver, "pgn"), page_fen(driver))
    click(driver, "d2")
    click(driver, "d5")  # a pawn cannot go three squares
    click(driver, "e1")
    click(driver, "e3")  # nor a king two
    click(driver, "a8")  # nor may White pick up Black's rook
    time.sleep(0.3)
    assert (text(driver, "pgn"), page_fen(driver)) == before


def undo_takes_back_the_persons_move_and_the_answer(driver):
    click(driver, "d2")
    click(driver, "d4")
    wait(lambda: len(board_of(driver).move_stack) == 4, 30, "Corvid's answer")
    driver.find_element("id", "undo").click()
    assert len(board_of(driver).move_stack) == 2, text(driver, "pgn")
    assert text(driver, "turn") == "white"


def a_typed_move_is_played(driver):
    new_game(driver)
    box = driver.find_element("id", "move-input")
    box.send_keys("Nf3\n")
    assert "1. Nf3" in text(driver, "pgn"), text(driver, "pgn")
    box.send_keys("Ke8\n")  # not a legal move: refused
    wait(lambda: text(driver, "turn") == "white", 30, "Corvid's answer")


def promotion_asks_which_piece(driver):
    driver.find_element("css selector", ".pgn-box summary").click()
    driver.find_element("id", "import-text").send_keys("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    driver.find_element("id", "import").click()
    click(driver, "a7")
    click(driver, "a8")
    dialog = driver.find_element("id", "promotion")
    assert dialog.is_displayed()
    # The four pieces stand in a column over a8, the queen on it.
    square = driver.find_element("css selector", '[data-square="a8"]').rect
    queen = dialog.find_element("css selector", '[data-piece="q"]').rect
    knight = dialog.find_element("css selector", '[data-piece="n"]').rect
    assert abs(queen["x"] - square["x"]) < 2 and abs(queen["y"] - square["y"]) < 2, (queen, square)
    assert abs(knight["x"] - square["x"]) < 2 and knight["y"] > queen["y"] + 2 * square["height"], (knight, square)
    driver.save_screenshot(harness.shot("promotion"))
    dialog.find_element("css selector", '[data-piece="n"]').click()
    assert "a8=N" in text(driver, "pgn"), text(driver, "pgn")


def a_whole_game_ends_and_its_pgn_replays(driver):
    """Random moves for the person against full strength on a one-minute clock: Corvid mates (or
    the rules end it) well before the clocks would."""
    new_game(driver, "white", "full", "60+0")
    rng = random.Random(67)
    deadline = time.monotonic() + 240
    while text(driver, "result") == "*":
        assert time.monotonic() < deadline, "the game did not end"
        if text(driver, "turn") == "white" and text(driver, "result") == "*":
            legal = driver.execute_script("return game.state.legal")
            if legal:
                move = rng.choice(legal)
                click(driver, move[:2])
                click(driver, move[2:4])
                if len(move) == 5:
                    driver.find_element("css selector", '#promotion [data-piece="q"]').click()
        time.sleep(0.1)
    game = pgn_game(driver)
    board = game.end().board()
    assert game.headers["Result"] == text(driver, "result") != "*"
    assert board.fen() == page_fen(driver), "the PGN replays to the page's position"
    if board.is_checkmate():
        assert text(driver, "result") == ("0-1" if board.turn == chess.WHITE else "1-0")
    # Once over, the graph of Corvid's own evaluation, one point for each of its moves.
    graph = driver.find_element("id", "graph-box")
    assert graph.is_displayed(), "the evaluation graph after the game"
    points = int(driver.find_element("id", "graph").get_attribute("data-points"))
    corvid_moves = len(board.move_stack) // 2
    assert corvid_moves - 1 <= points <= corvid_moves, (points, corvid_moves)
    driver.save_screenshot(harness.shot("finished-game-graph"))
    return game.headers["Result"], len(board.move_stack), f"graph of {points} points"


def analysis_deepens_and_stops_on_the_button(driver):
    driver.find_element("id", "analyse").click()
    depth = lambda: int(text(driver, "depth")) if text(driver, "depth").isdigit() else 0  # noqa: E731
    wait(lambda: depth() >= 8, 30, "analysis to depth 8")
    first = depth()
    wait(lambda: depth() > first, 30, "a deeper analysis")
    assert text(driver, "eval") not in ("", "–")
    assert len(driver.find_elements("css selector", "#lines li")) >= 2, "MultiPV lines"
    toggle = driver.find_element("id", "analysis-toggle")
    toggle.click()
    time.sleep(0.5)
    stopped = depth()
    time.sleep(1.5)
    assert depth() == stopped, "the analysis went on after Stop"
    assert not driver.execute_script("return Engine.open.some((s) => !s.stale)")
    driver.find_element("id", "analyse").click()


def analysis_shows_a_bar_and_the_best_move_as_an_arrow(driver):
    """In analysis the best line's first move is drawn as an arrow over the board and its score
    fills a bar beside it (White's share, 50% for an equal position)."""
    new_game(driver, "white", "1800", "none")
    driver.find_element("id", "analyse").click()
    try:
        wait(lambda: text(driver, "depth").isdigit() and int(text(driver, "depth")) >= 8, 30, "analysis to depth 8")
        time.sleep(0.4)
        best = driver.execute_script("return analysis.lines[0].pv[0]")
        arrow = driver.execute_script("const g = document.querySelector('#arrows g'); return g && g.dataset.move")
        assert arrow == best, (arrow, best)
        assert chess.Move.from_uci(arrow) in chess.Board().legal_moves, arrow
        bar = driver.find_element("id", "evalbar")
        assert bar.is_displayed()
        white = float(bar.get_attribute("data-white"))
        assert 35 <= white <= 65, f"the start is about equal: {white}% for White"
        driver.save_screenshot(harness.shot("analysis-bar-arrow"))
        return f"arrow {arrow}, bar {white}% for White"
    finally:
        driver.find_element("id", "analyse").click()


def the_move_list_navigates_and_returns_to_the_game(driver):
    """A click on a move shows its position; the arrow keys step, End returns; the game is
    unchanged."""
    new_game(driver, "white", "1800", "none")
    click(driver, "e2")
    click(driver, "e4")
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's first move")
    click(driver, "d2")
    click(driver, "d4")
    wait(lambda: len(board_of(driver).move_stack) == 4, 30, "Corvid's second move")
    piece_on = lambda sq: driver.execute_script(  # noqa: E731
        "const p = document.querySelector(`[data-square=${arguments[0]}] .piece`); return p ? p.className : null", sq)
    driver.find_element("css selector", '#moves [data-ply="1"]').click()
    assert piece_on("e4") and not piece_on("e2") and piece_on("d2"), "after 1. e4, d2 still home"
    assert driver.find_element("id", "viewing").is_displayed()
    body = driver.find_element("tag name", "body")
    body.send_keys("\ue014")  # ArrowRight: after Black's first move
    assert driver.execute_script("return view") == 2
    body.send_keys("\ue012")  # ArrowLeft
    body.send_keys("\ue012")
    assert driver.execute_script("return view") == 0 and piece_on("e2"), "the start"
    body.send_keys("\ue010")  # End: the game's position
    assert driver.execute_script("return view") is None and piece_on("d4")
    assert not driver.find_element("id", "viewing").is_displayed()
    assert len(board_of(driver).move_stack) == 4, "the game is unchanged"


def pieces_move_by_dragging_with_a_mouse_and_a_finger(driver):
    """Drag and drop with the mouse, then with touch: each plays the move (click-click is
    tested elsewhere)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    new_game(driver, "white", "1800", "none")
    square = lambda sq: driver.find_element("css selector", f'[data-square="{sq}"]')  # noqa: E731
    ActionChains(driver).click_and_hold(square("e2")).move_to_element(square("e3")).move_to_element(square("e4")).release().perform()
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's answer to a dragged move")
    assert board_of(driver).move_stack[0].uci() == "e2e4"
    finger = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    finger.pointer_action.move_to(square("g1")).pointer_down().move_to(square("g2")).move_to(square("f3")).pointer_up()
    finger.perform()
    wait(lambda: len(board_of(driver).move_stack) == 4, 30, "Corvid's answer to a move dragged by a finger")
    assert board_of(driver).move_stack[2].uci() == "g1f3"


def material_and_sounds_follow_the_game(driver):
    """The side ahead in material shows the pieces it has more of and the points; with Sound on,
    a move, a capture and a check each make their sound."""
    driver.execute_script("document.getElementById('import-text').value = arguments[0];"
                          "document.getElementById('import').click()",
                          "4k3/8/8/3p4/8/8/3NP3/4K3 w - - 0 1")
    wait(lambda: "+3" in text(driver, "material-bottom"), 5, "White's knight and pawn ahead (+3)")
    assert text(driver, "material-top") == "", text(driver, "material-top")
    sound = driver.find_element("id", "sound")
    if not sound.is_selected():
        sound.click()
    driver.execute_script("Sound.played.length = 0")
    driver.execute_script("document.getElementById('import-text').value = arguments[0];"
                          "document.getElementById('import').click()",
                          "4k3/8/8/3p4/4P3/8/8/R3K3 w - - 0 1")
    wait(lambda: text(driver, "turn") == "white", 5, "the position loaded")
    driver.find_element("id", "analyse").click()
    try:
        for a, b in [("e4", "d5"), ("e8", "d7"), ("a1", "a7")]:
            click(driver, a)
            click(driver, b)
        played = driver.execute_script("return Sound.played")
        assert played == ["capture", "move", "check"], played
    finally:
        driver.find_element("id", "analyse").click()
        sound.click()
    return "+3 shown; sounds " + ", ".join(played)


def clock_running(driver, place):
    return "running" in driver.find_element("id", f"clock-{place}").get_attribute("class")


def the_clocks_wait_for_both_first_moves_and_outlast_analysis(driver):
    """As on lichess, no clock runs before both sides have moved; ticking Analysis on and off
    keeps the game's clocks (they were dropped for the rest of the game)."""
    new_game(driver, colour="white", level="1800", tc="300+3")
    time.sleep(1.2)
    assert text(driver, "time-bottom") == "5:00", text(driver, "time-bottom")
    assert not clock_running(driver, "bottom") and not clock_running(driver, "top")
    click(driver, "e2")
    click(driver, "e4")
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's first move")
    # Both sides have moved: White's clock runs now.
    wait(lambda: clock_running(driver, "bottom"), 5, "White's clock running after both first moves")
    driver.find_element("id", "analyse").click()
    time.sleep(0.3)
    driver.find_element("id", "analyse").click()
    wait(lambda: clock_running(driver, "bottom"), 5, "the clock again after the analysis")
    assert ":" in text(driver, "time-bottom") and ":" in text(driver, "time-top"), text(driver, "time-bottom")


def a_fen_loaded_in_check_says_check(driver):
    driver.execute_script("document.getElementById('import-text').value = arguments[0];"
                          "document.getElementById('import').click()",
                          "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3")
    wait(lambda: "Check" in text(driver, "status"), 5, f"the status to say check (it says {text(driver, 'status')!r})")
    return text(driver, "status")


def a_long_game_keeps_a_phone_window_narrow(driver):
    """A 100-ply game on a phone-sized window (390 x 844): the page stays as wide as the window
    and every control stays on it (the move list once grew the page to 733 px and pushed "New
    game" off the left edge). Returns the page's width."""
    rng = random.Random(81)
    while True:
        board = chess.Board()
        while len(board.move_stack) < 100 and not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
        if len(board.move_stack) == 100:
            break
    pgn = str(chess.pgn.Game.from_board(board))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        # Loaded by a script's click: on the broken layout the button can be off the window.
        driver.execute_script("document.getElementById('import-text').value = arguments[0];"
                              "document.getElementById('import').click()", pgn)
        wait(lambda: len(driver.find_elements("css selector", "#moves .m:not(.none)")) >= 100, 20,
             "the 100 moves listed")
        geometry = driver.execute_script("""
            const box = (id) => document.getElementById(id).getBoundingClientRect();
            return {page: document.documentElement.scrollWidth, window: window.innerWidth,
                    newGame: [box('new-game').left, box('new-game').right],
                    moves: [box('moves').left, box('moves').right]};""")
        assert geometry["window"] == 390, geometry
        assert geometry["page"] <= geometry["window"], geometry
        for id_ in ("newGame", "moves"):
            left, right = geometry[id_]
            assert left >= 0 and right <= geometry["window"], (id_, geometry)
        driver.save_screenshot(harness.shot("phone-long-game"))
        return f"page {geometry['page']} px wide in a {geometry['window']} px window after 100 plies"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def installable_as_an_app(driver):
    """Chromium's own installability check (DevTools' `Page.getInstallabilityErrors`) finds
    nothing missing: a manifest with a name, a start URL, icons of 192 and 512 pixels, and a
    service worker that answers fetches."""
    assert driver.execute_async_script("Offline.ready.then(arguments[0])") is True, "the service worker is ready"
    manifest = driver.execute_async_script(
        "fetch('manifest.webmanifest').then(r => r.json()).then(arguments[0], e => arguments[0](String(e)))"
    )
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes, manifest
    errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"]
    assert errors == [], errors
    return f"{manifest['name']}, icons {sorted(sizes)}"


CHECKS = [
    a_click_move_is_answered_with_a_legal_move,
    an_illegal_move_changes_nothing,
    undo_takes_back_the_persons_move_and_the_answer,
    a_typed_move_is_played,
    analysis_deepens_and_stops_on_the_button,
    promotion_asks_which_piece,
    a_whole_game_ends_and_its_pgn_replays,
    the_clocks_wait_for_both_first_moves_and_outlast_analysis,
    a_fen_loaded_in_check_says_check,
    a_long_game_keeps_a_phone_window_narrow,
    installable_as_an_app,
    analysis_shows_a_bar_and_the_best_move_as_an_arrow,
    the_move_list_navigates_and_returns_to_the_game,
    pieces_move_by_dragging_with_a_mouse_and_a_finger,
    material_and_sounds_follow_the_game,
]


def works_offline_once_loaded(driver, server):
    """The server goes away: a new game, a move answered, analysis started and stopped (in the
    fallback mode that replaces the engine's worker) and a move after it all still work; then
    the page is reloaded, still without the server, and plays from what the service worker
    kept."""
    assert driver.execute_async_script("Offline.ready.then(arguments[0])") is True, "the files are kept"
    server.shutdown()
    server.server_close()
    new_game(driver, "white", "1800", "300+3")
    click(driver, "e2")
    click(driver, "e4")
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's answer offline")
    driver.find_element("id", "analyse").click()
    wait(lambda: text(driver, "depth").isdigit() and int(text(driver, "depth")) >= 6, 30, "analysis offline")
    driver.find_element("id", "analysis-toggle").click()
    driver.find_element("id", "analyse").click()
    click(driver, "d2")
    click(driver, "d4")
    wait(lambda: len(board_of(driver).move_stack) == 4, 30, "Corvid's answer after the analysis, offline")
    errors = [e for e in harness.console_errors(driver) if "favicon" not in e.get("message", "")]
    assert not errors, errors
    driver.refresh()
    wait(lambda: driver.execute_script("return !!(typeof game !== 'undefined' && game.state && document.querySelector('[data-square=e2] .piece'))"), 30, "the page reloaded offline")
    assert driver.execute_script("return !!navigator.serviceWorker.controller"), "served by the service worker"
    new_game(driver, "white", "1800", "300+3")
    click(driver, "e2")
    click(driver, "e4")
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's answer after a reload offline")
    errors = [e for e in harness.console_errors(driver) if "favicon" not in e.get("message", "")]
    assert not errors, errors


# On the second host only what depends on the worker's mode (the page's own logic is the same).
MODE_CHECKS = [
    a_click_move_is_answered_with_a_legal_move,
    an_illegal_move_changes_nothing,
    analysis_deepens_and_stops_on_the_button,
]


def run_all(driver, url, log, server=None, checks=None):
    failures = []
    started = time.monotonic()
    driver.get(url)
    # From opening the page to Corvid's first move, with what a fresh page offers: the person
    # plays 1. e4 as soon as the board is there.
    wait(lambda: driver.execute_script("return !!(game.state && document.querySelector('[data-square=e2] .piece'))"), 30, "the board")
    try:
        loads_without_errors_and_starts_a_game_with_white_to_move(driver)
        log("  ok   loads_without_errors_and_starts_a_game_with_white_to_move")
    except AssertionError as e:
        failures.append(f"loads_without_errors_and_starts_a_game_with_white_to_move: {e}")
        log(f"  FAIL loads_without_errors_and_starts_a_game_with_white_to_move: {e}")
    click(driver, "e2")
    click(driver, "e4")
    wait(lambda: len(board_of(driver).move_stack) == 2, 30, "Corvid's first move")
    first = time.monotonic() - started
    ready = driver.execute_script("return Engine.readyAt") / 1000
    log(f"  ok   opening the page to Corvid's first move: {first:.2f} s (engine ready {ready:.2f} s after the page began loading)")
    for check in checks or CHECKS:
        try:
            found = check(driver)
            log(f"  ok   {check.__name__}{f': {found}' if found else ''}")
        except AssertionError as e:
            failures.append(f"{check.__name__}: {e}")
            log(f"  FAIL {check.__name__}: {e}")
    if server is not None:
        try:
            works_offline_once_loaded(driver, server)
            log("  ok   works_offline_once_loaded")
        except AssertionError as e:
            failures.append(f"works_offline_once_loaded: {e}")
            log(f"  FAIL works_offline_once_loaded: {e}")
    return failures
