//! [`HepStreamOptions`] and [`HepLimits`]: how a stream reads and what it keeps, with the
//! core's defaults from [`hep_stream_options_default`].

use crate::boundary::guard_void;
use hep_core::StreamOptions;
use hep_core::run::Limits;

/// What the run reducer keeps (hep-core's `run::Limits`; see its docs for each cap).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HepLimits {
    /// Most recent turns kept.
    pub max_turns: u64,
    /// Bytes of assembled assistant text kept per turn.
    pub max_text_bytes: u64,
    /// Bytes of partial output kept per tool call.
    pub max_tool_output_bytes: u64,
    /// Tool calls kept per turn.
    pub max_tools_per_turn: u64,
    /// Stuck-call follow-ups kept per tool call.
    pub max_followups: u64,
    /// Compactions kept per turn.
    pub max_compactions_per_turn: u64,
    /// Tool-call ids the validator remembers per round.
    pub max_tracked_calls: u64,
    /// Violations and skipped lines kept (each list).
    pub max_reports: u64,
    /// Text bytes kept over all turns.
    pub max_retained_bytes: u64,
}

/// How a stream reads.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HepStreamOptions {
    /// Stop at the first error-severity violation or skipped line (default false).
    pub strict: bool,
    /// Longest accepted line in bytes, without its line ending (default 16 MiB).
    pub max_line_bytes: u64,
    /// What the run keeps.
    pub limits: HepLimits,
}

/// A size as a C `uint64_t` (saturating).
pub(crate) fn wide(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// A C `uint64_t` size as `usize` (saturating).
pub(crate) fn narrow(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

impl From<StreamOptions> for HepStreamOptions {
    fn from(o: StreamOptions) -> Self {
        let l = o.limits;
        Self {
            strict: o.strict,
            max_line_bytes: wide(o.max_line_length),
            limits: HepLimits {
                max_turns: wide(l.max_turns),
                max_text_bytes: wide(l.max_text_bytes),
                max_tool_output_bytes: wide(l.max_tool_output_bytes),
                max_tools_per_turn: wide(l.max_tools_per_turn),
                max_followups: wide(l.max_followups),
                max_compactions_per_turn: wide(l.max_compactions_per_turn),
                max_tracked_calls: wide(l.max_tracked_calls),
                max_reports: wide(l.max_reports),
                max_retained_bytes: wide(l.max_retained_bytes),
            },
        }
    }
}

impl From<HepStreamOptions> for StreamOptions {
    fn from(o: HepStreamOptions) -> Self {
        let l = o.limits;
        Self {
            strict: o.strict,
            max_line_length: narrow(o.max_line_bytes),
            limits: Limits {
                max_turns: narrow(l.max_turns),
                max_text_bytes: narrow(l.max_text_bytes),
                max_tool_output_bytes: narrow(l.max_tool_output_bytes),
                max_tools_per_turn: narrow(l.max_tools_per_turn),
                max_followups: narrow(l.max_followups),
                max_compactions_per_turn: narrow(l.max_compactions_per_turn),
                max_tracked_calls: narrow(l.max_tracked_calls),
                max_reports: narrow(l.max_reports),
                max_retained_bytes: narrow(l.max_retained_bytes),
            },
        }
    }
}

/// The core's default options: lenient, 16 MiB lines, the core's limits. Change fields of
/// the copy before `hep_stream_new`.
#[unsafe(no_mangle)]
pub extern "C" fn hep_stream_options_default() -> HepStreamOptions {
    let mut options = None;
    guard_void(|| options = Some(HepStreamOptions::from(StreamOptions::default())));
    options.unwrap_or(HepStreamOptions::from(StreamOptions::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_cores_both_ways() {
        let options = hep_stream_options_default();
        assert_eq!(StreamOptions::from(options), StreamOptions::default());
        assert_eq!(options.max_line_bytes, 16 << 20);
        assert!(!options.strict);
    }
}
