//! The searcher: a pool of persistent search threads, one per worker, kept between searches as
//! engines with a thread pool do. Thread 0 is the main thread (limits, reports, the vote); the
//! others are lazy-SMP helpers. Every caller that searches with more than its own thread uses
//! it: the UCI front (`start`, `stop`, `ponderhit`, `wait`), `bench`, `epd` and `play` (the
//! blocking [`Searcher::search`]).
//!
//! A search is one [`Run`] shared by the threads through an `Arc`: the owned [`Job`], the
//! [`Shared`] state (table, flags, counters) and the helpers' results. Starting a search sends it
//! to every thread; nothing is spawned or allocated per `go`. Threads are started when the pool
//! grows, each allocating its own worker, and ended when it shrinks or is dropped.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::threads::vote;
use super::time::Moment;
use super::worker::Worker;
use super::{Iteration, Job, Limits, Reporter, SearchResult, Shared, Silent};
use crate::nnue::Network;
use crate::tt::TranspositionTable;

/// How a search ended: every thread's result (the main thread's first) and the one played.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub results: Vec<SearchResult>,
    /// The result played, chosen by [`vote`].
    pub chosen: usize,
    /// Nodes of all threads.
    pub nodes: u64,
    pub tbhits: u64,
    pub hashfull: u32,
    /// From the start of the search to its answer.
    pub elapsed: Duration,
}

impl Outcome {
    /// The result played.
    pub fn best(&self) -> &SearchResult {
        &self.results[self.chosen]
    }
}

/// What the main thread does with a run besides searching: where it reports, and what it does
/// with the outcome.
struct Answer {
    reporter: Box<dyn Reporter + Send>,
    finish: Box<dyn FnOnce(&Outcome) + Send>,
}

/// One search, shared by every thread of the pool.
struct Run {
    job: Job,
    /// The same job as the helpers search it: no limit but the depth (and the MultiPV lines).
    helper_job: Job,
    shared: Arc<Shared>,
    main: Mutex<Option<Answer>>,
    /// Each helper's result, behind a lock of its own: its last completed iteration while it
    /// searches, its final result once it has stopped. The main thread only tries these locks:
    /// a helper beyond the machine's cores, at a low priority, may be descheduled holding its
    /// own for seconds on a busy machine, and the answer must not wait for it.
    helpers: Vec<Mutex<Option<SearchResult>>>,
    /// Helpers that have handed in their final result.
    stopped: AtomicUsize,
    /// Told when a helper has stopped (notified without a lock a helper could hold).
    helper_done: Condvar,
    /// The main thread's own lock for waiting on `helper_done`; no helper takes it.
    main_waits: Mutex<()>,
    /// Set when the answer is given (the main thread's `finish` has run).
    answered: Mutex<bool>,
    answered_signal: Condvar,
    /// Threads still searching, and the flag the last of them sets; apart from the run, so
    /// that each thread lets go of the run (and of the table through it) before it counts
    /// itself out: once the run is idle, the table has no holder but the pool.
    done: Arc<Done>,
    started: Moment,
}

/// How many threads still work on a run, and whether none does.
struct Done {
    busy: AtomicUsize,
    /// Set when every thread has stopped: the table and the workers are free again.
    idle: Mutex<bool>,
    idle_signal: Condvar,
}

impl Run {
    /// A run of `job` for `helpers` helper threads, and for the main thread too where it has a
    /// `main` part to play (a pool's thread 0; an inline search runs its main search itself,
    /// and the run has no answer to give).
    fn new(job: Job, shared: Arc<Shared>, main: Option<Answer>, helpers: usize, started: Moment) -> Arc<Run> {
        let helper_limits =
            Limits { depth: job.limits.depth, infinite: true, multipv: job.limits.multipv, ..Limits::default() };
        let busy = helpers + usize::from(main.is_some());
        Arc::new(Run {
            helper_job: Job { limits: helper_limits, ..job.clone() },
            job,
            shared,
            answered: Mutex::new(main.is_none()),
            main: Mutex::new(main),
            helpers: (0..helpers).map(|_| Mutex::new(None)).collect(),
            stopped: AtomicUsize::new(0),
            helper_done: Condvar::new(),
            main_waits: Mutex::new(()),
            answered_signal: Condvar::new(),
            done: Arc::new(Done { busy: AtomicUsize::new(busy), idle: Mutex::new(false), idle_signal: Condvar::new() }),
            started,
        })
    }

