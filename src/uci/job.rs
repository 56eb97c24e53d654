//! The running job: a search on its own thread (the `go` command), or `go perft` and `bench`.
//! One at a time; the loop stops or waits for it before anything that would change what it
//! reads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::command::Go;
use super::report::{nps, say, InfoPrinter};
use super::Engine;
use crate::search::{
    Clock, Iteration, Limits, NodeCounter, ReportedScore, Reporter, Request, ScoreBound, Shared, Syzygy, Worker,
};
use crate::types::Color;

/// How long a `go` searches when none of its limits could be read.
const UNREADABLE_GO_MS: u64 = 1000;

/// A job on its own thread: a search (which gives its workers back), `go perft` or `bench`.
pub(super) struct Running {
    handle: JoinHandle<Option<Vec<Worker>>>,
    /// A search (which the next command stops) or a task with an end of its own, `go perft` or
    /// `bench` (which the next command waits for; only `stop` and `quit` end it early).
    search: bool,
    /// The GUI's `stop`: ends the job, and releases a search's answer after `go infinite`.
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
}

impl Engine {
    /// `ponderhit`: a search pondering goes on as a normal one, its clock starting now.
    pub(super) fn ponderhit(&self) {
        if let Some(running) = &self.running {
            running.pondering.store(false, Ordering::Release);
        }
    }

