//! The protocol's bounds (`hep_core::bounds`): text capped and counted in UTF-16 units, tool
//! arguments rendered to `args_summary` (Swift's `cap`, `utf16Length`, `renderArgs`, and the
//! writer's `ArgsMode`).

use crate::boundary::guard;
use crate::errors::CoreError;
use hep_core::ArgsMode;

/// How `tool_start` arguments become `args_summary`.
#[uniffi::remote(Enum)]
pub enum ArgsMode {
    Summary,
    Full,
}

/// `text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix.
#[uniffi::export]
pub fn cap_text(text: String, limit: u64) -> String {
    hep_core::bounds::cap(&text, usize::try_from(limit).unwrap_or(usize::MAX))
}

/// The length of `text` in UTF-16 code units (the protocol's "characters").
#[uniffi::export]
pub fn count_utf16_units(text: String) -> u64 {
    hep_core::bounds::utf16_len(&text) as u64
}

/// The `args_summary` the writer gives `args` (the JSON text of an object) in `mode`.
#[uniffi::export]
pub fn render_tool_args(args: String, mode: ArgsMode) -> Result<String, CoreError> {
    guard(|| Ok(hep_core::bounds::render_args(&hep_core::parse_args(&args)?, mode)))
}
