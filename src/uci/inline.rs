//! The UCI engine on one thread: for a front that has no thread to read its input on while a
//! search runs, a browser's worker above all. Each line is handed to [`InlineEngine::handle`],
//! and a `go` searches inside that call. Lines that arrive meanwhile are read by the search
//! itself, every thousand nodes or so, through the `read` function the front gives: `isready`
//! is answered at once (unless lines before it wait), `stop`, `quit` and `ponderhit` reach the
//! search at once, a command that needs the engine idle (`position`, `setoption`, `go`,
//! `ucinewgame`, `bench`, `go perft`, `genfens`) stops the search as it does in the threaded
//! loop, and every line but an at-once `isready` waits in order, handled when the search has
//! given its answer. So the protocol is the threaded loop's: one `bestmove` a `go`, after
//! `stop` in infinite or ponder mode, `readyok` once what came before it is done. A `go perft`
//! or `bench` runs to its end (it reads no input).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::command::{self, Command};
use super::report::{say, set_output};
use super::{Engine, Flow};
use crate::search::{set_interrupt_source, Interrupt};

/// The engine and the lines that came while it was busy, each with what it means for a search
/// (see `during_search`), in the order they came.
pub struct InlineEngine {
    engine: Engine,
    held: Rc<RefCell<VecDeque<(String, Interrupt)>>>,
}

impl InlineEngine {
    /// An engine writing every line to `write` and reading the lines that arrive during a
    /// search with `read` (`None`: none has arrived), both on this thread, which the engine
    /// then takes for its own (its output and the search's interrupts).
    ///
    /// One rule for every line that waits: it came after the command now running, so a search
    /// started from the queue hears the lines still queued behind it as if they had come during
    /// it (a `stop` posted in the same tick as its `go` stops that `go`, and a `ponderhit` behind
    /// a `go ponder` turns it into a search on the clock), as well as what comes meanwhile.
    pub fn new(write: impl FnMut(&str) + 'static, mut read: impl FnMut() -> Option<String> + 'static) -> InlineEngine {
        set_output(Some(Box::new(write)));
        let held: Rc<RefCell<VecDeque<(String, Interrupt)>>> = Rc::default();
        let queue = Rc::clone(&held);
        set_interrupt_source(Some(Box::new(move || {
            let mut queue = queue.borrow_mut();
            while let Some(line) = read() {
                // `isready` with nothing before it waiting is answered at once.
                if queue.is_empty() && command::parse(&line) == Command::IsReady {
                    say("readyok");
                    continue;
                }
                let interrupt = during_search(&line);
                queue.push_back((line, interrupt));
            }
            // A stop anywhere behind the running command stops it; else a ponderhit reaches it.
            let mut heard = Interrupt::Nothing;
            for (_, interrupt) in queue.iter() {
                match interrupt {
                    Interrupt::Stop => return Interrupt::Stop,
                    Interrupt::PonderHit => heard = Interrupt::PonderHit,
                    Interrupt::Nothing => {}
                }
            }
            heard
        })));
        InlineEngine { engine: Engine::single_threaded(), held }
    }

    /// Handles `line`, then every line that came during it, in order. `Flow::Quit` after
    /// `quit` (the lines behind it are dropped).
    pub fn handle(&mut self, line: &str) -> Flow {
        let mut next = Some(line.to_string());
        while let Some(line) = next {
            if self.engine.handle_line(&line) == Flow::Quit {
                self.held.borrow_mut().clear();
                return Flow::Quit;
            }
            next = self.held.borrow_mut().pop_front().map(|(line, _)| line);
        }
        Flow::Continue
    }

    /// The engine, to read its state.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl Drop for InlineEngine {
    fn drop(&mut self) {
        // A search waiting for `stop` gives its answer while the output is still the front's.
        self.engine.stop_all();
        set_interrupt_source(None);
        set_output(None);
    }
}

/// What a line that arrives during a search means for it.
fn during_search(line: &str) -> Interrupt {
    match command::parse(line) {
        Command::Stop | Command::Quit => Interrupt::Stop,
        Command::PonderHit => Interrupt::PonderHit,
        // What the threaded loop stops a search for before handling it.
        Command::SetOption { .. }
        | Command::UciNewGame
        | Command::Position { .. }
        | Command::Go(_)
        | Command::GoPerft { .. }
        | Command::Bench { .. }
        | Command::Genfens { .. } => Interrupt::Stop,
        _ => Interrupt::Nothing,
    }
}
