// Frames: what the Rust core decodes, with the wire names Swift code switches on.

import Foundation

extension Frame {
    /// The wire `type` of the frame (`"message_delta"`, ...; an unknown frame's own type).
    public var type: String {
        switch self {
        case .hepHeader: "hep_header"
        case .agentStart: "agent_start"
        case .messageStart: "message_start"
        case .messageDelta: "message_delta"
        case .toolStart: "tool_start"
        case .toolDelta: "tool_delta"
        case .toolLiveness: "tool_liveness"
        case .turnDone: "turn_done"
        case .turnError: "turn_error"
        case .cancelled: "cancelled"
        case .compactionStart: "compaction_start"
        case .compactionEnd: "compaction_end"
        case .unknown(let frame): frame.frameType
        }
    }

    /// The round id (`nil` for the header, and for an unknown frame without one).
    public var turnId: UInt64? {
        switch self {
        case .hepHeader: nil
        case .agentStart(let f): f.turnId
        case .messageStart(let f): f.turnId
        case .messageDelta(let f): f.turnId
        case .toolStart(let f): f.turnId
        case .toolDelta(let f): f.turnId
        case .toolLiveness(let f): f.turnId
        case .turnDone(let f): f.turnId
        case .turnError(let f): f.turnId
        case .cancelled(let f), .compactionStart(let f): f.turnId
        case .compactionEnd(let f): f.turnId
        case .unknown(let f): f.turnId
        }
    }

    /// Whether the frame ends a round (`turn_done`, `turn_error` or `cancelled`).
    public var isTerminal: Bool {
        switch self {
        case .turnDone, .turnError, .cancelled: true
        default: false
        }
    }
}

/// Decodes one line of HEP (a trailing `\n` or `\r\n` is ignored).
///
/// - Throws: `HepError`, by kind (`.syntax`, `.wrongType`, ...) with line and column.
public func parseLine(_ line: String) throws -> Frame {
    try parseLine(Data(line.utf8))
}

/// Decodes one line of HEP given as bytes (a trailing `\n` or `\r\n` is ignored).
///
/// - Throws: `HepError`, by kind; `.invalidUtf8` for bytes that are not UTF-8.
public func parseLine(_ line: Data) throws -> Frame {
    try rethrowingHepError { try decodeLine(line: line) }
}

/// The exact line the reference emitter writes for `frame`, without the newline.
///
/// - Throws: `HepError.unencodable` for a non-finite cost or an integer above 2^53 - 1.
public func encode(_ frame: Frame) throws -> String {
    try rethrowingHepError { try encodeFrame(frame: frame) }
}
