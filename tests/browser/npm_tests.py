"""The npm package as a web developer uses it (issue 81, items 10 and 11): `web/npm.sh` packs
it, the tarball is installed into a fresh folder with a real bundler (esbuild, from npm), a small
app importing `corvid-chess` is bundled and served beside the package's three files, and headless
Chromium plays, analyses and stops through it; a page written the way Stockfish-worker pages are
drives the classic worker; a page imports the module from another origin, as from a CDN; and a server that answers the module's URL with a page gets the error
that says so."""

import json
import os
import shutil
import subprocess
import tempfile

import chess

import harness
import serve

ROOT = harness.ROOT
ESBUILD = "esbuild@0.24.2"

APP = """
import { createCorvid, parseInfo, parseBestMove } from "corvid-chess";

const out = (window.results = { done: false });
(async () => {
  try {
    const corvid = await createCorvid({ baseUrl: "./corvid/" });
    // Plays: a search to a depth, its move legal.
    const played = await corvid.search("position startpos moves e2e4", "go depth 8");
    out.played = played.move;
    out.playedDepth = Math.max(...played.info.map((i) => i.depth ?? 0));
    out.playedScore = played.info.findLast((i) => i.score)?.score;
    // Analyses: an infinite search reports deeper lines until it is stopped, then answers once.
    const lines = [];
    const stopLines = corvid.onLine((l) => { const i = parseInfo(l); if (i?.pv) lines.push(i); });
    const answer = corvid.waitFor((l) => l.startsWith("bestmove"), 60000, () =>
      corvid.send("position startpos\\ngo infinite"));
    await corvid.waitFor(() => lines.some((i) => i.depth >= 6), 60000);
    corvid.stop();
    out.analysed = parseBestMove(await answer).move;
    out.analysedDepth = Math.max(...lines.map((i) => i.depth));
    stopLines();
    corvid.terminate();
    // A server that answers the module's URL with a page is named as such.
    try {
      await createCorvid({ baseUrl: "./corvid/", wasmUrl: "../index.html", threadsUrl: "../index.html", timeout: 20000 });
      out.htmlError = "no error";
    } catch (e) {
      out.htmlError = e.message;
    }
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  out.done = true;
})();
"""

STOCKFISH_STYLE = """<!doctype html><meta charset="utf-8"><title>engine</title><link rel="icon" href="data:,">
<script>
// Written as pages for Stockfish's worker are: Skill Level first, a clock, the score and the move
// read off the lines.
window.seen = { score: null, bestmove: null, uciok: false, readyok: false, lines: 0 };
const engine = new Worker("corvid/corvid-worker.js");
engine.onmessage = (e) => {
  const line = e.data;
  seen.lines++;
  if (line === "uciok") { seen.uciok = true; engine.postMessage("setoption name Skill Level value 3"); engine.postMessage("isready"); }
  else if (line === "readyok") {
    seen.readyok = true;
    engine.postMessage("ucinewgame");
    engine.postMessage("position startpos moves e2e4 e7e5");
    engine.postMessage("go wtime 10000 btime 10000 winc 100 binc 100");
  } else if (line.startsWith("info") && line.includes(" score ")) {
    const m = line.match(/score (cp|mate) (-?\\d+)/);
    if (m) seen.score = m[1] + " " + m[2];
  } else if (line.startsWith("bestmove")) seen.bestmove = line.split(" ")[1];
};
engine.postMessage("uci");
</script>
"""

INDEX = """<!doctype html><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"><script type="module" src="app.js"></script>"""


