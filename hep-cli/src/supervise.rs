//! Running a HEP emitter as a child: its stdout read live into a core [`Stream`], its
//! stderr kept as a bounded tail, Ctrl-C or a timeout turned into the core's cancel policy
//! (SIGINT, then SIGTERM, then SIGKILL, to the child's whole process group, after the
//! grace periods; each further Ctrl-C takes the next step at once), and no orphan left in
//! that group.

use crate::args::{Graces, Seconds};
use hep_core::supervise::{TERMINATE_GRACE, Tail, exit_code_for_signal};
use hep_core::{Event, RunResult, Stream, StreamOptions};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How often the supervisor looks at the child, the clock and the cancel request.
const TICK: Duration = Duration::from_millis(50);
/// Chunks of stdout read ahead of the stream (64 KiB each): past that, the child waits.
const READ_AHEAD: usize = 16;

/// What the supervisor reports while the child runs.
pub(crate) enum Update {
    /// An event of the stream, the moment its line is complete.
    Event(Event),
    /// The timeout ran out while the child was running: the cancel escalation starts.
    TimedOut(Duration),
    /// A cancel signal was sent to the child's process group.
    Signalled(Signalled),
}

/// A step of the cancel escalation, taken.
pub(crate) struct Signalled {
    /// The signal sent: `SIGINT`, `SIGTERM` or `SIGKILL`.
    pub(crate) signal: &'static str,
    /// The next step and when it follows, unless the child exits first (none after SIGKILL).
    pub(crate) next: Option<(&'static str, Duration)>,
}

impl Signalled {
    /// What the supervisor is waiting for now, for a person watching.
    pub(crate) fn describe(&self) -> String {
        let signal = self.signal;
        match self.next {
            Some((_, grace)) if signal == "SIGINT" => format!(
                "SIGINT sent; waiting up to {}s for the harness to settle and exit (Ctrl-C again to stop it now)",
                Seconds(grace)
            ),
            Some((next, grace)) => {
                format!("{signal} sent; {next} in {}s (Ctrl-C again to send it now)", Seconds(grace))
            }
            None => format!("{signal} sent"),
        }
    }
}

/// How the supervised run ended.
pub(crate) struct Outcome {
    /// The run's result, given the child's exit code.
    pub(crate) result: RunResult,
    /// The child's exit code (128 + N when killed by signal N).
    pub(crate) exit_code: i32,
    /// The end of the child's stderr.
    pub(crate) stderr: Tail,
    /// Whether the timeout ran out and cancelled the child.
    pub(crate) timed_out: bool,
}

/// Kills the child's process group if the supervisor leaves early, so nothing is orphaned.
struct Group {
    child: Child,
    reaped: Option<ExitStatus>,
}

impl Group {
    fn signal(&self, signal: Signal) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // The group may already be gone; that is the outcome wanted.
            let _ = killpg(Pid::from_raw(pid), signal);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            self.signal(Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

/// The cancel escalation: the steps left (each signal with the grace before the next), and
/// when the next one is due.
struct Cancel {
    steps: Vec<(Signal, &'static str, Duration)>,
    due: Option<Instant>,
}

impl Cancel {
    fn new(graces: &Graces) -> Self {
        let steps = vec![
            (Signal::SIGKILL, "SIGKILL", Duration::ZERO),
            (Signal::SIGTERM, "SIGTERM", graces.terminate_grace.0),
            (Signal::SIGINT, "SIGINT", graces.interrupt_grace.0),
        ];
        Self { steps, due: None }
    }

    /// Whether the escalation has begun.
    fn started(&self) -> bool {
        self.due.is_some() || self.steps.len() < 3
    }

    /// A cancel request (Ctrl-C, the timeout): the first starts the escalation, each later
    /// one takes its next step at once, without waiting for the grace to run out.
    fn request(&mut self) {
        self.due = Some(Instant::now());
    }

    /// Sends the next signal when it is due.
    fn tick(&mut self, group: &Group) -> Option<Signalled> {
        if Instant::now() < self.due? {
            return None;
        }
        let (signal, name, grace) = self.steps.pop()?;
        group.signal(signal);
        let next = self.steps.last().map(|&(_, next, _)| (next, grace));
        self.due = next.map(|_| Instant::now() + grace);
        Some(Signalled { signal: name, next })
    }
}

/// Runs `command`, reading its stdout live into a stream with `options`; `on` sees every
/// update. SIGINT or SIGTERM sent to this process, or `timeout` running out while the
/// child runs, start the cancel escalation, with `graces` between its steps; each further
/// SIGINT or SIGTERM to this process takes the next step at once.
///
/// When the child exits, its group is killed; its stdout and stderr are then read to
/// their end, for at most [`TERMINATE_GRACE`] more (whatever `graces` says): a process
/// that left the group (`setsid`) and holds them open cannot keep the supervisor waiting.
pub(crate) fn supervise_within(
    mut command: Command,
    options: StreamOptions,
    timeout: Option<Duration>,
    graces: &Graces,
    mut on: impl FnMut(Update),
) -> io::Result<Outcome> {
    let cancel_requested = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&cancel_requested))?;
    }
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = command.spawn()?;
    let stdout = child.stdout.take().ok_or_else(|| io::Error::other("the child has no stdout"))?;
    let stderr = child.stderr.take().ok_or_else(|| io::Error::other("the child has no stderr"))?;
    let mut group = Group { child, reaped: None };

