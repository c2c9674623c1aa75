//! The supervising commands (`watch`, `check`) where there is no Unix process supervision:
//! they say so and exit, while the commands that read or write streams work everywhere.

/// The message for `hep <command>` on this platform.
pub(crate) fn message(command: &str) -> String {
    format!(
        "hep {command} is not supported on this platform ({}): it supervises the child in a process group \
         with Unix signals; hep validate, cat, encode, schema and simulate work here \
         (e.g. `harness > run.jsonl` then `hep validate run.jsonl`)",
        std::env::consts::OS
    )
}

/// Reports that `hep <command>` is not supported here; returns the usage exit code.
#[cfg(not(unix))]
pub(crate) fn run(command: &str) -> i32 {
    eprintln!("{}", message(command));
    crate::EXIT_USAGE
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_command_and_the_platform() {
        let message = super::message("watch");
        assert!(message.starts_with("hep watch is not supported on this platform (linux): "), "{message}");
        assert!(message.contains("hep validate"), "{message}");
    }
}
