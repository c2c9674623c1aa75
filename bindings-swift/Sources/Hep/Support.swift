// What the core gives besides frames: the protocol version, the exit codes, terminal
// sanitising, the bounds and the liveness actions. All of it is hep-core's (the liveness
// action names are spelt here too, for the speed of reading frames; a test checks them
// against the core's).

/// The protocol version this library speaks, as written in `hep_header.hep` (`"v1"`).
public let protocolVersion: String = coreProtocolVersion()

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

/// The core's supervision policy, read once.
let policy = supervisionPolicy()

/// `text` with every character that could drive a terminal (C0 and C1 controls other than
/// `\n` and `\t`, DEL, bidirectional overrides and isolates) turned into a visible escape
/// (`ESC` becomes `\x1b`). Pass stream text through it before printing it.
public func sanitize(_ text: String) -> String {
    sanitizeForTerminal(text: text)
}

/// `text` capped at `limit` UTF-16 units, with the `…(+N chars)` suffix when cut (the
/// writer caps tool result texts at 2000 this way).
public func cap(_ text: String, limit: Int) -> String {
    capText(text: text, limit: UInt64(clamping: limit))
}

/// The length of `text` in UTF-16 code units: the protocol's "characters".
public func utf16Length(_ text: String) -> Int {
    Int(clamping: countUtf16Units(text: text))
}

/// The `args_summary` a `tool_start` gets for `json`, the JSON text of the argument object,
/// in `mode` (`key=value` pairs cut at 100 units, or the JSON cut at 4000).
///
/// - Throws: `HepError` when `json` is not the JSON text of an object.
public func renderArgs(_ json: String, mode: ArgsMode) throws -> String {
    try rethrowingHepError { try renderToolArgs(args: json, mode: mode) }
}

extension LivenessAction {
    /// The action named `name` on the wire (`"heartbeat"`, `"cancel_retry"`, ...), or `nil`
    /// when HEP v1 defines no such action.
    public init?(name: String) {
        guard let action = livenessActionNamed(name: name) else { return nil }
        self = action
    }

    /// The action a frame's `action` field names: one of v1's, or `.unknown` with the name
    /// (what `ToolLiveness.action` holds for an action from a newer emitter).
    public init(wireName: String) {
        switch wireName {
        case "heartbeat": self = .heartbeat
        case "cancel_retry": self = .cancelRetry
        case "background_convert": self = .backgroundConvert
        case "escalate": self = .escalate
        case "advisory": self = .advisory
        default: self = .unknown(wireName)
        }
    }

    /// The wire name of the action (`"cancel_retry"`; an unknown action's own name).
    public var name: String {
        switch self {
        case .heartbeat: "heartbeat"
        case .cancelRetry: "cancel_retry"
        case .backgroundConvert: "background_convert"
        case .escalate: "escalate"
        case .advisory: "advisory"
        case .unknown(let name): name
        }
    }

    /// Whether HEP v1 defines the action (not `.unknown`).
    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }
}
