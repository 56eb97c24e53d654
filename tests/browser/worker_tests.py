"""The UCI worker in headless Chromium, in each of its modes: every check a GUI relies on,
line by line with the pauses a GUI leaves. Each check is a function taking the worker."""

import json
import random
import time
import urllib.parse

import chess

from harness import DIST, Worker, serve


def bestmoves(lines):
    return [line for line in lines if line.startswith("bestmove")]


def is_best(line):
    return line.startswith("bestmove")


def legal(line, board):
    move = line.split()[1]
    assert chess.Move.from_uci(move) in board.legal_moves, f"{line} is not legal in {board.fen()}"


def uci_and_isready(w):
    w.send("uci")
    lines = w.wait_for(lambda l: l == "uciok", 20, "uciok")
    assert any(l.startswith("id name Corvid") for l in lines), lines
    assert any(l.startswith("option name Hash") for l in lines), lines
    # The browser's engine reads no files: it offers no option that would need one.
    for name in ["EvalFile", "BookFile", "OwnBook", "SyzygyPath", "SyzygyProbeDepth"]:
        assert not any(l.startswith(f"option name {name} ") for l in lines), (name, lines)
    w.send("isready")
    w.wait_for(lambda l: l == "readyok", 10, "readyok")


def go_depth_answers_once_with_a_legal_move(w):
    board = chess.Board()
    for m in ["e2e4", "e7e5", "g1f3"]:
        board.push_uci(m)
    w.send("position startpos moves e2e4 e7e5 g1f3")
    w.send("go depth 8")
    lines = w.wait_for(is_best, 30, "bestmove")
    assert any(l.startswith("info depth 8 ") for l in lines), lines[-5:]
    legal(lines[-1], board)
    assert not bestmoves(w.quiet_for(0.3)), "a second bestmove"


def go_infinite_waits_for_stop_and_isready_is_answered_meanwhile(w):
    w.send("position startpos")
    w.send("go infinite")
    lines = w.quiet_for(1.5)
    assert not bestmoves(lines), "bestmove before stop"
    assert any(l.startswith("info depth") for l in lines), "the search reports"
    w.send("isready")
    lines = w.wait_for(lambda l: l == "readyok", 1, "readyok during the search")
    assert not bestmoves(lines), lines
    w.send("stop")
    lines = w.wait_for(is_best, 2, "bestmove after stop")
    legal(lines[-1], chess.Board())
    assert not bestmoves(w.quiet_for(0.3)), "a second bestmove"


def fast_switching_answers_every_go(w):
    """A GUI skipping through a game: `stop`, `position`, `go infinite` several times a second
    without waiting for `bestmove`; every `go` gets exactly one legal answer, in order."""
    rng = random.Random(67)
    board = chess.Board()
    boards = []
    got = []
    for _ in range(6):
        for _ in range(2):
            board.push(rng.choice(list(board.legal_moves)))
        moves = " ".join(m.uci() for m in board.move_stack)
        w.send("stop")
        w.send(f"position startpos moves {moves}")
        w.send("go infinite")
        boards.append(board.copy())
        got += bestmoves(w.quiet_for(0.15))
    w.send("stop")
    while len(got) < len(boards):
        got += bestmoves(w.wait_for(is_best, 5, f"bestmove {len(got) + 1} of {len(boards)}"))
    for line, b in zip(got, boards):
        legal(line, b)
    assert not bestmoves(w.quiet_for(0.5)), "more answers than searches"


def go_right_after_bestmove(w):
    w.send("position startpos")
    for _ in range(5):
        w.send("go depth 4")
        w.wait_for(is_best, 10, "bestmove")
    w.send("isready")
    w.wait_for(lambda l: l == "readyok", 5, "readyok")


def ponderhit_puts_the_search_on_the_clock(w):
    board = chess.Board()
    board.push_uci("e2e4")
    w.send("position startpos moves e2e4")
    w.send("go ponder wtime 3000 btime 3000")
    assert not bestmoves(w.quiet_for(1.0)), "bestmove while pondering"
    w.send("ponderhit")
    lines = w.wait_for(is_best, 4, "bestmove after ponderhit")
    legal(lines[-1], board)