    /// The helpers' results that can be read now (a slot whose helper holds it, in the middle
    /// of handing in an iteration, is passed over); a helper without a completed iteration has
    /// no vote.
    fn helper_results(&self) -> impl Iterator<Item = SearchResult> + '_ {
        self.helpers.iter().filter_map(|slot| match slot.try_lock() {
            Ok(result) => result.clone(),
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().clone(),
            Err(std::sync::TryLockError::WouldBlock) => None,
        })
    }

    /// A thread's part is over: it drops its hold on the run, then counts itself out; the last
    /// one marks the run idle.
    fn leave(run: Arc<Run>) {
        let done = Arc::clone(&run.done);
        drop(run);
        if done.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            *lock(&done.idle) = true;
            done.idle_signal.notify_all();
        }
    }
}

/// What a pool thread is told to do, in order.
enum Task {
    Search(Arc<Run>),
    Clear,
    Configure {
        use_nnue: bool,
        network: Arc<Network>,
    },
    /// Tests: the thread waits until the flag is set, as a thread the system does not schedule.
    #[cfg(test)]
    Hold(Arc<(Mutex<bool>, Condvar)>),
}

struct PoolThread {
    tasks: Sender<Task>,
    handle: super::spawn::Spawned,
    /// Set once the thread has allocated its worker.
    ready: Arc<AtomicBool>,
}

/// A locked mutex even if a thread panicked holding it (the data is plain and stays usable).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The pool: persistent threads with their workers, and the transposition table. Or one worker
/// searching on the caller's thread ([`Searcher::inline`]: a browser's WebAssembly, where the
/// search must hear the page's lines itself), with helper threads where the platform can start
/// them (WebAssembly threads on a cross-origin isolated page).
pub struct Searcher {
    threads: Vec<PoolThread>,
    tt: Arc<TranspositionTable>,
    running: Option<Arc<Run>>,
    use_nnue: bool,
    network: Arc<Network>,
    /// The caller's-thread worker of an inline searcher (then `threads` holds only helpers,
    /// ids 1 and up).
    inline: Option<Box<Worker>>,
    /// An inline search that has ended but whose answer waits for `stop` or `ponderhit`.
    pending: Mutex<Option<Pending>>,
}

/// An inline search over before its answer is due (`go infinite`, `go ponder`).
struct Pending {
    shared: Arc<Shared>,
    wait_for_stop: bool,
    results: Vec<SearchResult>,
    multipv: usize,
    started: Moment,
    finish: Box<dyn FnOnce(&Outcome) + Send>,
}

impl Pending {
    /// Whether the answer is due: `stop` came, or a pondering search that does not wait for
    /// `stop` had its `ponderhit`.
    fn due(&self) -> bool {
        self.shared.abort.load(Ordering::Acquire)
            || !(self.wait_for_stop || self.shared.pondering.load(Ordering::Acquire))
    }

    fn answer(self) {
        let outcome = outcome(self.results, self.multipv, &self.shared, self.started);
        (self.finish)(&outcome);
    }
}

impl Searcher {
    #[doc(hidden)]
    /// A pool of `threads` threads (at least one) searching with `tt`. An error when not even
    /// one thread can be started.
    pub fn new(threads: usize, tt: TranspositionTable) -> Result<Searcher, String> {
        let mut searcher = Searcher::without_threads(tt, None);
        searcher.set_threads(threads)?;
        Ok(searcher)
    }

    /// A searcher with no thread yet, searching on the caller's thread with `inline` if given.
    fn without_threads(tt: TranspositionTable, inline: Option<Box<Worker>>) -> Searcher {
        Searcher {
            threads: Vec::new(),
            tt: Arc::new(tt),
            running: None,
            use_nnue: crate::nnue::ON_BY_DEFAULT,
            network: Arc::clone(crate::nnue::embedded()),
            inline,
            pending: Mutex::new(None),
        }
    }

    #[doc(hidden)]
    /// A searcher without threads: each search runs on the caller's thread, inside
    /// [`Searcher::start`], which returns once it is over (its answer given, unless it waits
    /// for `stop` or `ponderhit`: then the call of [`Searcher::stop`] or
    /// [`Searcher::ponderhit`] gives it). The search hears `stop` and `ponderhit` meanwhile
    /// only through [`super::set_interrupt_source`]. One thread only.
    pub fn inline(tt: TranspositionTable) -> Searcher {
        Searcher::without_threads(tt, Some(Box::new(Worker::new(0))))
    }

    /// [`Searcher::inline`] with a fresh table of `hash_mb` MiB: for callers that already run one
    /// search a thread (self-play, openings, labelling, a browser's bench). An error when the
    /// table cannot be allocated.
    pub fn inline_with_hash(hash_mb: usize) -> Result<Searcher, String> {
        Ok(Searcher::inline(table(hash_mb)?))
    }

    /// Whether this searcher searches on its caller's thread ([`Searcher::inline`]).
    pub fn is_inline(&self) -> bool {
        self.inline.is_some()
    }

