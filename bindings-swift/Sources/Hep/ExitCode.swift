// The exit codes of HEP v1 harnesses and the core's supervision policy they come with.

/// The exit codes of HEP v1 harnesses (`hep_core::supervise`).
public enum ExitCode {
    /// The run's last terminal frame is `turn_done` (0).
    public static let ok: Int32 = policy.exitOk
    /// The run's last terminal frame is `turn_error` (1).
    public static let failed: Int32 = policy.exitFailed
    /// The run was cancelled (130: 128 + SIGINT).
    public static let cancelled: Int32 = policy.exitCancelled

    /// The shell convention for a process killed by `signal`: 128 + the signal number.
    public static func forSignal(_ signal: Int32) -> Int32 {
        exitCodeOfSignal(signal: signal)
    }
}

/// The core's supervision policy (graces, the stderr tail, the drop threshold, the exit
/// codes), read once.
let policy = supervisionPolicy()
