//! [`Process`]: the driver. It spawns, reads what is ready (poll(2) over stdout, stderr,
//! the canceller and the child's exit), feeds the bytes and the time to the core's
//! [`Supervisor`], carries out its actions and hands its notices over. The policy (the
//! cancel ladder, timeouts, the drain, backpressure, the verdict) is all the core's.

use crate::{Canceller, Update};
use hep_core::RunResult;
use hep_core::supervise::{Action, CancelReason, ExitStatus, Signal, SuperviseOptions, Supervisor};
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{self, killpg};
use nix::unistd::Pid;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// A supervised child, running. Read its [`Update`]s with
/// [`next_update`](Process::next_update) (or as an [`Iterator`]) until there are none; then
/// [`result`](Process::result) is the run's result. [`wait`](Process::wait) does both.
///
/// Dropping a `Process` whose child still runs sends SIGKILL to the child's process group
/// and reaps the child, so nothing it started is left (to cancel gracefully, call
/// [`cancel`](Process::cancel) and read on to the end). A panic that unwinds through its
/// owner drops it too.
///
/// ```
/// use hep_process::{Command, Update};
///
/// let mut process = Command::new("sh").args(["-c", "echo starting >&2; exit 3"]).spawn()?;
/// let mut stderr = Vec::new();
/// while let Some(update) = process.next_update()? {
///     if let Update::Stderr(line) = update {
///         stderr.push(line);
///     }
/// }
/// assert_eq!(stderr, ["starting"]);
/// assert_eq!(process.result().map(|r| r.exit_code), Some(Some(3)));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Process {
    sup: Supervisor,
    origin: Instant,
    group: Pid,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    paused: bool,
    canceller: Canceller,
    /// Reaches its end when the waiter thread has reaped the child.
    exit_wake: Option<UnixStream>,
    exit: Receiver<io::Result<std::process::ExitStatus>>,
    waiter: Option<JoinHandle<()>>,
    /// Cancel steps sent, not handed over yet.
    sent: VecDeque<Update>,
    /// The canceller's leftover requests were dropped at the end.
    done: bool,
    buf: Box<[u8]>,
}

impl Process {
    /// Spawns `command` (its stdout and stderr piped, in a new process group: the caller set
    /// that up) under a supervisor with `options`.
    pub(crate) fn spawn(
        command: &mut std::process::Command,
        options: SuperviseOptions,
        canceller: Canceller,
    ) -> io::Result<Self> {
        let (exit_wake, exit_write) = UnixStream::pair()?;
        let origin = Instant::now();
        let mut child = command.spawn()?;
        let group = Pid::from_raw(i32::try_from(child.id()).map_err(io::Error::other)?);
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (send, exit) = mpsc::channel();
        let waiter = thread::Builder::new().name("hep-process waiter".into()).spawn(move || {
            let _ = send.send(child.wait());
            drop(exit_write);
        });
        let waiter = waiter.inspect_err(|_| {
            let _ = killpg(group, signal::SIGKILL);
        })?;
        Ok(Self {
            sup: Supervisor::new(options, Duration::ZERO),
            origin,
            group,
            stdin,
            stdout,
            stderr,
            paused: false,
            canceller,
            exit_wake: Some(exit_wake),
            exit,
            waiter: Some(waiter),
            sent: VecDeque::new(),
            done: false,
            buf: vec![0; 64 << 10].into_boxed_slice(),
        })
    }

    /// The child's process id (also its process group's id).
    pub fn id(&self) -> u32 {
        self.group.as_raw().unsigned_abs()
    }

    /// The child's stdin, when [`Command::stdin`](crate::Command::stdin) asked for a pipe
    /// (once: it is taken).
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The canceller of this run (a clone: cancel from another thread or a signal handler).
    pub fn canceller(&self) -> Canceller {
        self.canceller.clone()
    }

    /// Asks for the run to be cancelled; a further call takes the next step at once (see
    /// [`Canceller::cancel`]). Carried out by the next [`next_update`](Process::next_update).
    pub fn cancel(&self) {
        self.canceller.cancel();
    }

    /// The supervisor (for the options, or the stream read so far).
    pub fn supervisor(&self) -> &Supervisor {
        &self.sup
    }

    /// The run's result, once [`next_update`](Process::next_update) has returned `None`.
    pub fn result(&self) -> Option<&RunResult> {
        self.sup.result()
    }

    /// Reads on to the end, dropping the updates, and returns the result.
    pub fn wait(mut self) -> io::Result<RunResult> {
        while self.next_update()?.is_some() {}
        self.sup.result().cloned().ok_or_else(|| io::Error::other("the run has no result"))
    }