    /// A pool of `threads` threads with a fresh table of `hash_mb` MiB.
    pub fn with_hash(threads: usize, hash_mb: usize) -> Result<Searcher, String> {
        Searcher::new(threads, table(hash_mb)?)
    }

    /// How many threads search.
    pub fn threads(&self) -> usize {
        self.threads.len() + usize::from(self.inline.is_some())
    }

    /// The most threads this searcher can search with: the machine's cores, or one for an
    /// inline searcher where no thread can be started.
    pub fn max_threads(&self) -> usize {
        if self.inline.is_some() && !super::spawn::can_spawn() {
            1
        } else {
            cores()
        }
    }

    /// Grows or shrinks the pool to `n` threads (at least one), after the running search ends.
    /// New threads allocate their workers themselves, in parallel, so this returns at once.
    /// When fewer threads than asked can be started, the pool keeps those and says so. A native
    /// pool stops at [`THREADS_PER_CORE`] threads a core ([`Searcher::threads`] says how many).
    pub fn set_threads(&mut self, n: usize) -> Result<(), String> {
        self.wait();
        let n = n.max(1);
        // An inline searcher's own thread is the first; its pool holds the helpers.
        let first_id = usize::from(self.inline.is_some());
        if first_id == 1 && n > 1 && !super::spawn::can_spawn() {
            return Err("this build searches on one thread only".to_string());
        }
        // A page's workers beyond its cores would only take turns.
        if first_id == 1 && n > self.max_threads() {
            return Err(format!("at most {} threads here (the cores)", self.max_threads()));
        }
        // Natively, at most `THREADS_PER_CORE` threads a core: beyond that they only take turns,
        // and a thousand helpers at a low priority on two busy cores held the main thread up for
        // seconds through locks they were descheduled in (the allocator's among them).
        let n = if first_id == 0 { n.min(THREADS_PER_CORE * cores()) } else { n };
        let n = n - first_id;
        malloc_arenas_for(n + first_id);
        while self.threads.len() > n {
            let t = self.threads.pop().expect("more than n");
            drop(t.tasks);
            t.handle.join();
        }
        while self.threads.len() < n {
            let id = self.threads.len() + first_id;
            let (tasks, inbox) = mpsc::channel();
            let (use_nnue, network) = (self.use_nnue, Arc::clone(&self.network));
            let yields = id > 0 && n + first_id > cores();
            let ready = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&ready);
            let spawned = super::spawn::spawn(format!("search-{id}"), move || {
                if yields {
                    lower_priority();
                }
                thread_main(id, use_nnue, network, inbox, &flag)
            });
            match spawned {
                Ok(handle) => self.threads.push(PoolThread { tasks, handle, ready }),
                Err(e) if self.threads.is_empty() && first_id == 0 => {
                    return Err(format!("cannot start a search thread: {e}"))
                }
                Err(e) => {
                    return Err(format!(
                        "only {} of {} search threads could be started: {e}",
                        self.threads.len() + first_id,
                        n + first_id
                    ))
                }
            }
        }
        Ok(())
    }

    /// Waits until every thread has allocated its worker (`isready` after `Threads`, and before
    /// a search, so that its clock is not spent on that).
    pub fn wait_ready(&self) {
        while !self.threads.iter().all(|t| t.ready.load(Ordering::Acquire) || t.handle.is_finished()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[doc(hidden)]
    /// Replaces the table (after the running search ends).
    pub fn set_table(&mut self, tt: TranspositionTable) {
        self.wait();
        self.tt = Arc::new(tt);
    }

    /// Forgets everything learned: the table, and each thread's histories (`ucinewgame`).
    pub fn clear(&mut self) {
        self.clear_table();
        self.send_all(|| Task::Clear);
        if let Some(worker) = &mut self.inline {
            worker.clear();
        }
    }

    /// Empties the table only (`Clear Hash`, a new strength).
    pub fn clear_table(&mut self) {
        self.wait();
        if let Some(tt) = Arc::get_mut(&mut self.tt) {
            tt.clear();
        }
    }

    #[doc(hidden)]
    /// Evaluates with the network or not, and with which network, from the next search on. What
    /// was learned with the other evaluation goes: the table's evaluations and scores, and each
    /// thread's histories, its correction history above all (the errors of another evaluator).
    pub fn configure(&mut self, use_nnue: bool, network: &Arc<Network>) {
        if self.use_nnue == use_nnue && Arc::ptr_eq(&self.network, network) {
            return;
        }
        self.clear();
        self.use_nnue = use_nnue;
        self.network = Arc::clone(network);
        self.send_all(|| Task::Configure { use_nnue, network: Arc::clone(network) });
        if let Some(worker) = &mut self.inline {
            worker.use_nnue = use_nnue;
            worker.set_network(network);
        }
    }

    fn send_all(&self, task: impl Fn() -> Task) {
        for t in &self.threads {
            let _ = t.tasks.send(task());
        }
    }

    /// Starts `job` on every thread and returns at once (after the previous search gave its
    /// answer). The main thread reports to `reporter`; when the search is over (and, after `go
    /// infinite` or `go ponder`, `stop` or `ponderhit` came), it calls `finish` with the outcome.
    ///
    /// Helpers of the previous search still winding down are not waited for: beyond the
    /// machine's cores, at a low priority beside other work, a thousand of them took seconds to
    /// be scheduled and stop, all on the new search's clock. Each thread takes its tasks in
    /// order, so such a helper joins this search late, and once this search is idle every
    /// earlier one is too ([`Searcher::wait`]). The table is shared all the same; the rest of a
    /// run (flags, counters, results) is its own.
    pub fn start(&mut self, job: Job, reporter: Box<dyn Reporter + Send>, finish: Box<dyn FnOnce(&Outcome) + Send>) {
        self.wait_answered();
        self.wait_ready();
        self.tt.new_search();
        if self.inline.is_some() {
            return self.start_inline(job, reporter, finish);
        }
        let shared =
            Shared::new(Arc::clone(&self.tt), self.threads.len()).with_syzygy(job.syzygy.clone()).pondering(job.ponder);
        let helpers = self.threads.len() - 1;
        let run = Run::new(job, Arc::new(shared), Some(Answer { reporter, finish }), helpers, Moment::now());
        self.send_all(|| Task::Search(Arc::clone(&run)));
        self.running = Some(run);
    }

    /// The GUI's `stop` (or `quit`): the running search ends within a thousand nodes, and its
    /// answer no longer waits for anything.
    pub fn stop(&self) {
        if let Some(run) = &self.running {
            run.shared.pondering.store(false, Ordering::Release);
            run.shared.abort.store(true, Ordering::Release);
        }
        if let Some(pending) = &*lock(&self.pending) {
            pending.shared.pondering.store(false, Ordering::Release);
            pending.shared.abort.store(true, Ordering::Release);
        }
    }

    /// `ponderhit`: a pondering search goes on as a normal one, its clock starting now (an
    /// inline search that is over gives its answer now, unless it waits for `stop`).
    pub fn ponderhit(&self) {
        if let Some(run) = &self.running {
            run.shared.pondering.store(false, Ordering::Release);
        }
        if let Some(pending) = &*lock(&self.pending) {
            pending.shared.pondering.store(false, Ordering::Release);
        }
        self.answer_if_due();
    }

    /// Whether a search was started and has not given its answer.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|run| !*lock(&run.answered)) || lock(&self.pending).is_some()
    }

    /// Waits for the running search to give its answer (its `finish` has run when this
    /// returns). Helpers that were not scheduled in time may still be winding down. An inline
    /// search waiting for `stop` that has not had it is left waiting (nothing else could send
    /// it).
    pub fn wait_answered(&self) {
        if let Some(run) = &self.running {
            wait_flag(&run.answered, &run.answered_signal);
        }
        self.answer_if_due();
    }

    /// An inline search's answer, if it is due.
    fn answer_if_due(&self) {
        let mut pending = lock(&self.pending);
        if pending.as_ref().is_some_and(Pending::due) {
            let due = pending.take().expect("checked");
            drop(pending);
            due.answer();
        }
    }

    /// Waits for the running search to end on every thread (its `finish` has run, and the
    /// table and workers are free).
    pub fn wait(&mut self) {
        if let Some(run) = self.running.take() {
            wait_flag(&run.done.idle, &run.done.idle_signal);
        }
        self.answer_if_due();
    }

    /// Searches `job` and returns its outcome, each iteration reported to `reporter` on this
    /// thread; `abort` (polled every few milliseconds) stops it as `stop` would.
    pub fn search(
        &mut self,
        job: Job,
        reporter: &mut dyn Reporter,
        abort: Option<&std::sync::atomic::AtomicBool>,
    ) -> Outcome {
        let (info_tx, info_rx) = mpsc::channel::<Iteration>();
        if self.inline.is_some() {
            // The reports are passed on once the search is over (it ran on this thread).
            let outcome = self.search_here(job, Box::new(Forward(info_tx)));
            for info in info_rx.try_iter() {
                reporter.iteration(&info);
            }
            return outcome;
        }
        let (end_tx, end_rx) = mpsc::channel::<Outcome>();
        self.start(
            job,
            Box::new(Forward(info_tx)),
            Box::new(move |outcome: &Outcome| {
                let _ = end_tx.send(outcome.clone());
            }),
        );
        let mut reporting = true;
        loop {
            if reporting {
                match info_rx.recv_timeout(Duration::from_millis(5)) {
                    Ok(info) => reporter.iteration(&info),
                    // The main thread dropped its reporter: its search is over.
                    Err(mpsc::RecvTimeoutError::Disconnected) => reporting = false,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
            } else {
                // The answer, not every helper's end (one the system does not schedule may
                // still be winding down: the next search does not wait for it either).
                match end_rx.recv_timeout(Duration::from_millis(5)) {
                    Ok(outcome) => return outcome,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => panic!("a finished search sends its outcome"),
                }
            }
            if abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                self.stop();
            }
        }
    }

    /// [`Searcher::start`] on the caller's thread.
    fn start_inline(&mut self, job: Job, reporter: Box<dyn Reporter + Send>, finish: Box<dyn FnOnce(&Outcome) + Send>) {
        // A search still waiting for its `stop` answers now: one search at a time.
        self.stop();
        self.answer_if_due();
        let started = Moment::now();
        let shared = Arc::new(
            Shared::new(Arc::clone(&self.tt), 1 + self.threads.len())
                .with_syzygy(job.syzygy.clone())
                .pondering(job.ponder),
        );
        // Helpers search beside this thread (lazy SMP) until its search is over.
        let helpers = (!self.threads.is_empty()).then(|| {
            let run = Run::new(job.clone(), Arc::clone(&shared), None, self.threads.len(), started);
            self.send_all(|| Task::Search(Arc::clone(&run)));
            run
        });
        let worker = self.inline.as_mut().expect("an inline searcher");
        let mut results = vec![worker.search(&job, Arc::clone(&shared), reporter)];
        if let Some(run) = helpers {
            // Stopped, and every helper out of the run before its table and workers are used
            // again; a helper without a completed iteration has no vote.
            shared.stop.store(true, Ordering::Release);
            wait_flag(&run.done.idle, &run.done.idle_signal);
            results.extend(run.helper_results());
        }
        let pending =
            Pending { shared, wait_for_stop: job.wait_for_stop, results, multipv: job.limits.multipv, started, finish };
        if pending.due() {
            pending.answer();
        } else {
            *lock(&self.pending) = Some(pending);
        }
    }

    /// [`Searcher::search`] without reports or an outside stop.
    pub fn search_silently(&mut self, job: Job) -> Outcome {
        if self.inline.is_none() {
            return self.search(job, &mut Silent, None);
        }
        // On this thread nothing is reported, so nothing is forwarded.
        self.search_here(job, Box::new(Silent))
    }

    /// A blocking search of an inline searcher, on this thread, reporting to `reporter`: it
    /// waits for nothing (no `stop` could come).
    fn search_here(&mut self, job: Job, reporter: Box<dyn Reporter + Send>) -> Outcome {
        let (end_tx, end_rx) = mpsc::channel::<Outcome>();
        let job = Job { wait_for_stop: false, ponder: false, ..job };
        let send = move |outcome: &Outcome| {
            let _ = end_tx.send(outcome.clone());
        };
        self.start(job, reporter, Box::new(send));
        end_rx.recv().expect("an inline search answers before it returns")
    }
}

