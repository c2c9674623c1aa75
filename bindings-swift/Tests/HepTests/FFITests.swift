// FFI safety: whatever a call is given, it returns or throws a `HepError`, and never ends
// the process. Every export runs in uniffi's own panic catcher, and the throwing ones in the
// binding's guard (src/guard.rs, whose Rust unit test proves a panic becomes
// `CoreError.Internal`); the Swift layer rethrows that as `HepError.internal`.

import Foundation
@testable import Hep
import Testing

@Suite struct FFISafety {
    static let hostileBytes: [Data] = [
        Data(), Data([0xFF, 0xC0, 0x80, 0x0A]), Data([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]), Data([0x00]),
        Data("{\"type\":\"turn_done\",\"turn_id\":-1}\n".utf8), Data(repeating: 0x5B, count: 100_000),
        Data("{\"hep\":\"v2\",\"type\":\"hep_header\",\"fah_version\":\"x\",\"session\":\"s\"}\n".utf8),
        Data("\"\\ud800\"\r\n\r".utf8), Data(repeating: 0x0A, count: 5000),
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

    @Test func streamsTakeAnyBytesInAnySplit() {
        for strict in [false, true] {
            for limit: UInt64? in [nil, 0, 1, 64] {
                let stream = HepStream(strict: strict, maxLineBytes: limit)
                for data in Self.hostileBytes {
                    expectHepError { _ = try stream.feed(data) }
                    expectHepError { _ = try stream.feedReceived(data.prefix(3)) }
                }
                expectHepError { _ = try stream.endInput() }
                _ = stream.finish(exitCode: Int32.min)
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
        let writer = Writer(toolArgs: .full) { _ in }
        for text in Self.hostileText {
            expectHepError { _ = try writer.header(fah: text, session: text) }
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
