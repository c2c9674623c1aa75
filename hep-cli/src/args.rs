//! The command line, as clap sees it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use hep_core::supervise::{INTERRUPT_GRACE, TERMINATE_GRACE};
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Supervise, lint and simulate HEP v1 streams (the Harness Event Protocol).
#[derive(Debug, Parser)]
#[command(name = "hep", disable_version_flag = true, arg_required_else_help = true)]
pub(crate) struct Cli {
    /// Print the version (with `--format json`: `{"version":"…","hep":"v1"}`).
    #[arg(long, short = 'V')]
    pub(crate) version: bool,
    /// Format of `--version` (`--output` is the old spelling).
    #[arg(long, alias = "output", value_enum, default_value_t = Format::Text, requires = "version")]
    pub(crate) format: Format,
    /// Colours: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub(crate) color: ColorChoice,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Supervise a HEP-emitting command and mirror its progress live.
    ///
    /// With no command, watches the built-in simulator (`hep simulate --scenario tools`).
    /// Ctrl-C (or `--timeout`, or `--idle-timeout`) cancels the child: SIGINT, then SIGTERM
    /// and SIGKILL after grace periods, sent to its whole process group; Ctrl-C again takes
    /// the next step at once. The exit code mirrors the child's.
    Watch(Watch),
    /// Lint a saved stream: every violation with its line, then the verdict.
    ///
    /// Exit 0 when the stream conforms, 1 when it does not, 2 on usage errors.
    Validate(Validate),
    /// Run an emitter and check its live stdout and exit code against the protocol.
    ///
    /// The conformance test for harness authors. Exit 0 when the run conforms, 1 when not.
    Check(Check),
    /// Emit a realistic HEP v1 stream with real timing, without an LLM.
    Simulate(Simulate),
    /// Render a saved or piped stream for humans.
    Cat(Cat),
    /// Read frames as JSON objects, one per line, and print each in its exact canonical bytes.
    Encode,
    /// Print the JSON Schema of HEP v1 frames.
    Schema,
}

#[derive(Debug, Args)]
pub(crate) struct Watch {
    /// Output: `text`, the live view and a summary; `json`, the run result at the end;
    /// `jsonl`, every frame, report, stderr line and cancel step as one JSON line the moment
    /// it happens, then the result.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub(crate) json: bool,
    /// Stop at the first protocol error instead of reporting and carrying on.
    #[arg(long)]
    pub(crate) strict: bool,
    #[command(flatten)]
    pub(crate) supervision: Supervision,
    /// The command to supervise, after `--`.
    #[arg(last = true)]
    pub(crate) command: Vec<OsString>,
}

impl Watch {
    /// The output format, `--json` included.
    #[cfg(unix)]
    pub(crate) fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

/// How a child is supervised: when it is cancelled, and the grace periods of the cancel
/// (SIGINT, then SIGTERM after the first, SIGKILL after the second). The defaults are
/// `hep_core::supervise`'s, shared by every binding.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct Supervision {
    /// Cancel the child, as Ctrl-C does, if it still runs after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_negative_numbers = true)]
    pub(crate) timeout: Option<Duration>,
    /// Cancel the child, as Ctrl-C does, if it writes no frame for this many seconds (a
    /// tool's heartbeats count, its stderr does not).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_negative_numbers = true)]
    pub(crate) idle_timeout: Option<Duration>,
    /// After SIGINT, how long the child gets to settle and exit before SIGTERM. The default
    /// outlasts the reference harness, which waits up to 10 s for an aborted run to settle
    /// and then drains its output.
    #[arg(long, value_name = "SECONDS", value_parser = grace, allow_negative_numbers = true,
          default_value_t = Seconds(INTERRUPT_GRACE))]
    pub(crate) interrupt_grace: Seconds,
    /// After SIGTERM, how long before SIGKILL.
    #[arg(long, value_name = "SECONDS", value_parser = grace, allow_negative_numbers = true,
          default_value_t = Seconds(TERMINATE_GRACE))]
    pub(crate) terminate_grace: Seconds,
}

