//! The UCI engine on one thread (`corvid::uci::InlineEngine`, the browser worker's engine):
//! lines that arrive while a search runs on the caller's thread are read by the search itself.
//! Each test hands the engine lines as a GUI sends them, some only once the engine has written
//! something (a search well under way), and checks the protocol: one legal `bestmove` a `go`,
//! never before `stop` in infinite or ponder mode, `readyok` at once during a search, commands
//! that need the engine idle stopping the search, bad input answered and survived.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use corvid::uci::{Flow, InlineEngine};
use corvid::Position;

/// What the engine wrote and read, in order: `> line` for a line it read during a search,
/// `line` for one it wrote.
type Log = Rc<RefCell<Vec<String>>>;

/// A line the GUI sends during a search once the engine has written a line containing `after`.
struct Later {
    after: &'static str,
    line: &'static str,
}

/// Polls after which a line still not sent is taken as never to come: the test fails rather
/// than hangs.
const POLLS_BEFORE_GIVING_UP: usize = 5_000_000;

struct Gui {
    engine: InlineEngine,
    log: Log,
}

impl Gui {
    fn new(later: Vec<Later>) -> Gui {
        let log: Log = Rc::default();
        let written = Rc::clone(&log);
        let read_log = Rc::clone(&log);
        let mut later: VecDeque<Later> = later.into();
        let mut polls = 0;
        let engine = InlineEngine::new(
            move |line| written.borrow_mut().push(line.to_string()),
            move || {
                polls += 1;
                let next = later.front()?;
                let seen = read_log.borrow().iter().any(|l| !l.starts_with("> ") && l.contains(next.after));
                assert!(seen || polls < POLLS_BEFORE_GIVING_UP, "'{}' never came before '{}'", next.after, next.line);
                if !seen {
                    return None;
                }
                let line = later.pop_front()?.line;
                read_log.borrow_mut().push(format!("> {line}"));
                Some(line.to_string())
            },
        );
        Gui { engine, log }
    }

    /// Sends `line` while the engine is idle; what it wrote for it.
    fn send(&mut self, line: &str) -> Vec<String> {
        let from = self.log.borrow().len();
        self.log.borrow_mut().push(format!(">> {line}"));
        assert_eq!(self.engine.handle(line), Flow::Continue, "{line}");
        self.log.borrow()[from + 1..].to_vec()
    }

