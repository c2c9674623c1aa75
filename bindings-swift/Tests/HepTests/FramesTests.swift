// Frames: one line decoded and encoded back, each frame type as the core reads it (through a
// stream's batch as through `parseLine`), its wire type and round id, and the liveness
// actions.

import Hep
import Testing

@Suite struct Frames {
    @Test func decodesAFrameAndEncodesItBack() throws {
        let line = #"{"type":"message_delta","turn_id":1,"delta":"Hello"}"#
        let frame = try parseLine(line)
        #expect(frame == .messageDelta(MessageDelta(turnId: 1, delta: "Hello")))
        #expect(frame.type == "message_delta")
        #expect(frame.turnId == 1)
        #expect(try encode(frame) == line)
    }

    @Test func ignoresTheLineEnding() throws {
        let frame = try parseLine("{\"type\":\"agent_start\",\"turn_id\":1}\r\n")
        #expect(frame == .agentStart(AgentStart(turnId: 1)))
    }

    @Test func keepsUnknownFrameTypes() throws {
        let line = #"{"type":"from_the_future","turn_id":3,"x":[1]}"#
        guard case .unknown(let unknown) = try parseLine(line) else {
            Issue.record("not an unknown frame")
            return
        }
        #expect(unknown.frameType == "from_the_future")
        #expect(unknown.turnId == 3)
        #expect(try encode(.unknown(unknown)) == line)
    }

