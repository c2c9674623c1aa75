//! Colours, when wanted: on a terminal, unless NO_COLOR is set or `--color never`.

use crate::args::ColorChoice;
use std::io::IsTerminal;

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    color: bool,
}

impl Style {
    /// The style for stdout under `choice`.
    pub(crate) fn for_stdout(choice: ColorChoice) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && std::io::stdout().is_terminal(),
        };
        Self { color }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Bold.
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dimmed.
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Red.
    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Green.
    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow.
    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Cyan.
    pub(crate) fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}