def a_command_during_a_search_stops_it_and_then_runs(w):
    w.send("position startpos")
    w.send("go infinite")
    w.quiet_for(0.5)
    w.send("setoption name MultiPV value 3")
    lines = w.wait_for(is_best, 3, "bestmove for the search the option stopped")
    legal(lines[-1], chess.Board())
    w.send("go depth 6")
    lines = w.wait_for(is_best, 30, "bestmove")
    assert any(" multipv 3 " in l for l in lines), "the option was applied"
    w.send("setoption name MultiPV value 1")


def no_legal_move_is_answered(w):
    w.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    w.send("go depth 5")
    lines = w.wait_for(is_best, 5, "bestmove in stalemate")
    assert lines[-1] == "bestmove 0000", lines
    w.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    w.send("go infinite")
    assert not bestmoves(w.quiet_for(0.5)), "bestmove before stop"
    w.send("stop")
    lines = w.wait_for(is_best, 2, "bestmove when mated")
    assert lines[-1] == "bestmove 0000", lines


def bad_input_gets_an_error_and_the_worker_goes_on(w):
    w.send("position fen rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
    lines = w.wait_for(lambda l: "error" in l, 5, "an error for a broken FEN")
    assert "bad FEN" in lines[-1], lines
    w.send("frobnicate the queen")
    lines = w.wait_for(lambda l: "unknown command" in l, 5, "an error for an unknown command")
    w.send("position startpos moves e2e4 e7e5 e1e8")
    w.wait_for(lambda l: "error" in l, 5, "an error for an illegal move")
    w.send("setoption name Hash value banana")
    w.wait_for(lambda l: "error" in l, 5, "an error for a nonsense value")
    w.send("go depth 5")
    lines = w.wait_for(is_best, 10, "bestmove after bad input")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    legal(lines[-1], board)


def bench_gives_the_native_signature(w, signature):
    w.send("bench")
    lines = w.wait_for(lambda l: l.endswith(" nps"), 120, "the bench total")
    nodes, nps = int(lines[-1].split()[0]), int(lines[-1].split()[2])
    assert nodes == signature, f"{nodes} nodes in the browser, {signature} native"
    return nps


def lines_posted_in_one_tick_are_all_answered(w):
    """A GUI that posts faster than the search polls: `go infinite` and `stop` in one tick during
    a search give two answers, and `position`/`go infinite`/`stop` three times then `isready`
    in one tick give three answers and `readyok` (shared mode gave one answer and no readyok)."""
    def post(lines):
        w.driver.execute_script("for (const line of arguments[0]) T.worker.postMessage(line)", lines)

    def answers(n, then=None):
        """Every line until `n` bestmoves (and `then`) have come; fails after 10 s."""
        seen = []
        deadline = time.monotonic() + 10
        while len(bestmoves(seen)) < n or (then and then not in seen):
            assert time.monotonic() < deadline, f"{n} bestmoves{f' and {then}' if then else ''}: {seen[-6:]}"
            seen += w.new_lines()
            time.sleep(0.01)
        return bestmoves(seen), seen

    w.send("position startpos")
    w.send("go infinite")
    w.quiet_for(0.3)
    post(["go infinite", "stop"])
    got, _ = answers(2)
    for line in got:
        legal(line, chess.Board())
    post(["position startpos", "go infinite", "stop"] * 3 + ["isready"])
    got, seen = answers(3, "readyok")
    assert seen.index("readyok") > seen.index(got[-1]), seen
    assert not bestmoves(w.quiet_for(0.5)), "more answers than searches"


CHECKS = [
    uci_and_isready,
    go_depth_answers_once_with_a_legal_move,
    go_infinite_waits_for_stop_and_isready_is_answered_meanwhile,
    fast_switching_answers_every_go,
    lines_posted_in_one_tick_are_all_answered,
    go_right_after_bestmove,
    ponderhit_puts_the_search_on_the_clock,
    a_command_during_a_search_stops_it_and_then_runs,
    no_legal_move_is_answered,
    bad_input_gets_an_error_and_the_worker_goes_on,
]


def run_all(driver, url, query, expect_isolated, log):
    """Every check on a fresh worker of the page at `url`; a list of failures."""
    driver.get(url)
    isolated = driver.execute_script("return self.crossOriginIsolated === true")
    assert isolated == expect_isolated, f"crossOriginIsolated {isolated} at {url}"
    w = Worker(driver, query)
    return run_checks(w, CHECKS, log), w


def run_checks(w, checks, log, how=""):
    """Each of `checks` on the worker `w`, logged (with `how` after its name); the failures."""
    failures = []
    for check in checks:
        name = f"{check.__name__}{how}"
        try:
            check(w)
            log(f"  ok   {name}")
        except AssertionError as e:
            failures.append(f"{name}: {e}")
            log(f"  FAIL {name}: {e}")
            w.new_lines()
    return failures


def depth_nodes(w, depth):
    """`ucinewgame`, then `go depth` from the start: the last report's node count."""
    w.send("ucinewgame")
    w.send("position startpos")
    w.send(f"go depth {depth}")
    lines = w.wait_for(is_best, 60, f"bestmove at depth {depth}")
    legal(lines[-1], chess.Board())
    counts = [int(l.split()[l.split().index("nodes") + 1]) for l in lines if " nodes " in l]
    return counts[-1]


def threads_in_the_shared_mode(driver, url, log):
    """On a cross-origin isolated page the worker runs the threaded module: `Threads` goes up to
    the page's cores; with two threads a second search thread (a worker of its own) searches
    beside the first (the one-thread search is deterministic, so another node count proves the
    helper took part), every check of a GUI's passes, and back at one thread the count is the
    one-thread count again. Beyond the cores the option is refused; the fallback mode offers one
    thread."""
    failures = []
    driver.get(url)
    cores = driver.execute_script("return navigator.hardwareConcurrency")
    w = Worker(driver)
    try:
        w.send("uci")
        lines = w.wait_for(lambda l: l == "uciok", 20, "uciok")
        offered = [l for l in lines if l.startswith("option name Threads ")]
        assert offered == [f"option name Threads type spin default 1 min 1 max {cores}"], offered
        assert cores >= 2, f"the page has {cores} core(s): no second thread to test"
        one = depth_nodes(w, 11)
        w.send("setoption name Threads value 2")
        w.send("isready")
        w.wait_for(lambda l: l == "readyok", 20, "readyok after Threads 2")
        two = depth_nodes(w, 11)
        assert two != one, f"two threads counted {two} nodes, as one thread alone"
        log(f"  ok   Threads offered up to {cores}; depth 11: {one} nodes on one thread, {two} on two")
    except AssertionError as e:
        failures.append(f"threads: {e}")
        log(f"  FAIL threads: {e}")
        return failures
    # Every check but the one that expects the main thread's report at the depth asked for: with
    # two threads the first to complete it ends the search (and a helper's result may be played).
    checks = [c for c in CHECKS if c is not go_depth_answers_once_with_a_legal_move]
    failures += run_checks(w, checks, log, " (two threads)")
    try:
        w.send("isready")
        w.wait_for(lambda l: l == "readyok", 20, "readyok")
        w.new_lines()
        w.send(f"setoption name Threads value {cores + 1}")
        w.send("isready")
        lines = w.wait_for(lambda l: l == "readyok", 20, "readyok")
        assert any(l.startswith("info string error") and "Threads" in l for l in lines), lines
        w.send("setoption name Threads value 1")
        again = depth_nodes(w, 11)
        assert again == one, f"back at one thread: {again} nodes, {one} before"
        driver.get(url)  # a fresh page: no line of the old worker comes in
        fallback = Worker(driver, "?mode=messages")
        fallback.send("uci")
        lines = fallback.wait_for(lambda l: l == "uciok", 20, "uciok (fallback)")
        offered = [l for l in lines if l.startswith("option name Threads ")]
        assert offered == ["option name Threads type spin default 1 min 1 max 1"], ("fallback", offered)
        log(f"  ok   Threads {cores + 1} refused, back to one thread ({again} nodes), the fallback offers one")
    except AssertionError as e:
        failures.append(f"threads: {e}")
        log(f"  FAIL threads: {e}")
    return failures


# A stand-in for corvid-engine.js that answers every `go` at once and says its batch is done
# 400 ms later: the moment between an engine's last `bestmove` and its end of the batch, which a
# loaded machine stretches, made long enough to send lines into.
SLOW_ENGINE = """
const me = Math.random().toString(36).slice(2);
onmessage = () => {
  postMessage({ ready: true });
  postMessage("info string engine " + me);
  onmessage = (e) => {
    for (const line of e.data.lines) {
      postMessage("info string got " + line);
      if (line.startsWith("go")) {
        postMessage("info depth 1 score cp 0 pv e2e4");
        postMessage("bestmove e2e4");
      }
    }
    setTimeout(() => postMessage({ done: e.data.seq }), 400);
  };
};
"""


def lines_between_bestmove_and_done(driver, url, log):
    """In the fallback mode, a line that comes after a search's `bestmove` but before the engine
    has finished its batch finds the search over: `stop` is a no-op, `position` and `go` wait for
    the engine, which is not replaced (it keeps its hash table). The worker threw a TypeError
    there (answering a search already answered), which CI hit under load."""
    driver.get(url)
    engine = "data:text/javascript," + urllib.parse.quote(SLOW_ENGINE)
    shim = ("self.corvidUrls = {worker: new URL('corvid-worker.js', location.href.replace(/^blob:/, '')).href, "
            f"engine: {json.dumps(engine)}, wasm: new URL('corvid.wasm', location.href.replace(/^blob:/, '')).href, "
            "mode: 'messages'}; importScripts(self.corvidUrls.worker);")
    make = f"new Worker(URL.createObjectURL(new Blob([{json.dumps(shim)}], {{type: 'text/javascript'}})))"
    try:
        w = Worker(driver, make=make)
        w.send("go depth 1")
        w.wait_for(is_best, 10, "bestmove")
        w.send("stop")
        w.send("position startpos moves e2e4")
        w.send("go depth 1")
        lines = w.wait_for(is_best, 10, "the second bestmove")
        lines += w.quiet_for(0.6)
        assert not [l for l in lines if l.startswith("WORKER ERROR")], lines
        assert len(bestmoves(lines)) == 1, lines
        got = [l[len("info string got "):] for l in lines if l.startswith("info string got ")]
        assert got == ["stop", "position startpos moves e2e4", "go depth 1"], lines
        engines = [l for l in w.lines() if l.startswith("info string engine ")]
        assert len(engines) == 1, f"the engine was replaced: {engines}"
        log("  ok   lines_between_bestmove_and_done: stop, position and go wait for the engine, which stays")
        return []
    except AssertionError as e:
        log(f"  FAIL lines_between_bestmove_and_done: {e}")
        return [f"lines_between_bestmove_and_done: {e}"]


# The policy docs/web.md gives a page: the engine's worker from the worker's own URL, WebAssembly
# compiled, nothing else allowed.
STRICT_CSP = "default-src 'self'; worker-src 'self'; script-src 'self' 'wasm-unsafe-eval'"


def under_a_content_security_policy(driver, url, log):
    """Under `worker-src 'self'` (no blob:) the engine starts from its own URL and plays; under a
    policy without 'wasm-unsafe-eval' it cannot, and the worker says so in one line instead of
    restarting for ever (9,589 "restarted" lines in 5 s, and no uciok, before)."""
    failures = []
    strict, strict_url = serve.serve_in_background(DIST, isolated=True, csp=STRICT_CSP)
    no_wasm, no_wasm_url = serve.serve_in_background(
        DIST, isolated=True, csp="default-src 'self'; worker-src 'self'; script-src 'self'")
    try:
        try:
            driver.get(strict_url)
            w = Worker(driver)
            w.send("uci")
            lines = w.wait_for(lambda l: l == "uciok", 20, "uciok under the policy")
            assert not [l for l in lines if "error" in l], lines
            w.send("position startpos moves e2e4")
            w.send("go depth 6")
            lines = w.wait_for(is_best, 30, "bestmove under the policy")
            board = chess.Board()
            board.push_uci("e2e4")
            legal(lines[-1], board)
            w.send("go infinite")
            w.quiet_for(0.3)
            w.send("stop")
            w.wait_for(is_best, 10, "bestmove after stop under the policy")
            log(f"  ok   under {STRICT_CSP!r}: uci, go, stop")
        except AssertionError as e:
            failures.append(f"strict policy: {e}")
            log(f"  FAIL strict policy: {e}")
        try:
            driver.get(no_wasm_url)
            w = Worker(driver)
            w.send("uci")
            lines = w.quiet_for(3)
            errors = [l for l in lines if l.startswith("info string error")]
            assert len(errors) == 1 and "Content-Security-Policy" in errors[0] or \
                len(errors) == 1 and "cannot load the engine" in errors[0], lines[:5]
            assert len(lines) <= 3, f"{len(lines)} lines: {lines[:5]}"
            log(f"  ok   without 'wasm-unsafe-eval': one line, {errors[0][:90]}...")
        except AssertionError as e:
            failures.append(f"policy without wasm: {e}")
            log(f"  FAIL policy without wasm: {e}")
    finally:
        strict.shutdown()
        no_wasm.shutdown()
    return failures