impl Supervision {
    /// The core's options for these flags, reading stdout strictly or not.
    #[cfg(unix)]
    pub(crate) fn options(&self, strict: bool) -> hep_core::supervise::SuperviseOptions {
        use hep_core::StreamOptions;
        use hep_core::supervise::SuperviseOptions;
        SuperviseOptions {
            stream: StreamOptions { strict, ..StreamOptions::default() },
            timeout: self.timeout,
            idle_timeout: self.idle_timeout,
            interrupt_grace: self.interrupt_grace.0,
            terminate_grace: self.terminate_grace.0,
            ..SuperviseOptions::default()
        }
    }
}

/// A duration given in seconds, such as `30` or `0.5`.
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(value)
        .map_err(|_| format!("`{text}` is not a duration: give seconds >= 0, such as 30 or 0.5"))
}

fn grace(text: &str) -> Result<Seconds, String> {
    seconds(text).map(Seconds)
}

/// A duration shown in seconds (`12`, `0.5`), as it is given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seconds(pub(crate) Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

#[derive(Debug, Args)]
pub(crate) struct Validate {
    /// The stream to read; `-` or nothing for stdin.
    pub(crate) file: Option<PathBuf>,
    /// The emitter's exit code, checked against the last terminal frame.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) exit_code: Option<i32>,
    /// Stop at the first error.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Output: `text`, the findings and the verdict; `json`, one report at the end;
    /// `jsonl`, every frame and report as one JSON line, then the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// Longest accepted line, in bytes.
    #[arg(long, default_value_t = hep_core::lines::DEFAULT_MAX_LINE)]
    pub(crate) max_line_bytes: usize,
}

#[derive(Debug, Args)]
pub(crate) struct Check {
    /// Stop at the first error.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Output: `text`, the findings and the verdict; `json`, one report at the end;
    /// `jsonl`, every frame, report, stderr line and cancel step as one JSON line as it
    /// happens, then the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    #[command(flatten)]
    pub(crate) supervision: Supervision,
    /// The emitter to run, after `--`.
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub(crate) struct Simulate {
    /// What the simulated run does.
    #[arg(long, value_enum, default_value_t = Scenario::Tools)]
    pub(crate) scenario: Scenario,
    /// Seed for the text and timing choices (same seed, same bytes).
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Speed factor: 2 runs twice as fast, 0 emits without delays.
    #[arg(long, default_value_t = 1.0)]
    pub(crate) speed: f64,
    /// Session id in the header.
    #[arg(long)]
    pub(crate) session: Option<String>,
    /// Render tool arguments as raw JSON (`events=full`) instead of the summary.
    #[arg(long)]
    pub(crate) full_args: bool,
}

#[derive(Debug, Args)]
pub(crate) struct Cat {
    /// The stream to render; `-` or nothing for stdin.
    pub(crate) file: Option<PathBuf>,
}

/// The simulator's scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scenario {
    /// One round of chat.
    Chat,
    /// Several rounds with tool calls.
    Tools,
    /// A provider error: `turn_error`, exit 1.
    Error,
    /// A long run; SIGINT or SIGTERM makes it emit `cancelled` and exit 130.
    CancelMe,
    /// Pre-flight, between-rounds and post-run compaction.
    Compaction,
    /// A tool that gets heartbeats and stuck-call follow-ups.
    Stuck,
    /// Tool output and arguments past the bounds.
    BigOutput,
    /// Unknown frame types and fields, as a newer emitter would send.
    Future,
    /// A request over the context window: a fatal `turn_error`, a compaction, then the run
    /// continues and ends with `turn_done` (exit 0).
    OverWindow,
    /// A pre-flight `compaction_start` with no end (the pass did not compact), a round, and
    /// a post-run compaction that runs.
    SkippedCompaction,
}

/// Text or JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For humans.
    Text,
    /// For programs: one JSON document at the end.
    Json,
    /// For programs: one JSON object per line, as things happen (docs/cli.md lists them).
    Jsonl,
}

/// When to use colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}
