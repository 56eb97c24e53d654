#!/usr/bin/env python3
"""Serves Corvid's web page (web/dist after `make web`) on 127.0.0.1 only, with the headers that
make the page cross-origin isolated (Cross-Origin-Opener-Policy: same-origin,
Cross-Origin-Embedder-Policy: require-corp), so the engine hears `stop` during a search through
shared memory. `--plain` serves without them, as a plain static host would: the page still
works, in the engine's fallback mode (docs/web.md).

    python3 web/serve.py [--port 8000] [--plain] [FOLDER]
"""

import argparse
import functools
import http.server
import os
import sys
import threading

TYPES = {".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript",
         ".json": "application/json", ".svg": "image/svg+xml", ".webmanifest": "application/manifest+json"}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the isolation headers (unless `isolated` is false) and no caching
    surprises: the browser revalidates, so a rebuilt page is seen at once."""

    isolated = True
    # A Content-Security-Policy sent with every file (None: none), to test the page under one.
    csp = None
    # Serve as a public CDN does (jsDelivr, unpkg): any origin may read the files and embed them.
    cdn = False
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self):
        if self.cdn:
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        elif self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("CORVID_SERVE_LOG"):
            super().log_message(format, *args)


def server(folder, port=0, isolated=True, csp=None, cdn=False):
    """A server of `folder` on 127.0.0.1 (port 0: any free one); not yet serving. `cdn`: with a
    public CDN's headers instead of the isolation headers."""
    handler = functools.partial(type("H", (Handler,), {"isolated": isolated, "csp": csp, "cdn": cdn}), directory=folder)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve_in_background(folder, isolated=True, csp=None, cdn=False):
    """Starts a server of `folder` on a free port in a thread; returns (server, base URL)."""
    httpd = server(folder, 0, isolated, csp, cdn)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist"))
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--plain", action="store_true", help="no isolation headers (the fallback mode)")
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.folder, "index.html")):
        sys.exit(f"error: {args.folder} has no index.html: run `make web` first")
    try:
        httpd = server(args.folder, args.port, not args.plain)
    except OSError as e:
        sys.exit(f"error: cannot listen on 127.0.0.1:{args.port}: {e.strerror}")
    mode = "plain (no shared memory: fallback mode)" if args.plain else "cross-origin isolated"
    print(f"Corvid at http://127.0.0.1:{args.port}/ ({mode}); Ctrl-C ends", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