impl Drop for Searcher {
    /// The running search is stopped and its answer waited for; the threads end by themselves
    /// once their part is over (a process that exits does not wait for them).
    fn drop(&mut self) {
        self.stop();
        self.wait_answered();
        for t in self.threads.drain(..) {
            drop(t.tasks);
        }
    }
}

/// A fresh table of `hash_mb` MiB, or the error that says it cannot be had.
fn table(hash_mb: usize) -> Result<TranspositionTable, String> {
    TranspositionTable::try_new(hash_mb).ok_or(format!("cannot allocate {hash_mb} MB of hash"))
}

/// The most threads a pool starts for each core (natively; a page's pool stops at its cores).
pub const THREADS_PER_CORE: usize = 8;

/// The cores this process may run on (in WebAssembly, those the page said it has).
fn cores() -> usize {
    super::spawn::cores()
}

/// With more threads than cores, helpers run at a lower priority than the main thread, so the
/// main thread is still scheduled often enough to keep the clock and hear `stop`.
#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: two system calls with plain integer arguments that name this thread only
    // (`PRIO_PROCESS` with a thread id sets that thread's niceness on Linux); a failure leaves
    // the priority as it was, which is harmless. The thread id comes from the system call, not
    // from glibc's `gettid` (2.30 and later), so the binary runs on older systems too.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