    @Test func throwsByKindWithThePosition() throws {
        do {
            _ = try parseLine(#"{"type":"agent_start","turn_id":"1"}"#)
            Issue.record("no error")
        } catch let error as HepError {
            guard case .wrongType = error else {
                Issue.record("wrong case: \(error)")
                return
            }
            #expect(error.kind == "wrong_type")
            #expect(error.column > 0)
        }
        #expect(throws: HepError.self) { try parseLine("{") }
    }

    @Test func refusesToEncodeANonFiniteCost() {
        let done = TurnDone(
            turnId: 1, message: "", toolResults: [],
            usage: Usage(input: 0, output: 0, cost: .infinity), stopReason: "stop")
        #expect(throws: HepError.self) { try encode(.turnDone(done)) }
    }

    /// One line of each frame type, and an unknown one, with its round id.
    static let everyType: [(line: String, type: String, turnId: UInt64?)] = [
        (#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s"}"#, "hep_header", nil),
        (#"{"type":"agent_start","turn_id":1}"#, "agent_start", 1),
        (#"{"type":"message_start","turn_id":1,"role":"assistant"}"#, "message_start", 1),
        (#"{"type":"message_delta","turn_id":1,"delta":"hé"}"#, "message_delta", 1),
        (#"{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"command=\"ls\""}"#, "tool_start", 1),
        (#"{"type":"tool_delta","turn_id":1,"id":"c1","update":"a\n"}"#, "tool_delta", 1),
        (#"{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"escalate","elapsed_ms":5,"output_bytes":7,"detail":"slow"}"#,
         "tool_liveness", 1),
        (#"{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"reroute","elapsed_ms":6}"#, "tool_liveness", 1),
        (#"{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"a"},{"id":"c2","name":"x","ok":false,"text":""}],"usage":{"input":3,"output":4,"cost":0.25},"stop_reason":"stop"}"#,
         "turn_done", 1),
        (#"{"type":"turn_error","turn_id":2,"error":"boom","fatal":false}"#, "turn_error", 2),
        (#"{"type":"cancelled","turn_id":3}"#, "cancelled", 3),
        (#"{"type":"compaction_start","turn_id":4}"#, "compaction_start", 4),
        (#"{"type":"compaction_end","turn_id":4,"tokens_freed":9}"#, "compaction_end", 4),
        (#"{"type":"from_the_future","turn_id":5}"#, "from_the_future", 5),
        (#"{"type":"from_the_future","x":1}"#, "from_the_future", nil),
    ]

    /// A stream hands its frames over in one batch, read field by field in Swift
    /// (FrameBatch+Frames.swift); `parseLine` lifts them through uniffi. Both are generated
    /// from the core's model, and must give the same frame for every frame type.
    @Test func everyFrameTypeReadsAlikeThroughAStreamAndParseLine() throws {
        let received = try HepStream().feedReceived(Self.everyType.map { $0.line + "\n" }.joined())
        #expect(received.count == Self.everyType.count)
        for (got, want) in zip(received, Self.everyType) {
            #expect(got.raw == want.line)
            #expect(try got.frame == parseLine(want.line), "\(want.line)")
            #expect(got.frame.type == want.type && got.frame.turnId == want.turnId, "\(got.frame)")
            #expect(try encode(got.frame) == want.line, "encoded back to the same bytes")
        }
        #expect(received.map(\.frame.isTerminal) == Self.everyType.map { ["turn_done", "turn_error", "cancelled"].contains($0.type) })
    }

    @Test func theProtocolVersionIsTheCores() {
        #expect(protocolVersion == "v1")
    }
}

@Suite struct LivenessActions {
    static func liveness(_ action: String) -> String {
        #"{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"\#(action)","elapsed_ms":5}"#
    }

    /// `ToolLiveness.action` is a `LivenessAction`: v1's five by case, any other kept by its
    /// wire name (as the core keeps it), whether read by line or from a stream.
    @Test func anActionIsAnEnumThatKeepsAnUnknownName() throws {
        guard case .toolLiveness(let known) = try parseLine(Self.liveness("cancel_retry")) else {
            Issue.record("not a tool_liveness")
            return
        }
        #expect(known.action == .cancelRetry)
        let line = Self.liveness("reroute")
        guard case .toolLiveness(let future) = try parseLine(line) else {
            Issue.record("not a tool_liveness")
            return
        }
        #expect(future.action == .unknown("reroute") && !future.action.isKnown && future.action.name == "reroute")
        #expect(try encode(.toolLiveness(future)) == line, "the unknown action is written back as it was read")
        let stream = HepStream()
        let frames = try stream.feed([header, agentStart, toolStart, line, Self.liveness("escalate")].map { $0 + "\n" }.joined())
        let actions = frames.compactMap { (frame: Frame) -> LivenessAction? in
            if case .toolLiveness(let l) = frame { l.action } else { nil }
        }
        #expect(actions == [.unknown("reroute"), .escalate])
        let result = stream.finish(exitCode: nil)
        #expect(result.turns.first?.tools.first?.followups.map(\.action) == [.unknown("reroute"), .escalate])
        #expect(stream.violations.map(\.code).contains("unknown_liveness_action"))
    }

    /// The Swift spelling of the names (read for every frame) is the core's.
    @Test func theNamesAreTheCores() {
        for name in ["heartbeat", "cancel_retry", "background_convert", "escalate", "advisory"] {
            let action = LivenessAction(wireName: name)
            #expect(action == LivenessAction(name: name) && action.isKnown && action.name == name)
        }
        #expect(LivenessAction(name: "reroute") == nil && LivenessAction(wireName: "reroute") == .unknown("reroute"))
        #expect(LivenessAction(name: "Heartbeat") == nil, "wire names are case-sensitive")
    }

    /// The writer writes v1's actions only.
    @Test func theWriterRefusesAnUnknownAction() throws {
        let writer = Writer(fah: "1") { _ in }
        try writer.toolStart(id: "c1", name: "bash", args: "{}")
        #expect(throws: HepError.self) {
            try writer.toolLiveness(id: "c1", name: "bash", action: .unknown("reroute"), elapsedMs: 5)
        }
        do {
            try writer.toolLiveness(id: "c1", name: "bash", action: .unknown("reroute"), elapsedMs: 5)
        } catch let error as HepError {
            #expect(error.kind == "unencodable" && error.message.contains("reroute"))
        }
        #expect(try writer.toolLiveness(id: "c1", name: "bash", action: .heartbeat, elapsedMs: 5) != nil)
    }
}
