//! The running work: a search on the searcher's threads (the `go` command), or `go perft` and
//! `bench` on a thread of their own. One at a time; the loop stops a search, and waits for a
//! perft or bench while still reading `stop` and `quit`, before anything that would change what
//! it reads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::command::{Command, Go};
use super::report::{nps, say, InfoPrinter};
use super::{Engine, Input};
use crate::search::{Clock, Iteration, Job, Limits, Outcome, ReportedScore, Reporter, ScoreBound, Syzygy};
use crate::types::Color;

/// How long a `go` searches when none of its limits could be read.
const UNREADABLE_GO_MS: u64 = 1000;

/// `go perft` or `bench` on its own thread, which `stop` and `quit` end through `stop`.
pub(super) struct Task {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
}

/// The UCI printer shared by the search's reports and its last word.
struct SharedPrinter(Arc<Mutex<InfoPrinter>>);

impl Reporter for SharedPrinter {
    fn iteration(&mut self, info: &Iteration) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iteration(info);
    }

    fn current_move(&mut self, depth: i32, mv: crate::types::Move, number: usize) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).current_move(depth, mv, number);
    }
}

impl Engine {
    /// `ponderhit`: a search pondering goes on as a normal one, its clock starting now.
    pub(super) fn ponderhit(&mut self) {
        self.answer_null();
        self.searcher.ponderhit();
    }

    /// The `bestmove 0000` of a `go infinite` or `go ponder` given without a position, once
    /// something ends that "search".
    fn answer_null(&mut self) {
        if std::mem::take(&mut self.null_answer_waits) {
            say("bestmove 0000");
        }
    }

