/// What a `HepStream` or `HepProcess` keeps at most while reading: memory stays bounded
/// whatever the child writes. Each field defaults to the core's cap (`Limits()` is the
/// core's limits); what a cap leaves out is counted in the `RunResult`.
public struct Limits: Sendable, Hashable {
    /// The core's limits, each field's default.
    @usableFromInline static let coreDefaults = defaultLimits()

    /// Most recent turns kept; older ones are counted in `RunResult.turnsDropped`.
    public var maxTurns: UInt64
    /// Bytes of assistant text kept per turn; the rest is counted in `Turn.textDropped`.
    public var maxTextBytes: UInt64
    /// Bytes of `tool_delta` output kept per call; the rest is counted in `ToolCall.outputDropped`.
    public var maxToolOutputBytes: UInt64
    /// Tool calls kept per turn; later starts are counted in `Turn.toolsDropped`.
    public var maxToolsPerTurn: UInt64
    /// Stuck-call follow-ups kept per call; later ones are counted in `ToolCall.followupsDropped`.
    public var maxFollowups: UInt64
    /// Violations, and skipped lines, kept; all are counted in `RunResult.violationCount` and
    /// `RunResult.skippedCount`.
    public var maxReports: UInt64
    /// Text bytes kept over all turns: past it the oldest turns are dropped
    /// (`RunResult.turnsDropped`) and the current turn's text is cut (`Turn.bytesDropped` and
    /// the other counts).
    public var maxRetainedBytes: UInt64
    /// Tool-call ids remembered per round for the `unknown_tool_call` check; later starts are
    /// counted in `RunResult.untrackedCalls`.
    public var maxTrackedCalls: UInt64
    /// Compactions kept per turn; later ones are counted in `Turn.compactionsDropped`.
    public var maxCompactionsPerTurn: UInt64

    /// Limits with the given caps, the core's for the others.
    public init(
        maxTurns: UInt64 = coreDefaults.maxTurns, maxTextBytes: UInt64 = coreDefaults.maxTextBytes,
        maxToolOutputBytes: UInt64 = coreDefaults.maxToolOutputBytes, maxToolsPerTurn: UInt64 = coreDefaults.maxToolsPerTurn,
        maxFollowups: UInt64 = coreDefaults.maxFollowups, maxReports: UInt64 = coreDefaults.maxReports,
        maxRetainedBytes: UInt64 = coreDefaults.maxRetainedBytes, maxTrackedCalls: UInt64 = coreDefaults.maxTrackedCalls,
        maxCompactionsPerTurn: UInt64 = coreDefaults.maxCompactionsPerTurn
    ) {
        self.maxTurns = maxTurns
        self.maxTextBytes = maxTextBytes
        self.maxToolOutputBytes = maxToolOutputBytes
        self.maxToolsPerTurn = maxToolsPerTurn
        self.maxFollowups = maxFollowups
        self.maxReports = maxReports
        self.maxRetainedBytes = maxRetainedBytes
        self.maxTrackedCalls = maxTrackedCalls
        self.maxCompactionsPerTurn = maxCompactionsPerTurn
    }

    /// The limits as the core stream takes them.
    var coreLimits: CoreLimits {
        CoreLimits(
            maxTurns: maxTurns, maxTextBytes: maxTextBytes, maxToolOutputBytes: maxToolOutputBytes,
            maxToolsPerTurn: maxToolsPerTurn, maxFollowups: maxFollowups, maxReports: maxReports,
            maxRetainedBytes: maxRetainedBytes, maxTrackedCalls: maxTrackedCalls,
            maxCompactionsPerTurn: maxCompactionsPerTurn)
    }
}
