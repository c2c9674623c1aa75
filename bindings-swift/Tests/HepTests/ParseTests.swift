import Hep
import Testing

@Suite struct ParseLine {
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
}
