import Foundation
import Hep
import Testing

/// One round holding `body`, ended by `turn_done`.
private func oneRound(_ body: [String]) -> Data {
    let lines = [
        #"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#,
        #"{"type":"agent_start","turn_id":1}"#,
    ] + body + [
        #"{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],"usage":{"input":1,"output":1,"cost":0.0},"stop_reason":"stop"}"#,
    ]
    return Data(lines.map { $0 + "\n" }.joined().utf8)
}

/// `n` rounds, each with its text `r<id>` and a `turn_done`.
private func rounds(_ n: Int) -> Data {
    var lines = [#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#, #"{"type":"agent_start","turn_id":1}"#]
    for i in 1...n {
        lines.append(#"{"type":"message_delta","turn_id":\#(i),"delta":"r\#(i)"}"#)
        lines.append(
            #"{"type":"turn_done","turn_id":\#(i),"message":"ok","tool_results":[],"usage":{"input":1,"output":1,"cost":0.0},"stop_reason":"stop"}"#
        )
    }
    return Data(lines.map { $0 + "\n" }.joined().utf8)
}

/// Ten calls started, then a delta for a call never started.
private let tenCalls = (0..<10).map {
    #"{"type":"tool_start","turn_id":1,"id":"c\#($0)","name":"sh","args_summary":""}"#
} + [#"{"type":"tool_delta","turn_id":1,"id":"stray","update":"x"}"#]

@Suite struct Bounds {
    @Test func untrackedCallsAreCountedAndTheVerdictHolds() throws {
        let capped = HepStream(limits: Limits(maxTrackedCalls: 4))
        _ = try capped.feed(oneRound(tenCalls))
        let cappedResult = capped.finish(exitCode: 0)
        #expect(cappedResult.untrackedCalls == 6)
        #expect(cappedResult.violationCount == 0)

        let roomy = HepStream()
        _ = try roomy.feed(oneRound(tenCalls))
        let roomyResult = roomy.finish(exitCode: 0)
        #expect(roomyResult.untrackedCalls == 0)
        #expect(roomyResult.violations.map(\.code) == ["unknown_tool_call"])
        #expect(cappedResult.verdict == .ok && roomyResult.verdict == .ok)
    }

    @Test func compactionsAndFollowUpsPastTheirCapsAreCounted() throws {
        let compaction = [
            #"{"type":"compaction_start","turn_id":1}"#,
            #"{"type":"compaction_end","turn_id":1,"tokens_freed":5}"#,
        ]
        let liveness = #"{"type":"tool_liveness","turn_id":1,"id":"c0","name":"sh","action":"advisory","elapsed_ms":1}"#
        let body = Array(repeating: compaction, count: 7).flatMap { $0 } + [tenCalls[0]]
            + Array(repeating: liveness, count: 40)
        let stream = HepStream(limits: Limits(maxCompactionsPerTurn: 3))
        _ = try stream.feed(oneRound(body))
        let result = stream.finish(exitCode: 0)
        let turn = try #require(result.turns.first)
        #expect(turn.compactions == [5, 5, 5])
        #expect(turn.compactionsDropped == 4)
        #expect(turn.bytesDropped == 0)
        #expect(result.compactions == 7 && result.tokensFreed == 35)
        let call = try #require(turn.tools.first)
        #expect(call.followups.count == 32)
        #expect(call.followupsDropped == 8)
    }

    @Test func limitsDefaultToTheCoresAndCompareByValue() {
        #expect(Limits() == Limits(maxTurns: Limits().maxTurns))
        #expect(Limits(maxTurns: 2) != Limits())
        var limits = Limits()
        limits.maxReports = 0
        #expect(limits == Limits(maxReports: 0))
        #expect(Limits(maxTrackedCalls: 7).maxTextBytes == Limits().maxTextBytes)
    }

    @Test func maxTurnsKeepsTheLastTurnsThroughHepStream() throws {
        let stream = HepStream(limits: Limits(maxTurns: 2))
        _ = try stream.feed(rounds(5))
        let result = stream.finish(exitCode: 0)
        #expect(result.turns.map(\.turnId) == [4, 5])
        #expect(result.turns.map(\.text) == ["r4", "r5"])
        #expect(result.turnsDropped == 3)
        #expect(result.usage.input == 5 && result.verdict == .ok)
        let roomy = HepStream()
        _ = try roomy.feed(rounds(5))
        #expect(roomy.finish(exitCode: 0).turnsDropped == 0)
    }

    @Test func maxTurnsKeepsTheLastTurnsThroughHepProcess() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hep-limits-\(UUID().uuidString).hep")
        try rounds(5).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/cat"), arguments: [file.path], limits: Limits(maxTurns: 1))
        let result = await process.result
        #expect(result.turns.map(\.turnId) == [5])
        #expect(result.turnsDropped == 4 && result.verdict == .ok)
    }

    @Test func theConformanceRunnerRefusesAnUnknownOrBadLimit() throws {
        #expect(try streamLimits(.object(["max_turns": .int(2)])) == Limits(maxTurns: 2))
        #expect(throws: CaseError.self) { try streamLimits(.object(["max_turn": .int(2)])) }
        #expect(throws: CaseError.self) { try streamLimits(.object(["max_turns": .int(-1)])) }
    }
}