    /// Waits for the next update (a frame or report, a stderr line, a cancel step) and
    /// returns it the moment it exists; `None` once the run is over (the child exited and
    /// its pipes are drained) and everything was handed over. Blocks while the child is
    /// quiet; wakes for a cancel request and for the supervisor's deadlines.
    pub fn next_update(&mut self) -> io::Result<Option<Update>> {
        loop {
            self.act();
            if let Some(update) = self.sent.pop_front() {
                return Ok(Some(update));
            }
            if let Some(line) = self.sup.poll_stderr() {
                return Ok(Some(Update::Stderr(line)));
            }
            if let Some(event) = self.sup.poll_event() {
                return Ok(Some(Update::Event(event)));
            }
            if self.sup.is_finished() {
                if !self.done {
                    self.done = true;
                    self.canceller.take_requests();
                }
                return Ok(None);
            }
            self.wait_and_feed()?;
        }
    }

    /// Carries out the supervisor's actions.
    fn act(&mut self) {
        while let Some(action) = self.sup.poll_action() {
            match action {
                Action::Signal(step) => {
                    self.signal(step.signal);
                    self.sent.push_back(Update::Signal(step));
                }
                Action::KillGroup => self.signal(Signal::Kill),
                Action::PauseStdout => self.paused = true,
                Action::ResumeStdout => self.paused = false,
                Action::ClosePipes => (self.stdout, self.stderr) = (None, None),
            }
        }
    }

    fn signal(&self, signal: Signal) {
        let signal = match signal {
            Signal::Interrupt => signal::SIGINT,
            Signal::Terminate => signal::SIGTERM,
            Signal::Kill => signal::SIGKILL,
        };
        // The group may be gone already; that is what the signal wanted.
        let _ = killpg(self.group, signal);
    }

    /// Waits until a pipe, the canceller or the child's exit is ready, or the supervisor's
    /// deadline; feeds what happened.
    fn wait_and_feed(&mut self) -> io::Result<()> {
        let timeout = match self.sup.deadline() {
            // Rounded up, so the wake is never early.
            Some(at) => PollTimeout::try_from(at.saturating_sub(self.now()).as_micros().div_ceil(1000))
                .unwrap_or(PollTimeout::MAX),
            None => PollTimeout::NONE,
        };
        let stdout = self.stdout.as_ref().filter(|_| !self.paused).map(AsFd::as_fd);
        let sources = [stdout, self.stderr.as_ref().map(AsFd::as_fd), self.exit_wake.as_ref().map(AsFd::as_fd)];
        let mut fds: Vec<PollFd<'_>> = vec![PollFd::new(self.canceller.fd(), PollFlags::POLLIN)];
        fds.extend(sources.iter().flatten().map(|&fd| PollFd::new(fd, PollFlags::POLLIN)));
        match poll(&mut fds, timeout) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
        let mut revents = fds.iter().map(|fd| fd.any().unwrap_or(true));
        let cancelled = revents.next().unwrap_or(false);
        let [out, err, exit] = sources.map(|fd| fd.is_some() && revents.next().unwrap_or(false));
        let now = self.now();
        if out {
            if let Some(n) = read(&mut self.stdout, &mut self.buf) {
                self.sup.stdout(now, self.buf.get(..n).unwrap_or_default());
            } else {
                self.sup.stdout_closed(now);
            }
        }
        if err {
            if let Some(n) = read(&mut self.stderr, &mut self.buf) {
                self.sup.stderr(now, self.buf.get(..n).unwrap_or_default());
            } else {
                self.sup.stderr_closed(now);
            }
        }
        if exit {
            self.exit_wake = None;
            let status = self.exit.recv().map_err(io::Error::other)??;
            let status = match (status.code(), status.signal()) {
                (Some(code), _) => ExitStatus::Code(code),
                (None, Some(signal)) => ExitStatus::Signal(signal),
                (None, None) => ExitStatus::Unknown,
            };
            self.sup.exited(now, status);
        }
        if cancelled {
            for _ in 0..self.canceller.take_requests() {
                self.sup.cancel(now, CancelReason::User);
            }
        }
        self.sup.tick(now);
        Ok(())
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// One read of a ready pipe: the bytes read, or `None` at its end (then closed). A read
/// error other than EINTR counts as the end.
fn read(pipe: &mut Option<impl Read>, buf: &mut [u8]) -> Option<usize> {
    let reader = pipe.as_mut()?;
    let n = loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => break result.unwrap_or(0),
        }
    };
    if n == 0 {
        *pipe = None;
        return None;
    }
    Some(n)
}

impl Iterator for Process {
    type Item = io::Result<Update>;

    /// [`Process::next_update`], transposed.
    fn next(&mut self) -> Option<Self::Item> {
        self.next_update().transpose()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.exit_wake.is_some() {
            // The child still runs (or its exit was not seen yet): nothing may outlive the handle.
            self.signal(Signal::Kill);
        }
        if let Some(waiter) = self.waiter.take() {
            let _ = waiter.join();
        }
    }
}
