import Foundation

/// A live HEP v1 stream reader (sans-IO): bytes in, frames out.
///
/// Feed bytes as they arrive; each call returns the frames they complete. Violations and
/// skipped lines are collected (`violations`, `skipped`); in strict mode the first error
/// stops the stream and is thrown. `finish(exitCode:)` gives the run's `RunResult`.
///
/// Frames are plain values: two frames are equal when their protocol fields are. A frame's
/// original line comes with it when it is read through `feedReceived(_:)`, which gives each
/// frame as a `Received`: its 1-based `line` number, its `raw` line exactly as read (without
/// the line ending) and the `frame`.
///
/// All of it is the Rust core's; the object is safe to share between tasks.
public final class HepStream: Sendable {
    private let core: CoreStream

    /// - Parameters:
    ///   - strict: stop at the first error-severity violation or skipped line, and throw it.
    ///   - maxLineBytes: the longest accepted line (default 16 MiB); longer ones are skipped.
    ///   - limits: what the stream keeps at most (default: the core's caps); what a cap
    ///     leaves out is counted in the `RunResult`.
    public init(strict: Bool = false, maxLineBytes: UInt64? = nil, limits: Limits = Limits()) {
        core = CoreStream(strict: strict, maxLineBytes: maxLineBytes, limits: limits.coreLimits)
    }

    /// Feeds bytes; returns the frames they complete, in order.
    ///
    /// - Throws: the `HepError` that halted the stream (strict mode, or a refused protocol
    ///   version); the frames the chunk completed before it are in `framesBeforeHalt`.
    public func feed(_ data: Data) throws -> [Frame] {
        try rethrowingHepError { try core.feed(data: data) }.frames()
    }

    /// Feeds text (as UTF-8); see `feed(_:)`.
    public func feed(_ text: String) throws -> [Frame] {
        try feed(Data(text.utf8))
    }

    /// As `feed(_:)`, with each frame's line number and its line exactly as read.
    ///
    /// - Throws: as `feed(_:)`; the frames before the halt are in `receivedBeforeHalt`.
    public func feedReceived(_ data: Data) throws -> [Received] {
        try rethrowingHepError { try core.feed(data: data) }.received()
    }

    /// Feeds text (as UTF-8); see `feedReceived(_:)`.
    public func feedReceived(_ text: String) throws -> [Received] {
        try feedReceived(Data(text.utf8))
    }

    /// Marks the end of input. A partial last line is skipped as `truncated` (thrown in
    /// strict mode). `finish(exitCode:)` does this itself.
    @discardableResult
    public func endInput() throws -> [Frame] {
        try rethrowingHepError { try core.endInput() }.frames()
    }

    /// Ends the stream and returns the result for the harness's exit code (`nil` when
    /// unknown, e.g. for a saved file). Later calls return the same result.
    public func finish(exitCode: Int32?) -> RunResult {
        core.finish(exitCode: exitCode)
    }

    /// The violations found so far.
    public var violations: [Violation] { core.violations() }

    /// The lines skipped so far (malformed, too long, truncated), as errors.
    public var skipped: [HepError] { core.skipped() }

    /// The error that halted the stream, if it has halted.
    public var halted: HepError? { core.halted() }

    /// The frames completed, before the halt, by the chunk whose feeding threw.
    public var framesBeforeHalt: [Frame] { core.receivedBeforeHalt().frames() }

    /// `framesBeforeHalt` with each frame's line number and line as read.
    public var receivedBeforeHalt: [Received] { core.receivedBeforeHalt().received() }
}

extension Verdict {
    /// The stable snake_case name (`"ok"`, ..., `"protocol_error"`), as `hep` prints it.
    public var name: String {
        switch self {
        case .ok: "ok"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .incomplete: "incomplete"
        case .protocolError: "protocol_error"
        }
    }
}
