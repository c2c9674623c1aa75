//! `hep cat`: renders a saved or piped stream as `hep watch` would, then its summary.

use crate::args::Cat;
use crate::input;
use crate::render::Renderer;
use crate::style::Style;
use hep_core::StreamOptions;
use std::io;

/// Runs `hep cat`: renders the stream, then its summary.
pub(crate) fn run(args: &Cat, style: Style) -> i32 {
    let mut view = Renderer::new(io::stdout().lock(), style, false);
    let result = input::read(args.file.as_deref(), StreamOptions::default(), None, |event| view.event(&event).is_ok());
    match result {
        Ok(result) => {
            let _ = view.summary(&result, None);
            0
        }
        Err(e) => {
            eprintln!("hep cat: cannot read {}: {e}", input::name(args.file.as_deref()));
            crate::EXIT_USAGE
        }
    }
}
