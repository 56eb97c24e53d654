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

/// The engine and the lines that came during its last search.
pub struct InlineEngine {
    engine: Engine,
    held: Rc<RefCell<VecDeque<String>>>,
}

impl InlineEngine {
    /// An engine writing every line to `write` and reading the lines that arrive during a
    /// search with `read` (`None`: none has arrived), both on this thread, which the engine
    /// then takes for its own (its output and the search's interrupts).
    pub fn new(write: impl FnMut(&str) + 'static, mut read: impl FnMut() -> Option<String> + 'static) -> InlineEngine {
        set_output(Some(Box::new(write)));
        let held: Rc<RefCell<VecDeque<String>>> = Rc::default();
        let queue = Rc::clone(&held);
        set_interrupt_source(Some(Box::new(move || {
            let mut heard = Interrupt::Nothing;
            while let Some(line) = read() {
                let mut queue = queue.borrow_mut();
                match during_search(&line) {
                    Interrupt::Nothing if queue.is_empty() && command::parse(&line) == Command::IsReady => {
                        say("readyok");
                        continue;
                    }
                    Interrupt::Nothing => {}
                    Interrupt::Stop => heard = Interrupt::Stop,
                    Interrupt::PonderHit if heard == Interrupt::Nothing => heard = Interrupt::PonderHit,
                    Interrupt::PonderHit => {}
                }
                queue.push_back(line);
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
            next = self.held.borrow_mut().pop_front();
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