# A page of one origin that imports the package's module, unbundled, from another (a CDN serving
# the installed package as unpkg and jsDelivr do): the engine's files are found beside the module,
# the worker is started through a blob: script, and the engine plays, analyses and stops.
CDN_PAGE = """<!doctype html><meta charset="utf-8"><title>cdn</title><link rel="icon" href="data:,">
<script type="module">
import { createCorvid, parseInfo, parseBestMove } from "@CDN@index.js";
const out = (window.results = { done: false, isolated: self.crossOriginIsolated === true });
try {
  const corvid = await createCorvid();
  // Threads: the page's cores where it is isolated (the threaded module, its thread workers
  // started from the engine's own blob: script), else one.
  const offered = [];
  const off = corvid.onLine((l) => { if (l.startsWith("option name Threads ")) offered.push(l); });
  await corvid.waitFor((l) => l === "uciok", 20000, () => corvid.send("uci"));
  off();
  out.threads = offered[0];
  out.cores = navigator.hardwareConcurrency;
  if (out.isolated) corvid.send("setoption name Threads value 2");
  out.played = (await corvid.search("position startpos moves e2e4", "go depth 6")).move;
  let depth = 0;
  corvid.onLine((l) => { depth = Math.max(depth, parseInfo(l)?.depth ?? 0); });
  const answer = corvid.waitFor((l) => l.startsWith("bestmove"), 60000, () => corvid.send("position startpos\\ngo infinite"));
  await corvid.waitFor(() => depth >= 5, 60000);
  corvid.stop();
  out.analysed = parseBestMove(await answer).move;
  out.analysedDepth = depth;
  corvid.terminate();
} catch (e) {
  out.error = String(e && e.stack || e);
}
out.done = true;
</script>
"""


def missing():
    """What the package test needs that this machine lacks, if anything."""
    if shutil.which("npm") is None:
        return "npm is not installed"
    return None


def build_app(log):
    """The packed package installed with esbuild into a fresh folder; the bundled app, the
    Stockfish-style page and the package's files in its public folder. Returns that folder."""
    tarball = subprocess.run(
        ["bash", "web/npm.sh"], cwd=ROOT, check=True, capture_output=True, text=True,
        env={**os.environ, "NPM_SKIP_WEB_BUILD": "1"},
    ).stdout.strip().splitlines()[-1]
    tarball = os.path.join(ROOT, tarball)
    app = tempfile.mkdtemp(prefix="corvid-npm-app-")
    quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(["npm", "init", "-y"], cwd=app, check=True, capture_output=True)
    subprocess.run(["npm", "install", *quiet, tarball, ESBUILD], cwd=app, check=True, capture_output=True, text=True)
    os.makedirs(os.path.join(app, "src"))
    public = os.path.join(app, "public")
    os.makedirs(os.path.join(public, "corvid"))
    with open(os.path.join(app, "src", "main.js"), "w") as f:
        f.write(APP)
    subprocess.run(
        [os.path.join(app, "node_modules", ".bin", "esbuild"), "src/main.js", "--bundle", "--format=esm",
         "--outfile=public/app.js", "--log-level=error"],
        cwd=app, check=True, capture_output=True, text=True,
    )
    installed = os.path.join(app, "node_modules", "corvid-chess")
    for name in os.listdir(os.path.join(installed, "dist")):
        shutil.copy(os.path.join(installed, "dist", name), os.path.join(public, "corvid", name))
    with open(os.path.join(public, "index.html"), "w") as f:
        f.write(INDEX)
    with open(os.path.join(public, "stockfish-style.html"), "w") as f:
        f.write(STOCKFISH_STYLE)
    version = json.load(open(os.path.join(installed, "package.json")))["version"]
    log(f"  ok   packed {os.path.basename(tarball)}, installed with {ESBUILD} into a fresh folder, app bundled (version {version})")
    return app, public, installed


