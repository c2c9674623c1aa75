// What a Swift user would otherwise write: the twelve HEP v1 frame types as a Codable enum,
// tagged by `type`, decoded by Foundation's JSONDecoder. Types only: no protocol check.

import Foundation
import Hep

/// One frame, decoded by JSONDecoder.
enum CodableFrame: Decodable {
    case hepHeader(Header)
    case agentStart(Ref)
    case messageStart(MessageStart)
    case messageDelta(MessageDelta)
    case toolStart(ToolStart)
    case toolDelta(ToolDelta)
    case toolLiveness(ToolLiveness)
    case turnDone(TurnDone)
    case turnError(TurnError)
    case cancelled(Ref)
    case compactionStart(Ref)
    case compactionEnd(CompactionEnd)

    struct Header: Decodable { let hep, fah, session: String }
    struct Ref: Decodable {
        let turnId: UInt64
        enum CodingKeys: String, CodingKey { case turnId = "turn_id" }
    }
    struct MessageStart: Decodable {
        let turnId: UInt64
        let role: String
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", role }
    }
    struct MessageDelta: Decodable {
        let turnId: UInt64
        let delta: String
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", delta }
    }
    struct ToolStart: Decodable {
        let turnId: UInt64
        let id, name, argsSummary: String
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", id, name, argsSummary = "args_summary" }
    }
    struct ToolDelta: Decodable {
        let turnId: UInt64
        let id, update: String
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", id, update }
    }
    struct ToolLiveness: Decodable {
        let turnId: UInt64
        let id, name, action: String
        let elapsedMs: UInt64
        let outputBytes: UInt64?
        let detail: String?
        enum CodingKeys: String, CodingKey {
            case turnId = "turn_id", id, name, action, elapsedMs = "elapsed_ms", outputBytes = "output_bytes", detail
        }
    }
    struct ToolResult: Decodable {
        let id, name: String
        let ok: Bool
        let text: String
    }
    struct Usage: Decodable {
        let input, output: UInt64
        let cost: Double
    }
    struct TurnDone: Decodable {
        let turnId: UInt64
        let message: String
        let toolResults: [ToolResult]
        let usage: Usage
        let stopReason: String
        enum CodingKeys: String, CodingKey {
            case turnId = "turn_id", message, toolResults = "tool_results", usage, stopReason = "stop_reason"
        }
    }
    struct TurnError: Decodable {
        let turnId: UInt64
        let error: String
        let fatal: Bool
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", error, fatal }
    }
    struct CompactionEnd: Decodable {
        let turnId: UInt64
        let tokensFreed: UInt64
        enum CodingKeys: String, CodingKey { case turnId = "turn_id", tokensFreed = "tokens_freed" }
    }

    private enum TypeKey: String, CodingKey { case type }

    init(from decoder: any Decoder) throws {
        let tagged = try decoder.container(keyedBy: TypeKey.self)
        let type = try tagged.decode(String.self, forKey: .type)
        switch type {
        case "message_delta": self = .messageDelta(try MessageDelta(from: decoder))
        case "tool_delta": self = .toolDelta(try ToolDelta(from: decoder))
        case "tool_start": self = .toolStart(try ToolStart(from: decoder))
        case "tool_liveness": self = .toolLiveness(try ToolLiveness(from: decoder))
        case "turn_done": self = .turnDone(try TurnDone(from: decoder))
        case "message_start": self = .messageStart(try MessageStart(from: decoder))
        case "hep_header": self = .hepHeader(try Header(from: decoder))
        case "agent_start": self = .agentStart(try Ref(from: decoder))
        case "turn_error": self = .turnError(try TurnError(from: decoder))
        case "cancelled": self = .cancelled(try Ref(from: decoder))
        case "compaction_start": self = .compactionStart(try Ref(from: decoder))
        case "compaction_end": self = .compactionEnd(try CompactionEnd(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: tagged, debugDescription: "unknown frame type \(type)")
        }
    }

    /// Whether this frame holds the same protocol values as hep's `frame`.
    func same(as frame: Frame) -> Bool {
        switch (self, frame) {
        case (.hepHeader(let a), .hepHeader(let b)): a.hep == b.hep && a.fah == b.fah && a.session == b.session
        case (.agentStart(let a), .agentStart(let b)): a.turnId == b.turnId
        case (.messageStart(let a), .messageStart(let b)): a.turnId == b.turnId && a.role == b.role
        case (.messageDelta(let a), .messageDelta(let b)): a.turnId == b.turnId && a.delta == b.delta
        case (.toolStart(let a), .toolStart(let b)):
            a.turnId == b.turnId && a.id == b.id && a.name == b.name && a.argsSummary == b.argsSummary
        case (.toolDelta(let a), .toolDelta(let b)): a.turnId == b.turnId && a.id == b.id && a.update == b.update
        case (.toolLiveness(let a), .toolLiveness(let b)):
            a.turnId == b.turnId && a.id == b.id && a.name == b.name && a.action == b.action.name
                && a.elapsedMs == b.elapsedMs && a.outputBytes == b.outputBytes && a.detail == b.detail
        case (.turnDone(let a), .turnDone(let b)):
            a.turnId == b.turnId && a.message == b.message && a.stopReason == b.stopReason
                && a.usage.input == b.usage.input && a.usage.output == b.usage.output && a.usage.cost == b.usage.cost
                && a.toolResults.map { [$0.id, $0.name, "\($0.ok)", $0.text] }
                    == b.toolResults.map { [$0.id, $0.name, "\($0.ok)", $0.text] }
        case (.turnError(let a), .turnError(let b)): a.turnId == b.turnId && a.error == b.error && a.fatal == b.fatal
        case (.cancelled(let a), .cancelled(let b)), (.compactionStart(let a), .compactionStart(let b)):
            a.turnId == b.turnId
        case (.compactionEnd(let a), .compactionEnd(let b)): a.turnId == b.turnId && a.tokensFreed == b.tokensFreed
        default: false
        }
    }
}