    fn lines(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

/// Indices of the log's lines starting with `prefix`.
fn where_(log: &[String], prefix: &str) -> Vec<usize> {
    log.iter().enumerate().filter(|(_, l)| l.starts_with(prefix)).map(|(i, _)| i).collect()
}

/// The move of a `bestmove` line, checked legal in `pos`.
fn legal_best(line: &str, pos: &Position) -> String {
    let mv = line.split_whitespace().nth(1).unwrap_or_default().to_string();
    assert!(pos.parse_uci_move(&mv).is_ok(), "{line}: not legal in {pos}");
    mv
}

#[test]
fn go_infinite_answers_once_and_only_after_a_stop_sent_during_it() {
    let mut gui = Gui::new(vec![Later { after: "info depth 5 ", line: "stop" }]);
    gui.send("position startpos");
    gui.send("go infinite");
    let log = gui.lines();
    let best = where_(&log, "bestmove");
    assert_eq!(best.len(), 1, "{log:#?}");
    let stop = where_(&log, "> stop")[0];
    assert!(stop < best[0], "bestmove before stop: {log:#?}");
    legal_best(&log[best[0]], &Position::startpos());
    // The engine goes on as before.
    let out = gui.send("go depth 3");
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{out:#?}");
}

#[test]
fn isready_during_a_search_is_answered_at_once() {
    let mut gui =
        Gui::new(vec![Later { after: "info depth 4 ", line: "isready" }, Later { after: "readyok", line: "stop" }]);
    gui.send("go infinite");
    let log = gui.lines();
    let ready = where_(&log, "readyok");
    let best = where_(&log, "bestmove");
    assert_eq!((ready.len(), best.len()), (1, 1), "{log:#?}");
    assert!(ready[0] < best[0], "readyok waited for the search: {log:#?}");
}

#[test]
fn a_search_that_ends_by_itself_in_infinite_mode_waits_for_stop() {
    let mut gui = Gui::new(Vec::new());
    let out = gui.send("go infinite depth 3");
    assert!(out.iter().any(|l| l.starts_with("info depth 3 ")), "{out:#?}");
    assert!(!out.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {out:#?}");
    assert_eq!(gui.send("isready"), vec!["readyok"]);
    let out = gui.send("stop");
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{out:#?}");
    assert!(gui.send("stop").is_empty(), "a second stop answers nothing");
    // Stalemate: no move at all, and still no answer before `stop`.
    gui.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let out = gui.send("go infinite");
    assert!(!out.iter().any(|l| l.starts_with("bestmove")), "{out:#?}");
    assert_eq!(gui.send("stop").last().map(String::as_str), Some("bestmove 0000"));
}

#[test]
fn position_and_go_during_a_search_stop_it_first_and_then_run_in_order() {
    let mut gui = Gui::new(vec![
        Later { after: "info depth 4 ", line: "position startpos moves e2e4" },
        Later { after: "info depth 4 ", line: "isready" },
        Later { after: "info depth 4 ", line: "go depth 4" },
    ]);
    gui.send("go infinite");
    let log = gui.lines();
    let best = where_(&log, "bestmove");
    assert_eq!(best.len(), 2, "{log:#?}");
    legal_best(&log[best[0]], &Position::startpos());
    let after_e4 = Position::startpos().make_move(Position::startpos().parse_uci_move("e2e4").unwrap());
    legal_best(&log[best[1]], &after_e4);
    // The `isready` behind `position` waited its turn: after the first answer, before the second.
    let ready = where_(&log, "readyok");
    assert_eq!(ready.len(), 1, "{log:#?}");
    assert!(best[0] < ready[0] && ready[0] < best[1], "{log:#?}");
}

/// The nodes of the last `info ... nodes N` line before the log's line `before`.
fn nodes_before(log: &[String], before: usize) -> u64 {
    let line = log[..before].iter().rev().find(|l| l.starts_with("info") && l.contains(" nodes ")).unwrap();
    line.split(" nodes ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn lines_posted_in_one_tick_reach_the_search_started_from_them() {
    // A `go` and the `stop` behind it arrive together during a search: the `go` runs once the
    // first search has answered, and hears the `stop` at once (it polled only for new lines and
    // searched its two million nodes; with `go infinite` it never answered, nor did the
    // `isready` behind). Then `isready` is answered, after both.
    let mut gui = Gui::new(vec![
        Later { after: "info depth 4 ", line: "go nodes 2000000" },
        Later { after: "info depth 4 ", line: "stop" },
        Later { after: "info depth 4 ", line: "isready" },
    ]);
    gui.send("position startpos");
    gui.send("go infinite");
    let log = gui.lines();
    let best = where_(&log, "bestmove");
    let ready = where_(&log, "readyok");
    assert_eq!((best.len(), ready.len()), (2, 1), "{log:#?}");
    assert!(best[1] < ready[0], "readyok before the queued search answered: {log:#?}");
    legal_best(&log[best[1]], &Position::startpos());
    let nodes = nodes_before(&log, best[1]);
    assert!(nodes < 100_000, "the queued search did not hear the stop behind it: {nodes} nodes");
}

#[test]
fn a_ponderhit_queued_behind_its_go_ponder_reaches_it() {
    // `go ponder` and `ponderhit` in one tick during a search: the pondering search, started
    // from the queue, turns into one on the clock at once and answers by its own clock.
    let mut gui = Gui::new(vec![
        Later { after: "info depth 4 ", line: "position startpos moves e2e4" },
        Later { after: "info depth 4 ", line: "go ponder wtime 1000 btime 1000" },
        Later { after: "info depth 4 ", line: "ponderhit" },
    ]);
    gui.send("position startpos");
    gui.send("go depth 30");
    let log = gui.lines();
    let best = where_(&log, "bestmove");
    assert_eq!(best.len(), 2, "{log:#?}");
    let after_e4 = Position::startpos().make_move(Position::startpos().parse_uci_move("e2e4").unwrap());
    legal_best(&log[best[1]], &after_e4);
}

#[test]
fn ponderhit_turns_a_pondering_search_into_one_on_the_clock() {
    let mut gui = Gui::new(vec![Later { after: "info depth 3 ", line: "ponderhit" }]);
    gui.send("position startpos moves e2e4");
    gui.send("go ponder wtime 2000 btime 2000");
    let log = gui.lines();
    let best = where_(&log, "bestmove");
    assert_eq!(best.len(), 1, "{log:#?}");
    assert!(where_(&log, "> ponderhit")[0] < best[0], "{log:#?}");
    // A pondering search that reached its depth waits for `ponderhit`, then answers at once.
    let out = gui.send("go ponder depth 3");
    assert!(!out.iter().any(|l| l.starts_with("bestmove")), "{out:#?}");
    let out = gui.send("ponderhit");
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{out:#?}");
}

#[test]
fn quit_during_a_search_ends_it_with_its_answer() {
    let mut gui = Gui::new(vec![Later { after: "info depth 3 ", line: "quit" }]);
    gui.log.borrow_mut().push(">> go infinite".into());
    assert_eq!(gui.engine.handle("go infinite"), Flow::Quit);
    let log = gui.lines();
    assert_eq!(where_(&log, "bestmove").len(), 1, "{log:#?}");
}

#[test]
fn bad_input_is_answered_and_the_engine_keeps_working() {
    let mut gui = Gui::new(Vec::new());
    let out = gui.send("position fen 8/8/8/8 w - - 0 1");
    assert!(out.iter().any(|l| l.starts_with("info string error: bad FEN")), "{out:#?}");
    let out = gui.send("flibbertigibbet");
    assert_eq!(out, vec!["unknown command: flibbertigibbet"]);
    let out = gui.send("position startpos moves e2e4 e7e5 e1e3");
    assert!(out.iter().any(|l| l.starts_with("info string error")), "{out:#?}");
    // Helpers beside the caller's thread (system threads here, workers in a browser): up to the
    // cores, no more.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = gui.send(&format!("setoption name Threads value {}", cores + 1));
    assert!(out.iter().any(|l| l.starts_with("info string error: Threads") && l.contains("cores")), "{out:#?}");
    let out = gui.send("uci");
    let offered = format!("option name Threads type spin default 1 min 1 max {cores}");
    assert!(out.contains(&offered), "{out:#?}");
    let out = gui.send("go depth 4");
    let best = out.iter().find(|l| l.starts_with("bestmove")).expect("an answer");
    // The moves were kept up to the illegal one.
    let e4e5 = "e2e4 e7e5".split(' ').fold(Position::startpos(), |p, m| p.make_move(p.parse_uci_move(m).unwrap()));
    legal_best(best, &e4e5);
    // `go perft` runs on this thread too, to its end, with the library's count.
    let out = gui.send("go perft 2");
    let nodes = format!("Nodes searched: {}", corvid::perft::perft(&e4e5, 2));
    assert!(out.iter().any(|l| l.contains(&nodes)), "{out:#?}");
}

#[test]
fn with_a_helper_thread_every_search_is_answered_once() {
    // The threaded browser module's shape: the search on the caller's thread, a helper beside
    // it (a system thread here). Three searches, one answer each, legal; then one thread again.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return; // one core: a second thread is refused (the test above)
    }
    let mut gui = Gui::new(Vec::new());
    let out = gui.send("setoption name Threads value 2");
    assert!(!out.iter().any(|l| l.contains("error")), "{out:#?}");
    for _ in 0..3 {
        let out = gui.send("position startpos moves e2e4");
        assert!(out.is_empty(), "{out:#?}");
        let out = gui.send("go depth 9");
        let answers: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(answers.len(), 1, "{out:#?}");
        let after_e4 = Position::startpos().make_move(Position::startpos().parse_uci_move("e2e4").unwrap());
        legal_best(answers[0], &after_e4);
    }
    let out = gui.send("setoption name Threads value 1");
    assert!(!out.iter().any(|l| l.contains("error")), "{out:#?}");
    let out = gui.send("go depth 5");
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{out:#?}");
}
