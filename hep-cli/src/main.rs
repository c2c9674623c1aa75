//! `hep`: supervise, lint and simulate HEP v1 streams. All protocol logic is in hep-core;
//! this binary wires it to files, pipes, processes and the terminal.

mod args;
mod check;
mod encode;
mod files;
mod render;
mod report;
mod scenarios;
mod simulate;
mod style;
mod supervise;
mod watch;

use args::{Cli, Command, Format};
use clap::Parser;
use std::process::ExitCode;
use style::Style;

/// Exit code for usage errors and unreadable input.
pub(crate) const EXIT_USAGE: i32 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let style = Style::for_stdout(cli.color);
    let code = if cli.version {
        version(cli.output)
    } else {
        match &cli.command {
            Some(Command::Watch(args)) => watch::run(args, style),
            Some(Command::Validate(args)) => files::validate(args, style),
            Some(Command::Check(args)) => check::run(args, style),
            Some(Command::Simulate(args)) => simulate::run(args),
            Some(Command::Cat(args)) => files::cat(args, style),
            Some(Command::Encode) => encode::run(),
            Some(Command::Schema) => {
                print!("{}", hep_core::schema::json_schema());
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
        Format::Text => println!("hep {version} (HEP {})", hep_core::PROTOCOL_VERSION),
        Format::Json => println!(r#"{{"version":"{version}","hep":"{}"}}"#, hep_core::PROTOCOL_VERSION),
    }
    0
}