    /// Runs `job` (`go perft`, `bench`) on a thread of its own, which `stop` and `quit` end
    /// through the flag it is given.
    pub(super) fn spawn_task(&mut self, name: &str, job: impl FnOnce(&AtomicBool) + Send + 'static) {
        // An engine without threads runs it here, to its end.
        if self.searcher.is_inline() {
            return job(&AtomicBool::new(false));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let spawned = std::thread::Builder::new().name(name.into()).stack_size(16 << 20).spawn(move || job(&flag));
        match spawned {
            Ok(handle) => self.task = Some(Task { handle, stop }),
            Err(e) => say(&format!("info string error: cannot start {name}: {e}")),
        }
    }

    /// Before a command that reads or changes the engine's state (and at the end of input): a
    /// running search is stopped; a running `go perft` or `bench` is waited for while the input
    /// is still read, so `stop` and `quit` behind the command are heard. Other lines wait their
    /// turn, `isready` included: its `readyok` must follow the command waiting here. A `stop`
    /// ends the task and every job sent before it: the ones held, marked here, and the command
    /// waiting here, for which this returns true. In a script (commands given as arguments) a
    /// search with limits of its own is waited for too, as the script expects.
    pub(super) fn settle(&mut self, input: &mut Input) -> bool {
        self.answer_null();
        if self.script {
            if self.searcher.is_searching() && !self.search_waits_for_stop {
                self.searcher.wait();
            }
            self.join_task();
        }
        if self.searcher.is_searching() {
            self.searcher.stop();
            self.searcher.wait();
        }
        let mut stopped = false;
        while let Some(task) = &self.task {
            if task.handle.is_finished() {
                self.join_task();
                break;
            }
            match input.next_within(Duration::from_millis(10)) {
                None => {}
                Some(None) => {
                    // The end of input: nobody waits for the result any more.
                    self.quit_requested = true;
                    task.stop.store(true, Ordering::Release);
                }
                Some(Some(line)) => match super::command::parse(&line) {
                    Command::Quit => {
                        self.quit_requested = true;
                        task.stop.store(true, Ordering::Release);
                    }
                    Command::Stop => {
                        task.stop.store(true, Ordering::Release);
                        for held in &mut self.deferred {
                            held.1 = true;
                        }
                        stopped = true;
                    }
                    _ => self.deferred.push_back((line, false)),
                },
            }
        }
        stopped
    }

    /// `stop` and `quit`: ends a running search or task at once (the search's answer is given
    /// when this returns; helpers beyond the machine's cores may still be winding down, and
    /// join the next search late).
    pub(super) fn stop_all(&mut self) {
        self.answer_null();
        self.searcher.stop();
        self.searcher.wait_answered();
        if let Some(task) = &self.task {
            task.stop.store(true, Ordering::Release);
        }
        self.join_task();
    }

    /// Waits for a perft or bench to end.
    fn join_task(&mut self) {
        if let Some(task) = self.task.take() {
            if task.handle.join().is_err() {
                say("info string error: the task failed");
            }
        }
    }

    /// `go`: a book move when `OwnBook` is on and the position is in the book (not for `go
    /// infinite`, `ponder` or `searchmoves`, which ask for a search); else the search starts on
    /// its own thread and its `bestmove` is written from there.
    pub(super) fn go(&mut self, mut go: Go) {
        // The GUI's clock is running from here on.
        let since = crate::search::Moment::now();
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
        let analysis = self.options.analyse_mode;
        if self.options.own_book && !analysis && !go.infinite && !go.ponder && go.searchmoves.is_empty() {
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
        let chess960 = pos.is_chess960();
        let syzygy = self.tablebases.as_ref().map(|tables| Syzygy {
            tables: Arc::clone(tables),
            probe_depth: self.options.syzygy_probe_depth,
            probe_limit: self.options.syzygy_probe_limit,
            rule50: self.options.syzygy_rule50,
        });
        let multipv = limits.multipv;
        let job = Job {
            root: pos,
            history: self.history.clone(),
            limits,
            overhead: ms(self.options.move_overhead_ms),
            searchmoves,
            wait_for_stop: go.infinite,
            ponder: go.ponder,
            syzygy,
            since: Some(since),
        };
        self.search_waits_for_stop = go.infinite || go.ponder;
        self.searcher.configure(self.options.use_nnue, &self.network);
        let printer = Arc::new(Mutex::new(InfoPrinter::new(chess960, self.options.show_wdl)));
        let last_word = Arc::clone(&printer);
        let finish = move |outcome: &Outcome| {
            let result = outcome.best();
            let mut printer = last_word.lock().unwrap_or_else(|e| e.into_inner());
            // The last line shown must begin with the move played (GUIs and match runners
            // check it): with several threads the move comes from a vote (perhaps a helper's
            // deeper line), and a search stopped inside an iteration plays that iteration's
            // first move once it was searched.
            if multipv <= 1 && printer.must_show(result) {
                printer.iteration(&Iteration {
                    depth: result.depth.max(1),
                    seldepth: result.depth.max(1) as usize,
                    score: ReportedScore::from_internal(result.score),
                    bound: ScoreBound::Exact,
                    nodes: outcome.nodes,
                    time: outcome.elapsed,
                    hashfull: outcome.hashfull,
                    tbhits: outcome.tbhits,
                    pv: result.pv.clone(),
                    multipv: 1,
                });
            }
            // A root without moves has its score all the same, as GUIs show it: mated or a draw.
            if result.best.is_none() {
                say(if pos.in_check() { "info depth 0 score mate 0" } else { "info depth 0 score cp 0" });
            }
            // The search's totals, all threads counted, as its last word before the move.
            say(&format!(
                "info nodes {} nps {} hashfull {} tbhits {} time {}",
                outcome.nodes,
                nps(outcome.nodes, outcome.elapsed),
                outcome.hashfull,
                outcome.tbhits,
                outcome.elapsed.as_millis()
            ));
            let text = match result.best {
                Some(best) => match result.ponder {
                    Some(p) => format!("bestmove {} ponder {}", best.to_uci(chess960), p.to_uci(chess960)),
                    None => format!("bestmove {}", best.to_uci(chess960)),
                },
                None => "bestmove 0000".to_string(),
            };
            say(&text);
        };
        self.searcher.start(job, Box::new(SharedPrinter(printer)), Box::new(finish));
    }
}