    /// Runs `job` (`go perft`, `bench`) on a thread of its own, which `stop` and `quit` end
    /// through the flag it is given.
    pub(super) fn spawn_job(&mut self, name: &str, job: impl FnOnce(&AtomicBool) + Send + 'static) {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let spawned = std::thread::Builder::new().name(name.into()).stack_size(16 << 20).spawn(move || {
            job(&flag);
            None
        });
        match spawned {
            Ok(handle) => {
                self.running =
                    Some(Running { handle, search: false, stop, pondering: Arc::new(AtomicBool::new(false)) })
            }
            Err(e) => say(&format!("info string error: cannot start {name}: {e}")),
        }
    }

    /// Before a command that reads or changes the engine's state (and at the end of input): a
    /// running search is stopped, a running `go perft` or `bench` finished, as a script that
    /// pipes `go perft 6` expects.
    pub(super) fn settle(&mut self) {
        if self.running.as_ref().is_some_and(|r| r.search) {
            self.stop_job();
        } else {
            self.join_job();
        }
    }

    /// `stop` and `quit`: ends a running job of any kind at once.
    pub(super) fn stop_job(&mut self) {
        if let Some(running) = &self.running {
            running.pondering.store(false, Ordering::Release);
            running.stop.store(true, Ordering::Release);
        }
        self.join_job();
    }

    /// Waits for a running job to end (a search writes its `bestmove`) and takes a search's
    /// workers back.
    fn join_job(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(Some(workers)) => self.workers = workers,
                Ok(None) => {}
                Err(_) => {
                    // A search thread cannot panic in a correct build; if it did, start afresh.
                    say("info string error: search thread failed; state reset");
                    self.workers = (0..self.options.threads).map(Worker::new).collect();
                }
            }
        }
    }

    /// `go`: a book move when `OwnBook` is on and the position is in the book (not for `go
    /// infinite`, `ponder` or `searchmoves`, which ask for a search); else the search starts on
    /// its own thread and its `bestmove` is written from there.
    pub(super) fn go(&mut self, mut go: Go) {
        let pos = self.position;
        // A `go` with parameters that could not be read is still answered: each problem is
        // reported, and where nothing readable limits the search, it searches for a second.
        for problem in &go.problems {
            say(&format!("info string error: {problem}; left out"));
        }
        if !go.problems.is_empty() && !go.has_limit() {
            say(&format!("info string no readable limit: searching for {UNREADABLE_GO_MS} ms"));
            go.movetime = Some(UNREADABLE_GO_MS);
        }
        if self.options.own_book && !go.infinite && !go.ponder && go.searchmoves.is_empty() {
            if let Some(m) = self.book.as_ref().and_then(|b| b.pick(&pos, &mut self.book_rng)) {
                let text = m.to_uci(pos.is_chess960()).to_string();
                say(&format!("info string book move {text}"));
                say(&format!("bestmove {text}"));
                return;
            }
        }
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match pos.parse_uci_move(text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => say(&format!("info string error: searchmoves: {e}; ignored")),
            }
        }
        let ms = Duration::from_millis;
        let (mine, theirs) = match pos.side_to_move() {
            Color::White => ((go.wtime, go.winc), (go.btime, go.binc)),
            Color::Black => ((go.btime, go.binc), (go.wtime, go.winc)),
        };
        // Only the other side's clock given: assume ours is the same.
        let (time, inc) = if mine.0.is_some() { mine } else { theirs };
        let clock = time.map(|t| Clock {
            time: ms(t.min(u32::MAX as u64)),
            increment: ms(inc.unwrap_or(0).min(u32::MAX as u64)),
            moves_to_go: go.movestogo.filter(|&m| m > 0),
        });
        let unlimited = clock.is_none() && go.depth.is_none() && go.nodes.is_none() && go.movetime.is_none();
        let limits = Limits {
            depth: go.depth.map(|d| d.clamp(1, 127) as i32),
            nodes: go.nodes,
            soft_nodes: None,
            movetime: go.movetime.map(|t| ms(t.min(u32::MAX as u64))),
            mate: go.mate.filter(|&m| m > 0),
            clock,
            infinite: go.infinite || (unlimited && go.mate.is_none()),
            multipv: self.options.multipv,
            weakness: self.weakness(),
        };
        let infinite = go.infinite;
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        let tt = Arc::clone(&self.tt);
        let history = self.history.clone();
        let overhead = ms(self.options.move_overhead_ms);
        let mut workers = std::mem::take(&mut self.workers);
        for w in workers.iter_mut() {
            w.use_nnue = self.options.use_nnue;
            w.set_network(&self.network);
        }
        let chess960 = pos.is_chess960();
        let show_wdl = self.options.show_wdl;
        let tablebases = self.tablebases.clone();
        let (probe_depth, probe_limit, rule50) =
            (self.options.syzygy_probe_depth, self.options.syzygy_probe_limit, self.options.syzygy_rule50);
        let (thread_stop, thread_pondering) = (Arc::clone(&stop), Arc::clone(&pondering));
        tt.new_search();

        let handle = std::thread::Builder::new().name("search".into()).stack_size(16 << 20).spawn(move || {
            let started = Instant::now();
            let counters: Vec<NodeCounter> = workers.iter().map(|_| NodeCounter::default()).collect();
            // The search's own stop (a limit reached) is not the GUI's `stop`, which only
            // `thread_stop` carries.
            let search_stop = AtomicBool::new(false);
            let syzygy = tablebases.as_deref().map(|tables| Syzygy { tables, probe_depth, probe_limit, rule50 });
            let shared = Shared::new(&tt, &search_stop, &thread_pondering, &counters)
                .with_abort(&thread_stop)
                .with_syzygy(syzygy);
            let mut printer = InfoPrinter::new(chess960, show_wdl);
            let wait = || {
                // After `go infinite` the answer waits for `stop`, after `go ponder` for
                // `ponderhit` or `stop`, even when the search reached a depth, node or mate limit
                // of its own.
                while !thread_stop.load(Ordering::Acquire) && (infinite || thread_pondering.load(Ordering::Acquire)) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            };
            let request =
                Request { root: &pos, history: &history, limits: &limits, overhead, searchmoves: &searchmoves };
            let results = crate::search::run_threads(&mut workers, &request, &shared, &mut printer, wait);
            // The last line shown must begin with the move played (GUIs and match runners
            // check it): with several threads the move comes from a vote, and a search stopped
            // inside an iteration plays that iteration's first move once it was searched.
            let chosen = crate::search::vote(&results);
            let result = &results[chosen];
            if limits.multipv <= 1 && result.best.is_some() && printer.last_best != result.best {
                printer.iteration(&Iteration {
                    depth: result.depth.max(1),
                    seldepth: result.depth.max(1) as usize,
                    score: ReportedScore::from_internal(result.score),
                    bound: ScoreBound::Exact,
                    nodes: shared.total_nodes(),
                    time: started.elapsed(),
                    hashfull: tt.hashfull(),
                    tbhits: shared.tbhits(),
                    pv: result.pv.clone(),
                    multipv: 1,
                });
            }
            // A root without moves has its score all the same, as GUIs show it: mated or a draw.
            if result.best.is_none() {
                say(if pos.in_check() { "info depth 0 score mate 0" } else { "info depth 0 score cp 0" });
            }
            // The search's totals, all threads counted, as its last word before the move.
            let (nodes, time) = (shared.total_nodes(), started.elapsed());
            say(&format!(
                "info nodes {nodes} nps {} hashfull {} tbhits {} time {}",
                nps(nodes, time),
                tt.hashfull(),
                shared.tbhits(),
                time.as_millis()
            ));
            let text = match result.best {
                Some(best) => match result.ponder {
                    Some(p) => format!("bestmove {} ponder {}", best.to_uci(chess960), p.to_uci(chess960)),
                    None => format!("bestmove {}", best.to_uci(chess960)),
                },
                None => "bestmove 0000".to_string(),
            };
            say(&text);
            Some(workers)
        });
        match handle {
            Ok(handle) => self.running = Some(Running { handle, search: true, stop, pondering }),
            Err(e) => {
                say(&format!("info string error: cannot start the search thread: {e}"));
                self.workers = (0..self.options.threads).map(Worker::new).collect();
                let fallback = pos.legal_moves().first().map(|m| m.to_uci(chess960).to_string());
                say(&format!("bestmove {}", fallback.unwrap_or_else(|| "0000".into())));
            }
        }
    }
}
