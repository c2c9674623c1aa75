//! [`Command`]: what to run and how to supervise it, built like `std::process::Command`.

use crate::{Canceller, Process, Update};
use hep_core::supervise::SuperviseOptions;
use hep_core::{RunResult, StreamOptions};
use std::ffi::OsStr;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// A HEP emitter to run under supervision: a `std::process::Command` plus the core's
/// [`SuperviseOptions`] and, optionally, a [`Canceller`].
///
/// The child gets a process group of its own (so a terminal's Ctrl-C reaches the
/// supervisor alone, and the cancel's signals reach everything the child started), its
/// stdout and stderr piped to the driver, and `/dev/null` as stdin unless
/// [`stdin`](Command::stdin) says otherwise. On Linux it also dies with the supervisor
/// ([`die_with_supervisor`](Command::die_with_supervisor)).
///
/// ```
/// use hep_process::{Command, Update};
/// use hep_core::Event;
/// use std::time::Duration;
///
/// let stream = concat!(
///     r#"printf '%s\n' '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}' "#,
///     r#"'{"type":"agent_start","turn_id":1}' "#,
///     r#"'{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],"usage":{"input":1,"output":2,"cost":0.0},"stop_reason":"stop"}'"#,
/// );
/// let mut frames = Vec::new();
/// let result = Command::new("sh")
///     .args(["-c", stream])
///     .idle_timeout(Duration::from_secs(300))
///     .run(|update| {
///         if let Update::Event(Event::Frame(received)) = update {
///             frames.push(received.frame.frame_type().to_owned());
///         }
///     })?;
/// assert_eq!(frames, ["hep_header", "agent_start", "turn_done"]);
/// assert_eq!(result.verdict.as_str(), "ok");
/// assert_eq!(result.run.answer.as_deref(), Some("hi"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Command {
    inner: std::process::Command,
    options: SuperviseOptions,
    canceller: Option<Canceller>,
    die_with_supervisor: bool,
    /// Read by the `pre_exec` hook in the child: the supervisor's pid, or 0 for no
    /// parent-death signal.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    parent: Arc<AtomicI32>,
}

impl Command {
    /// A command running `program` (looked up on `PATH` as `std::process::Command` does),
    /// with the core's default supervision.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self::from(std::process::Command::new(program))
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.inner.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.inner.args(args);
        self
    }

    /// Sets an environment variable of the child.
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.inner.env(key, value);
        self
    }

    /// Sets environment variables of the child.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.inner.envs(vars);
        self
    }

    /// Removes an environment variable from the child's environment.
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.inner.env_remove(key);
        self
    }

    /// Clears the child's environment.
    pub fn env_clear(&mut self) -> &mut Self {
        self.inner.env_clear();
        self
    }

    /// The child's working directory.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.inner.current_dir(dir);
        self
    }

    /// The child's stdin: `Stdio::null()` (the default), `Stdio::inherit()`, a file, or
    /// `Stdio::piped()` (then [`Process::take_stdin`] gives the pipe).
    pub fn stdin(&mut self, stdin: impl Into<Stdio>) -> &mut Self {
        self.inner.stdin(stdin);
        self
    }

    /// The longest the run may take (`None`: no limit, the default); past it, the core
    /// cancels the run, and the result says `timed out after N s`.
    pub fn timeout(&mut self, limit: impl Into<Option<Duration>>) -> &mut Self {
        self.options.timeout = limit.into();
        self
    }

    /// The longest the child may go without writing a frame (`None`: no limit, the
    /// default); past it, the core cancels the run, and the result says `idle for N s`. Any
    /// frame counts, a tool's heartbeats included; stderr does not.
    pub fn idle_timeout(&mut self, limit: impl Into<Option<Duration>>) -> &mut Self {
        self.options.idle_timeout = limit.into();
        self
    }

    /// After SIGINT, how long the child gets to settle and exit before SIGTERM (default
    /// [`INTERRUPT_GRACE`](hep_core::supervise::INTERRUPT_GRACE), 12 s).
    pub fn interrupt_grace(&mut self, grace: Duration) -> &mut Self {
        self.options.interrupt_grace = grace;
        self
    }

    /// After SIGTERM, how long before SIGKILL (default
    /// [`TERMINATE_GRACE`](hep_core::supervise::TERMINATE_GRACE), 2 s).
    pub fn terminate_grace(&mut self, grace: Duration) -> &mut Self {
        self.options.terminate_grace = grace;
        self
    }

    /// Stops reading the stream at its first protocol error (default: lenient, report and
    /// carry on).
    pub fn strict(&mut self, strict: bool) -> &mut Self {
        self.options.stream.strict = strict;
        self
    }

    /// How stdout is read (strict or lenient, line length, retention limits).
    pub fn stream_options(&mut self, stream: StreamOptions) -> &mut Self {
        self.options.stream = stream;
        self
    }

    /// Every supervision option at once (replacing what the other setters set).
    pub fn options(&mut self, options: SuperviseOptions) -> &mut Self {
        self.options = options;
        self
    }

    /// The options the next run is supervised with.
    pub fn get_options(&self) -> &SuperviseOptions {
        &self.options
    }

    /// Cancels the runs of this command through `canceller` (one run at a time). Without
    /// it, each run has a canceller of its own ([`Process::canceller`]).
    pub fn canceller(&mut self, canceller: &Canceller) -> &mut Self {
        self.canceller = Some(canceller.clone());
        self
    }

    /// On Linux, whether the kernel sends SIGKILL to the child when the supervisor goes away
    /// without dropping its [`Process`] (`std::process::exit`, an abort, SIGKILL):
    /// `PR_SET_PDEATHSIG`, set between fork and exec. On by default.
    ///
    /// The kernel ties it to the *thread* that spawned the child: if that thread ends while
    /// the `Process` lives on in another (a thread pool that retires idle threads), the
    /// child is killed then. [`Command::run`] never hits this (it runs on the spawning
    /// thread); turn it off to move a spawned `Process` away from a short-lived thread. On
    /// other systems this does nothing: there a child outlives a supervisor that ends
    /// without dropping its `Process`.
    pub fn die_with_supervisor(&mut self, on: bool) -> &mut Self {
        self.die_with_supervisor = on;
        self
    }

    /// The `std::process::Command` inside (its stdout, stderr and process group are set by
    /// [`spawn`](Command::spawn)).
    pub fn as_std(&self) -> &std::process::Command {
        &self.inner
    }

    /// The `std::process::Command` inside, to set what this type does not offer (a uid,
    /// `arg0`); stdout, stderr and the process group are overridden by
    /// [`spawn`](Command::spawn).
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        &mut self.inner
    }

    /// Starts the child; read its updates from the [`Process`].
    pub fn spawn(&mut self) -> io::Result<Process> {
        let parent = if self.die_with_supervisor { nix::unistd::getpid().as_raw() } else { 0 };
        self.parent.store(parent, Ordering::SeqCst);
        self.inner.stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let canceller = match &self.canceller {
            Some(canceller) => canceller.clone(),
            None => Canceller::new()?,
        };
        Process::spawn(&mut self.inner, self.options, canceller)
    }

    /// Runs the child to its end, handing every [`Update`] to `on_update` the moment it
    /// exists, and returns the run's result. A panic in `on_update` kills the child.
    pub fn run(&mut self, mut on_update: impl FnMut(Update)) -> io::Result<RunResult> {
        let mut process = self.spawn()?;
        while let Some(update) = process.next_update()? {
            on_update(update);
        }
        process.wait()
    }
}