def from_a_cdn(driver, public, installed, isolated, log):
    """The package's module imported from a CDN (another origin) by a page of `public`."""
    cdn, cdn_url = serve.serve_in_background(installed, cdn=True)
    with open(os.path.join(public, "cdn.html"), "w") as f:
        f.write(CDN_PAGE.replace("@CDN@", cdn_url))
    server, url = serve.serve_in_background(public, isolated=isolated)
    try:
        driver.get(url + "cdn.html")
        assert cdn_url.split("/")[2] != url.split("/")[2]
        results = wait_for(driver, "return window.results && window.results.done && window.results", 120, "CDN page results")
        assert "error" not in results, results["error"]
        assert results["isolated"] == isolated, results
        most = results["cores"] if isolated else 1
        assert results["threads"] == f"option name Threads type spin default 1 min 1 max {most}", results
        after_e4 = chess.Board()
        after_e4.push_uci("e2e4")
        assert chess.Move.from_uci(results["played"]) in after_e4.legal_moves, results
        assert chess.Move.from_uci(results["analysed"]) in chess.Board().legal_moves, results
        assert results["analysedDepth"] >= 5, results
        return results
    finally:
        server.shutdown()
        server.server_close()
        cdn.shutdown()
        cdn.server_close()


def wait_for(driver, script, timeout, what):
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {timeout} s")


def run_all(driver, log):
    why = missing()
    if why:
        if os.environ.get("CI"):
            return [f"the npm package test cannot run: {why}"]
        log(f"  skip the npm package: {why}")
        return []
    failures = []
    app = None
    try:
        app, public, installed = build_app(log)
        for isolated in (True, False):
            server, url = serve.serve_in_background(public, isolated=isolated)
            where = "isolated" if isolated else "plain host"
            try:
                driver.get(url)
                results = wait_for(driver, "return window.results && window.results.done && window.results", 180, "app results")
                assert "error" not in results, results["error"]
                after_e4 = chess.Board()
                after_e4.push_uci("e2e4")
                assert chess.Move.from_uci(results["played"]) in after_e4.legal_moves, results
                assert results["playedDepth"] >= 8, results
                assert "cp" in results["playedScore"] or "mate" in results["playedScore"], results
                assert chess.Move.from_uci(results["analysed"]) in chess.Board().legal_moves, results
                assert results["analysedDepth"] >= 6, results
                assert "got HTML, not WebAssembly, at http" in results["htmlError"] and results["htmlError"].endswith("/index.html"), results
                log(f"  ok   bundled app ({where}): plays {results['played']} at depth {results['playedDepth']}, "
                    f"analyses to depth {results['analysedDepth']} and stops ({results['analysed']}); "
                    f"'{results['htmlError']}'")
                driver.get(url + "stockfish-style.html")
                seen = wait_for(driver, "return window.seen && window.seen.bestmove && window.seen", 60, "a bestmove")
                board = chess.Board()
                for m in ("e2e4", "e7e5"):
                    board.push_uci(m)
                assert seen["uciok"] and seen["readyok"], seen
                assert chess.Move.from_uci(seen["bestmove"]) in board.legal_moves, seen
                assert seen["score"] is not None, seen
                log(f"  ok   Stockfish-style page ({where}): Skill Level 3, a clock, score {seen['score']}, bestmove {seen['bestmove']}")
            except (AssertionError, KeyError, TypeError) as e:
                failures.append(f"npm package ({where}): {e}")
                log(f"  FAIL npm package ({where}): {e}")
            finally:
                server.shutdown()
                server.server_close()
            try:
                results = from_a_cdn(driver, public, installed, isolated, log)
                log(f"  ok   module from a CDN's origin ({where}, Threads up to {results['threads'].split()[-1]}): plays {results['played']}, "
                    f"analyses to depth {results['analysedDepth']} and stops ({results['analysed']})")
            except (AssertionError, KeyError, TypeError) as e:
                failures.append(f"npm package from a CDN ({where}): {e}")
                log(f"  FAIL npm package from a CDN ({where}): {e}")
    except subprocess.CalledProcessError as e:
        failures.append(f"npm package: {' '.join(e.cmd)} failed: {e.stderr}")
        log(f"  FAIL npm package: {' '.join(e.cmd)}: {e.stderr}")
    finally:
        if app:
            shutil.rmtree(app, ignore_errors=True)
    return failures