/// One malloc arena a thread. glibc makes at most eight arenas a core, which a full pool (eight
/// threads a core) and the process's other threads exceed, and beyond that threads share arenas:
/// a helper at a low priority descheduled inside `malloc` or `free` then holds its arena's lock
/// for as long as the system leaves it off the processor, and every thread sharing the arena
/// waits, the main thread among them (with `Threads 1000` and `arena_max=1`, two runs of
/// tests/uci.rs in three lost on time; with one arena a thread none in five). The limit is only
/// raised, to the pool's threads and sixteen more. An arena reserves address space and uses
/// memory only as its thread allocates.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn malloc_arenas_for(threads: usize) {
    let arenas = (threads + 16).max(8 * cores()).min(libc::c_int::MAX as usize) as libc::c_int;
    // SAFETY: `mallopt` takes two integers and changes the limit on arenas made from now on; a
    // refusal leaves glibc's limit, which is harmless.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn malloc_arenas_for(_threads: usize) {}

/// Waits until `flag` is set.
fn wait_flag(flag: &Mutex<bool>, signal: &Condvar) {
    let mut set = lock(flag);
    while !*set {
        set = signal.wait(set).unwrap_or_else(|e| e.into_inner());
    }
}

/// A helper's reports: its last completed iteration, kept for the vote.
struct Snapshot {
    run: Arc<Run>,
    slot: usize,
}