impl From<std::process::Command> for Command {
    /// Supervises `command` (its stdin becomes `/dev/null` unless set again with
    /// [`Command::stdin`]).
    fn from(mut inner: std::process::Command) -> Self {
        inner.stdin(Stdio::null());
        let parent = Arc::new(AtomicI32::new(0));
        default_signal_handling(&mut inner);
        #[cfg(target_os = "linux")]
        die_with_parent(&mut inner, Arc::clone(&parent));
        Self { inner, options: SuperviseOptions::default(), canceller: None, die_with_supervisor: true, parent }
    }
}

/// Installs the hook that gives the child every signal's default action, as libuv (Node)
/// and `posix_spawn` with `POSIX_SPAWN_SETSIGDEF` (the Swift driver) do. A signal the
/// supervisor ignores stays ignored across exec: started from `nohup` or as a background
/// job of a script, it ignores SIGINT, and so would its child, which could then not even
/// trap the cancel ladder's SIGINT (a shell cannot trap a signal ignored on entry) and
/// would end by SIGTERM, `incomplete` instead of `cancelled`.
#[allow(unsafe_code)]
fn default_signal_handling(command: &mut std::process::Command) {
    use nix::sys::signal::{SigHandler, Signal, signal};
    let hook = || {
        for sig in Signal::iterator().filter(|s| !matches!(s, Signal::SIGKILL | Signal::SIGSTOP)) {
            // SAFETY: SIG_DFL installs no handler of ours.
            unsafe { signal(sig, SigHandler::SigDfl) }?;
        }
        Ok(())
    };
    // SAFETY: the hook runs in the child between fork and exec, where only
    // async-signal-safe work is allowed: sigaction(2) for each signal, no allocation.
    unsafe {
        command.pre_exec(hook);
    }
}

/// Installs the hook that asks the kernel for SIGKILL when the supervisor (`parent`, when
/// not 0) goes away; if it is already gone, the child does not start.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut std::process::Command, parent: Arc<AtomicI32>) {
    use nix::sys::{prctl, signal::Signal};
    let hook = move || {
        let parent = parent.load(Ordering::SeqCst);
        if parent != 0 {
            prctl::set_pdeathsig(Signal::SIGKILL)?;
            if nix::unistd::getppid().as_raw() != parent {
                return Err(io::ErrorKind::Other.into());
            }
        }
        Ok(())
    };
    // SAFETY: the hook runs in the child between fork and exec, where only
    // async-signal-safe work is allowed. It does an atomic load, prctl(2) and getppid(2),
    // and builds its errors without allocating (an errno, an `ErrorKind`).
    unsafe {
        command.pre_exec(hook);
    }
}
