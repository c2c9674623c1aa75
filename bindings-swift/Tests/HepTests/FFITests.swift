// FFI safety: whatever a call is given, it returns or throws a `HepError`, and never ends
// the process. Every export runs in uniffi's own panic catcher, and the throwing ones in the
// binding's guard (src/boundary.rs, whose Rust unit test proves a panic becomes
// `CoreError.Internal`); the Swift layer rethrows that as `HepError.internal`.

import Foundation
@testable import Hep
import Testing

@Suite struct FFISafety {
    static let hostileBytes: [Data] = [
        Data(), Data([0xFF, 0xC0, 0x80, 0x0A]), Data([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]), Data([0x00]),
        Data("{\"type\":\"turn_done\",\"turn_id\":-1}\n".utf8), Data(repeating: 0x5B, count: 100_000),
        Data("\"\\ud800\"\r\n\r".utf8), Data(repeating: 0x0A, count: 5000),
        // Last: a refused protocol version halts the stream it reaches.
        Data("{\"hep\":\"v2\",\"type\":\"hep_header\",\"fah\":\"x\",\"session\":\"s\"}\n".utf8),
    ]
    static let hostileText = ["", "\u{0}\u{1B}[31m\u{2028}", String(repeating: "é", count: 5000), "{}", "[1,2]", "{\"a\":1e999}", "null"]

    /// What a call threw must be a `HepError`.
    func expectHepError(_ call: () throws -> Void) {
        do {
            try call()
        } catch is HepError {
        } catch {
            Issue.record("threw \(type(of: error)): \(error)")
        }
    }

    /// The header that makes a stream live: what comes after it is read as the frames of a
    /// run (checked against the header, rounds and tool calls), not as lines before one.
    static let header = HepHeader(hep: "v1", fah: "1.2.3", session: "s")
    static let headerLine = #"{"hep":"v1","type":"hep_header","fah":"1.2.3","session":"s"}"# + "\n"

    /// A stream fed `headerLine`: live (its header read, nothing skipped) when its longest
    /// line allows the header, else with the header skipped as too long.
    func liveStream(strict: Bool, maxLineBytes limit: UInt64?) throws -> HepStream {
        let stream = HepStream(strict: strict, maxLineBytes: limit)
        let fits = limit.map { $0 >= Self.headerLine.utf8.count - 1 } ?? true  // the line without its `\n`
        do {
            let frames = try stream.feed(Self.headerLine)
            if fits {
                #expect(frames == [.hepHeader(Self.header)], "the header is read: the stream is live")
                #expect(stream.skipped.isEmpty && stream.violations.isEmpty, "\(stream.skipped) \(stream.violations)")
            } else {
                #expect(!strict && frames.isEmpty && stream.skipped.map(\.kind) == ["line_too_long"], "\(frames)")
            }
        } catch let error as HepError {
            // Strict mode halts at the skipped line.
            #expect(strict && !fits && error.kind == "line_too_long", "\(error)")
        }
        return stream
    }

    @Test func streamsTakeAnyBytesInAnySplit() throws {
        for strict in [false, true] {
            for limit: UInt64? in [nil, 0, 1, 64] {
                let stream = try liveStream(strict: strict, maxLineBytes: limit)
                let live = stream.halted == nil && stream.skipped.isEmpty
                for data in Self.hostileBytes {
                    expectHepError { _ = try stream.feed(data) }
                    expectHepError { _ = try stream.feedReceived(data.prefix(3)) }
                }
                expectHepError { _ = try stream.endInput() }
                let result = stream.finish(exitCode: Int32.min)
                #expect(result.header == (live ? Self.header : nil), "strict \(strict), limit \(String(describing: limit))")
            }
        }
    }

    @Test func linesAndHelpersTakeAnyInput() {
        for data in Self.hostileBytes {
            expectHepError { _ = try parseLine(data) }
        }
        for text in Self.hostileText {
            expectHepError { _ = try parseLine(text) }
            for mode in [ArgsMode.summary, .full] {
                expectHepError { _ = try renderArgs(text, mode: mode) }
            }
            for limit in [Int.min, -1, 0, 1, Int.max] {
                #expect(utf16Length(cap(text, limit: limit)) <= utf16Length(text) + 24)
            }
            #expect(!sanitize(text).contains("\u{1B}"))
        }
    }

    @Test func writersTakeAnyInput() throws {
        for text in Self.hostileText {
            let writer = Writer(fah: text, toolArgs: .full) { _ in }
            expectHepError { _ = try writer.header(session: text) }
            expectHepError { _ = try writer.messageDelta(text) }
            expectHepError { _ = try writer.toolStart(id: text, name: text, args: text) }
            expectHepError { _ = try writer.toolLiveness(id: text, name: text, action: .heartbeat, elapsedMs: .max, outputBytes: .max, detail: text) }
            expectHepError { _ = try writer.compactionEnd(tokensFreed: .max) }
            expectHepError { _ = try writer.turnError(text, fatal: false) }
        }
    }

    @Test func anInternalFailureIsThrownAsAHepError() {
        // What the guard throws, as every FFI call of the package rethrows it.
        do {
            try rethrowingHepError { () throws -> Void in throw CoreError.Internal(message: "hep internal error: boom") }
            Issue.record("nothing thrown")
        } catch let error as HepError {
            guard case .internal(let message) = error else {
                Issue.record("not HepError.internal: \(error)")
                return
            }
            #expect(message == "hep internal error: boom")
            #expect(error.kind == "internal")
            #expect((error.line, error.column, error.message, error.excerpt) == (0, 0, "hep internal error: boom", ""))
        } catch {
            Issue.record("threw \(type(of: error)): \(error)")
        }
    }
}