impl Reporter for Snapshot {
    fn iteration(&mut self, _info: &Iteration) {}

    fn completed(&mut self, result: &SearchResult) {
        *lock(&self.run.helpers[self.slot]) = Some(result.clone());
    }
}

/// Sends each iteration to the thread that asked for the search.
struct Forward(Sender<Iteration>);

impl Reporter for Forward {
    fn iteration(&mut self, info: &Iteration) {
        let _ = self.0.send(info.clone());
    }
}

/// A pool thread: its worker, allocated here, then tasks until the pool lets it go.
fn thread_main(id: usize, use_nnue: bool, network: Arc<Network>, inbox: Receiver<Task>, ready: &AtomicBool) {
    let mut worker = Worker::new(id);
    worker.use_nnue = use_nnue;
    worker.set_network(&network);
    ready.store(true, Ordering::Release);
    for task in inbox {
        match task {
            Task::Search(run) if id == 0 => {
                main_search(&mut worker, &run);
                Run::leave(run);
            }
            Task::Search(run) => {
                // The snapshot's hold on the run ends with the search (the worker lets its
                // reporter go), before the thread counts itself out.
                let snapshot = Box::new(Snapshot { run: Arc::clone(&run), slot: id - 1 });
                let result = worker.search(&run.helper_job, Arc::clone(&run.shared), snapshot);
                *lock(&run.helpers[id - 1]) = Some(result);
                run.stopped.fetch_add(1, Ordering::AcqRel);
                // Without the main thread's lock: a wake-up lost between its check and its wait
                // costs it at most the grace.
                run.helper_done.notify_all();
                Run::leave(run);
            }
            Task::Clear => worker.clear(),
            Task::Configure { use_nnue, network } => {
                worker.use_nnue = use_nnue;
                worker.set_network(&network);
            }
            #[cfg(test)]
            Task::Hold(gate) => wait_flag(&gate.0, &gate.1),
        }
    }
}

/// How long the main thread waits for stopped helpers to hand in their results before it votes
/// with the last iterations of those still winding down (threads beyond the machine's cores may
/// not be scheduled for a while, and the answer must not wait for them).
const HELPER_GRACE: Duration = Duration::from_millis(5);

/// The main thread's search: its own limits and reports; then, after `go infinite` or `go
/// ponder`, it waits for `stop` or `ponderhit`; then the helpers are stopped and collected, the
/// move voted, and the outcome handed to `finish`.
fn main_search(worker: &mut Worker, run: &Run) {
    let Some(Answer { reporter, finish }) = lock(&run.main).take() else { return };
    // The worker lets the reporter go when its search ends (a `Forward` then tells the
    // caller of `search` so).
    let result = worker.search(&run.job, Arc::clone(&run.shared), reporter);
    let shared = &run.shared;
    while !shared.abort.load(Ordering::Acquire) && (run.job.wait_for_stop || shared.pondering.load(Ordering::Acquire)) {
        std::thread::sleep(Duration::from_millis(1));
    }
    shared.stop.store(true, Ordering::Release);
    let waits = lock(&run.main_waits);
    let some_searching = |_: &mut ()| run.stopped.load(Ordering::Acquire) < run.helpers.len();
    let waited = run.helper_done.wait_timeout_while(waits, HELPER_GRACE, some_searching);
    drop(waited.unwrap_or_else(|e| e.into_inner()));
    let mut results = vec![result];
    results.extend(run.helper_results());
    let outcome = outcome(results, run.job.limits.multipv, shared, run.started);
    finish(&outcome);
    *lock(&run.answered) = true;
    run.answered_signal.notify_all();
}