    let (send, receive) = mpsc::sync_channel(READ_AHEAD);
    let reader = thread::spawn(move || read_chunks(stdout, |chunk| send.send(chunk.to_vec()).is_ok()));
    let tail = Arc::new(Mutex::new(Tail::default()));
    let tail_reader = {
        let tail = Arc::clone(&tail);
        thread::spawn(move || read_tail(stderr, &tail))
    };

    let mut stream = Stream::new(options);
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut timed_out = false;
    let mut drain_until = None;
    let mut cancel = Cancel::new(graces);
    let mut stdout_open = true;
    while stdout_open || !tail_reader.is_finished() || group.reaped.is_none() {
        if drain_until.is_some_and(|until| Instant::now() >= until) {
            break;
        }
        if stdout_open {
            match receive.recv_timeout(TICK) {
                Ok(chunk) => stream.feed_with(&chunk, |event| on(Update::Event(event))),
                Err(RecvTimeoutError::Disconnected) => stdout_open = false,
                Err(RecvTimeoutError::Timeout) => {}
            }
        } else {
            thread::sleep(TICK);
        }
        if group.reaped.is_none() {
            group.reaped = group.child.try_wait()?;
            if group.reaped.is_some() {
                // The child is gone; whatever it left in its group would be an orphan
                // (and may hold its stdout open).
                group.signal(Signal::SIGKILL);
                drain_until = Some(Instant::now() + TERMINATE_GRACE);
            } else if let (Some(limit), Some(at), false) = (timeout, deadline, timed_out) {
                if Instant::now() >= at {
                    timed_out = true;
                    on(Update::TimedOut(limit));
                    // The timeout starts a cancel; it does not hurry one already under way.
                    if !cancel.started() {
                        cancel.request();
                    }
                }
            }
        }
        // Each Ctrl-C seen since the last tick (presses within one tick count once).
        if cancel_requested.swap(false, Ordering::SeqCst) {
            cancel.request();
        }
        if group.reaped.is_none() {
            if let Some(step) = cancel.tick(&group) {
                on(Update::Signalled(step));
            }
        }
    }
    let status = group.reaped.unwrap_or_default();
    let exit_code = status.code().or_else(|| status.signal().map(exit_code_for_signal)).unwrap_or(1);
    // Chunks read before the end (all of them, when stdout was closed).
    while let Ok(chunk) = receive.try_recv() {
        stream.feed_with(&chunk, |event| on(Update::Event(event)));
    }
    if !stdout_open {
        reader.join().map_err(|_| io::Error::other("the stdout reader panicked"))??;
    }
    for event in stream.end_input() {
        on(Update::Event(event));
    }
    let stderr = tail.lock().map_err(|_| io::Error::other("the stderr reader panicked"))?.clone();
    Ok(Outcome { result: stream.finish(Some(exit_code)), exit_code, stderr, timed_out })
}

/// Hands every chunk `from` yields to `send` as soon as it is read (reads return as soon
/// as the pipe has data, so nothing waits for a buffer to fill); stops at the end, or when
/// `send` says nobody listens.
fn read_chunks(mut from: impl Read, mut send: impl FnMut(&[u8]) -> bool) -> io::Result<()> {
    let mut buf = vec![0; 64 << 10];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                if !send(buf.get(..n).unwrap_or_default()) {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Feeds everything `from` yields into `stream`, handing each event to `send` as soon as
/// it exists; stops early when `send` says nobody listens. Gives the stream back at the end.
pub(crate) fn read_stream(
    from: impl Read,
    mut stream: Stream,
    mut send: impl FnMut(Event) -> bool,
) -> io::Result<Stream> {
    let mut listening = true;
    read_chunks(from, |chunk| {
        stream.feed_with(chunk, |event| listening = listening && send(event));
        listening
    })?;
    if listening {
        for event in stream.end_input() {
            send(event);
        }
    }
    Ok(stream)
}

/// Keeps the end of what `from` yields in `tail`, until its end (or a read error, the end too).
fn read_tail(mut from: impl Read, tail: &Mutex<Tail>) {
    let mut buf = [0; 8192];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => match tail.lock() {
                Ok(mut tail) => tail.push(buf.get(..n).unwrap_or_default()),
                Err(_) => return,
            },
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
