//! `hep`: supervise, lint and simulate HEP v1 streams. All protocol logic is in hep-core;
//! this binary wires it to files, pipes, processes and the terminal.

mod args;
mod cat;
#[cfg(unix)]
mod check;
mod encode;
mod input;
mod jsonl;
mod render;
mod report;
mod scenarios;
mod simulate;
mod simulator;
mod style;
#[cfg(any(not(unix), test))]
mod unsupported;
mod validate;
#[cfg(unix)]
mod watch;

use args::{Cli, Command, Format};
use clap::Parser;
use std::process::ExitCode;
use style::Style;

/// Exit code for usage errors and unreadable input.
pub(crate) const EXIT_USAGE: i32 = 2;

/// Prints `text` and a newline to stdout. A reader that went away (`hep … | head -1`) is
/// not an error worth a panic: the output is dropped and the command's own exit code stands.
pub(crate) fn say(text: impl std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let style = Style::for_stdout(cli.color);
    let code = if cli.version {
        version(cli.format)
    } else {
        match &cli.command {
            #[cfg(unix)]
            Some(Command::Watch(args)) => watch::run(args, style),
            #[cfg(unix)]
            Some(Command::Check(args)) => check::run(args, style),
            #[cfg(not(unix))]
            Some(Command::Watch(_)) => unsupported::run("watch"),
            #[cfg(not(unix))]
            Some(Command::Check(_)) => unsupported::run("check"),
            Some(Command::Validate(args)) => validate::run(args, style),
            Some(Command::Simulate(args)) => simulate::run(args),
            Some(Command::Cat(args)) => cat::run(args, style),
            Some(Command::Encode) => encode::run(),
            Some(Command::Schema) => {
                say(hep_core::schema::json_schema().trim_end());
                0
            }
            None => EXIT_USAGE,
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn version(format: Format) -> i32 {
    let version = env!("CARGO_PKG_VERSION");
    match format {
        Format::Text => say(format!("hep {version} (HEP {})", hep_core::PROTOCOL_VERSION)),
        Format::Json | Format::Jsonl => {
            say(format!(r#"{{"version":"{version}","hep":"{}"}}"#, hep_core::PROTOCOL_VERSION))
        }
    }
    0
}
