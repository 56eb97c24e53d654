#!/usr/bin/env python3
"""Corvid's browser tests (tests/browser.rs runs them after `web/build.sh`): web/dist served on
127.0.0.1, headless Chromium through Selenium. The UCI worker is checked in each mode: shared
memory (the page cross-origin isolated), the fallback forced on that page, and the fallback on a
server without the isolation headers. The last line is `browser tests: N failures`.

    python3 tests/browser/run.py [--signature NODES]
"""

import argparse
import sys

import harness
import npm_tests
import page_tests
import worker_tests


def log(line):
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--signature", type=int, help="the native bench's node count, to compare")
    args = parser.parse_args()
    isolated, isolated_url = harness.serve.serve_in_background(harness.DIST, isolated=True)
    plain, plain_url = harness.serve.serve_in_background(harness.DIST, isolated=False)
    driver = harness.chromium()
    failures = []
    try:
        for name, url, query, expect in [
            ("worker, shared memory (isolated page)", isolated_url, "", True),
            ("worker, fallback forced (isolated page)", isolated_url, "?mode=messages", True),
            ("worker, fallback (plain static host)", plain_url, "", False),
        ]:
            log(name)
            found, worker = worker_tests.run_all(driver, url, query, expect, log)
            failures += [f"{name}: {f}" for f in found]
            errors = harness.console_errors(driver)
            if errors:
                failures.append(f"{name}: console errors {errors}")
                log(f"  FAIL console errors: {errors}")
            if args.signature and query == "" and expect:
                try:
                    nps = worker_tests.bench_gives_the_native_signature(worker, args.signature)
                    log(f"  ok   bench: {args.signature} nodes, {nps} nodes a second in the browser")
                except AssertionError as e:
                    failures.append(f"{name}: bench: {e}")
                    log(f"  FAIL bench: {e}")
        log("worker, shared memory, two threads (isolated page)")
        failures += worker_tests.threads_in_the_shared_mode(driver, isolated_url, log)
        log("worker, fallback, an engine slow to end its batch")
        failures += [f"fallback: {f}" for f in worker_tests.lines_between_bestmove_and_done(driver, plain_url, log)]
        log("the npm package")
        failures += npm_tests.run_all(driver, log)
        log("worker under a Content-Security-Policy")
        failures += worker_tests.under_a_content_security_policy(driver, isolated_url, log)
        # Every check on the isolated page; on the plain host those that depend on the worker's
        # mode, then the host goes away: the page must go on offline.
        # Each group answers for its own console errors.
        harness.console_errors(driver)
        for name, url, server, checks in [
            ("page (isolated)", isolated_url, None, page_tests.CHECKS),
            ("page (plain static host)", plain_url, plain, page_tests.MODE_CHECKS),
        ]:
            log(name)
            found = page_tests.run_all(driver, url, log, server, checks)
            failures += [f"{name}: {f}" for f in found]
    finally:
        driver.quit()
        isolated.shutdown()
    log(f"browser tests: {len(failures)} failures")
    for f in failures:
        log(f"  {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
