//! `CoreLimits`: the core's retention caps ([`Limits`]) across the FFI (Swift's `Limits`
//! converts to it), and the core's defaults.

use hep_core::run::Limits;

/// What a stream keeps at most (`hep_core::run::Limits`); what a cap leaves out is counted
/// in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct CoreLimits {
    /// Most recent turns kept (`RunResult.turnsDropped` counts the others).
    pub max_turns: u64,
    /// Bytes of assistant text kept per turn (`Turn.textDropped`).
    pub max_text_bytes: u64,
    /// Bytes of `tool_delta` output kept per call (`ToolCall.outputDropped`).
    pub max_tool_output_bytes: u64,
    /// Tool calls kept per turn (`Turn.toolsDropped`).
    pub max_tools_per_turn: u64,
    /// Stuck-call follow-ups kept per call (`ToolCall.followupsDropped`).
    pub max_followups: u64,
    /// Violations, and skipped lines, kept (`violationCount`, `skippedCount`).
    pub max_reports: u64,
    /// Text bytes kept over all turns: older turns are dropped, the current one cut.
    pub max_retained_bytes: u64,
    /// Tool-call ids remembered per round (`RunResult.untrackedCalls`).
    pub max_tracked_calls: u64,
    /// Compactions kept per turn (`Turn.compactionsDropped`).
    pub max_compactions_per_turn: u64,
}

/// The core's default limits (Swift: `Limits()`).
#[uniffi::export]
pub fn default_limits() -> CoreLimits {
    let d = Limits::default();
    let n = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
    CoreLimits {
        max_turns: n(d.max_turns),
        max_text_bytes: n(d.max_text_bytes),
        max_tool_output_bytes: n(d.max_tool_output_bytes),
        max_tools_per_turn: n(d.max_tools_per_turn),
        max_followups: n(d.max_followups),
        max_reports: n(d.max_reports),
        max_retained_bytes: n(d.max_retained_bytes),
        max_tracked_calls: n(d.max_tracked_calls),
        max_compactions_per_turn: n(d.max_compactions_per_turn),
    }
}

impl From<CoreLimits> for Limits {
    /// Each count as a `usize` (saturating on 32-bit targets).
    fn from(l: CoreLimits) -> Self {
        let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        Limits {
            max_turns: n(l.max_turns),
            max_text_bytes: n(l.max_text_bytes),
            max_tool_output_bytes: n(l.max_tool_output_bytes),
            max_tools_per_turn: n(l.max_tools_per_turn),
            max_followups: n(l.max_followups),
            max_reports: n(l.max_reports),
            max_retained_bytes: n(l.max_retained_bytes),
            max_tracked_calls: n(l.max_tracked_calls),
            max_compactions_per_turn: n(l.max_compactions_per_turn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_cores_both_ways() {
        assert_eq!(Limits::from(default_limits()), Limits::default());
    }
}