/// The outcome of a search from each thread's result (the main thread's first).
fn outcome(results: Vec<SearchResult>, multipv: usize, shared: &Shared, started: Moment) -> Outcome {
    Outcome {
        // With MultiPV the move played is the first of the lines shown, all the main thread's:
        // a vote could pick a helper's move that none of those lines starts with.
        chosen: if multipv > 1 { 0 } else { vote(&results) },
        results,
        nodes: shared.total_nodes(),
        tbhits: shared.tbhits(),
        hashfull: shared.tt.hashfull(),
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::search::{Clock, Limits};

    impl Searcher {
        /// Whether the last search has ended on every thread.
        fn is_idle(&self) -> bool {
            self.running.as_ref().is_none_or(|run| *lock(&run.done.idle))
        }

        fn thread_ids(&self) -> Vec<std::thread::ThreadId> {
            self.threads.iter().map(|t| t.handle.id()).collect()
        }
    }

    #[test]
    fn the_pool_searches_again_and_again_with_the_same_threads() {
        let mut searcher = Searcher::with_hash(3, 4).unwrap();
        let ids = searcher.thread_ids();
        let pos = Position::startpos();
        for depth in [3, 5, 4] {
            let outcome = searcher.search_silently(Job::new(pos, Limits { depth: Some(depth), ..Limits::default() }));
            assert!((1..=3).contains(&outcome.results.len()));
            assert!(outcome.best().best.is_some());
            // The first thread to complete the depth ends the search for all.
            assert!(outcome.results.iter().any(|r| r.depth >= depth), "a thread reached the depth");
        }
        // The same three threads, alive, after three searches: none was started again.
        assert_eq!(searcher.thread_ids(), ids);
        assert!(searcher.threads.iter().all(|t| !t.handle.is_finished()));
        searcher.set_threads(1).unwrap();
        assert_eq!(searcher.thread_ids(), ids[..1], "shrinking keeps the first thread");
        let outcome = searcher.search_silently(Job::new(pos, Limits { depth: Some(4), ..Limits::default() }));
        assert_eq!(outcome.results.len(), 1);
        searcher.set_threads(2).unwrap();
        let grown = searcher.thread_ids();
        assert_eq!(grown[0], ids[0], "growing keeps the first thread");
        assert!(!ids.contains(&grown[1]), "and starts a new one");
        searcher.set_threads(1).unwrap();
        // One thread at a fixed depth: the same as a fresh one-thread search after a clear.
        searcher.clear();
        let again = searcher.search_silently(Job::new(pos, Limits { depth: Some(6), ..Limits::default() }));
        let mut fresh = Searcher::with_hash(1, 4).unwrap();
        let first = fresh.search_silently(Job::new(pos, Limits { depth: Some(6), ..Limits::default() }));
        assert_eq!(again.results[0], first.results[0]);
    }

    #[test]
    fn an_inline_searcher_searches_with_helper_threads_beside_its_own() {
        // The browser's threaded module: the search on the caller's thread, helpers started
        // as the platform can (system threads here). A one-thread search at a fixed depth is
        // deterministic; with a helper the count includes its nodes and differs; back at one
        // thread, after a clear, it is the one-thread count again.
        let pos = Position::startpos();
        let job = || Job::new(pos, Limits { depth: Some(9), ..Limits::default() });
        let mut searcher = Searcher::inline(TranspositionTable::new(4));
        assert_eq!(searcher.threads(), 1);
        let one = searcher.search_silently(job());
        searcher.set_threads(2).unwrap();
        assert_eq!(searcher.threads(), 2);
        assert_eq!(searcher.threads.len(), 1, "one helper beside the caller's thread");
        for _ in 0..3 {
            searcher.clear();
            let two = searcher.search_silently(job());
            assert!(two.best().best.is_some());
            assert!((1..=2).contains(&two.results.len()));
            assert!(two.results.iter().any(|r| r.depth >= 9), "a thread reached the depth");
            assert_ne!(two.nodes, one.nodes, "the helper's nodes are counted");
        }
        assert!(searcher.set_threads(searcher.max_threads() + 1).is_err(), "no more threads than cores");
        searcher.set_threads(1).unwrap();
        assert!(searcher.threads.is_empty());
        searcher.clear();
        let again = searcher.search_silently(job());
        assert_eq!(again.nodes, one.nodes);
        assert_eq!(again.results[0], one.results[0]);
    }

    #[test]
    fn another_evaluation_starts_from_nothing_learned_with_the_last() {
        // After a search with one evaluation, a search with the other (UseNNUE switched, a new
        // EvalFile) is the same as a fresh searcher's: no evaluation, score or correction of the
        // old evaluator is read.
        let pos = Position::from_fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8").unwrap();
        let job = |depth| Job::new(pos, Limits { depth: Some(depth), ..Limits::default() });
        let net = Arc::clone(crate::nnue::embedded());
        for (first, then) in [(true, false), (false, true)] {
            let mut searcher = Searcher::with_hash(1, 4).unwrap();
            searcher.configure(first, &net);
            searcher.search_silently(job(9));
            searcher.configure(then, &net);
            let after = searcher.search_silently(job(7));
            let mut fresh = Searcher::with_hash(1, 4).unwrap();
            fresh.configure(then, &net);
            let alone = fresh.search_silently(job(7));
            assert_eq!(after.results[0], alone.results[0], "UseNNUE {first} then {then}");
            assert_eq!(after.nodes, alone.nodes, "UseNNUE {first} then {then}");
        }
    }

    #[test]
    fn the_clock_counts_from_the_go_not_from_the_search() {
        // A `go` handled 300 ms before its search could start (a table being cleared, threads
        // being started): the GUI's clock has run since, so the search's time counts from then.
        struct Times(Vec<Duration>);
        impl Reporter for Times {
            fn iteration(&mut self, info: &Iteration) {
                self.0.push(info.time);
            }
        }
        let mut searcher = Searcher::with_hash(1, 4).unwrap();
        let since = Moment::now();
        std::thread::sleep(Duration::from_millis(300));
        let limits = Limits { depth: Some(3), ..Limits::default() };
        let job = Job { since: Some(since), ..Job::new(Position::startpos(), limits) };
        let mut times = Times(Vec::new());
        searcher.search(job, &mut times, None);
        assert!(!times.0.is_empty() && times.0.iter().all(|&t| t >= Duration::from_millis(300)), "{:?}", times.0);
        // A clock of 200 ms with the go 300 ms back: past every limit already, one iteration
        // and done.
        let clock = Clock { time: Duration::from_millis(200), increment: Duration::ZERO, moves_to_go: None };
        let limits = Limits { clock: Some(clock), ..Limits::default() };
        let since = Moment::now().earlier_by(Duration::from_millis(300));
        let job = Job { since: Some(since), ..Job::new(Position::startpos(), limits) };
        let outcome = searcher.search(job, &mut Silent, None);
        assert_eq!(outcome.best().depth, 1, "{:?}", outcome.best());
    }

    #[test]
    fn stop_ends_an_infinite_search_and_wait_returns_after_finish() {
        let mut searcher = Searcher::with_hash(2, 4).unwrap();
        let job = Job { wait_for_stop: true, ..Job::new(Position::startpos(), Limits::default()) };
        let (tx, rx) = mpsc::channel();
        searcher.start(
            job,
            Box::new(Silent),
            Box::new(move |o: &Outcome| {
                let _ = tx.send(o.best().best);
            }),
        );
        std::thread::sleep(Duration::from_millis(50));
        assert!(searcher.is_searching());
        assert!(rx.try_recv().is_err(), "no answer before stop");
        searcher.stop();
        searcher.wait();
        assert!(rx.try_recv().unwrap().is_some());
        assert!(!searcher.is_searching());
    }

    #[test]
    fn answers_wait_for_no_helper_the_system_does_not_schedule() {
        // A helper held off the processor (here: by a task that waits for a flag; on a busy
        // machine: a thread beyond the cores at a low priority) neither delays the answer nor
        // the next search, and one holding its own result's lock (descheduled while handing in
        // an iteration) does not block the vote.
        let mut searcher = Searcher::with_hash(3, 4).unwrap();
        searcher.wait_ready();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let _ = searcher.threads[1].tasks.send(Task::Hold(Arc::clone(&gate)));
        let pos = Position::startpos();
        for depth in [5, 6] {
            // Before, the second search waited for the held helper to end the first.
            let outcome = searcher.search_silently(Job::new(pos, Limits { depth: Some(depth), ..Limits::default() }));
            assert!(outcome.best().best.is_some());
            assert!(outcome.results.iter().any(|r| r.depth >= depth));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert!(!searcher.is_idle(), "the held helper is still behind");
        let (tx, rx) = mpsc::channel();
        let job = Job { wait_for_stop: true, ..Job::new(pos, Limits::default()) };
        searcher.start(job, Box::new(Silent), Box::new(move |o: &Outcome| tx.send(o.best().best).unwrap()));
        std::thread::sleep(Duration::from_millis(50));
        let run = Arc::clone(searcher.running.as_ref().unwrap());
        {
            // The other helper's result, locked as if that helper were descheduled writing it.
            let _held = lock(&run.helpers[1]);
            searcher.stop();
            assert!(rx.recv_timeout(Duration::from_secs(60)).unwrap().is_some(), "answered");
        }
        drop(run);
        *lock(&gate.0) = true;
        gate.1.notify_all();
        // Once the last search is idle, every earlier one is: the table is the pool's alone.
        searcher.wait();
        assert!(Arc::get_mut(&mut searcher.tt).is_some());
        searcher.clear_table();
        assert_eq!(searcher.tt.hashfull(), 0);
    }
}
