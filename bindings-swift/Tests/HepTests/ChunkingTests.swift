// Chunking invariance through the Swift API: the same bytes fed to `HepStream` in any split
// (one byte at a time, fixed sizes, seeded random cuts, cuts inside every multi-byte UTF-8
// character and inside every escape, between every \r and \n) give exactly the same frames
// (line numbers, lines, canonical forms), violations, skipped lines, halt, verdict and run as
// the bytes fed whole.
//
// The inputs, as in the Rust, Python and Node suites: every `stream/` case and `hostile/`
// stream case of ../../../conformance/ (with its options and exit code), every `decode/`,
// `reject/` and `hostile/` line (as a one-line stream and as a truncated last line), and
// `hep simulate` output for every scenario that ends by itself (two seeds, both argument
// renderings, with \r\n line ends and with hostile lines inserted).

import Foundation
import Hep
import Testing

/// One stream to feed: its bytes and how to read and end it.
struct ChunkingInput: Sendable {
    let name: String
    let data: Data
    let options: ReadOptions
    let exitCode: Int32?
}

enum Chunking {
    /// Inputs larger than this are not fed in chunks of fewer than 64 bytes here (the
    /// conformance runner already feeds every stream case one byte at a time).
    static let bytewiseUpTo = 64 * 1024
    /// Most single cuts tried per kind of position.
    static let singleCuts = 16
    static let randomSplits = 8

    /// `data` cut at ascending positions `cuts`.
    static func cut(_ data: Data, _ cuts: [Int]) -> [Data] {
        let bounds = [0] + cuts.filter { $0 >= 0 && $0 <= data.count } + [data.count]
        return zip(bounds, bounds.dropFirst()).map { data.subdata(in: $0..<max($0, $1)) }
    }

    /// Named splits of `data`, each a list of ascending cut positions.
    static func splits(_ data: Data, seed: UInt64) -> [(String, [Int])] {
        let bytes = [UInt8](data)
        let n = bytes.count
        var out: [(String, [Int])] = []
        for size in [1, 2, 3, 7, 64, 4096] where size >= 64 || n <= bytewiseUpTo {
            out.append(("in \(size)-byte chunks", Array(stride(from: size, to: n, by: size))))
        }
        var rng = SplitMix64(seed)
        let insideChars = (1..<max(n, 1)).filter { $0 < n && bytes[$0] & 0xC0 == 0x80 }
        var insideEscapes = Set<Int>()
        for i in 0..<n where bytes[i] == 0x5C {
            let length = i + 1 < n && bytes[i + 1] == 0x75 ? 5 : 1
            insideEscapes.formUnion((i + 1...i + length).filter { $0 < n })
        }
        let betweenCrLf = (1..<max(n, 1)).filter { $0 < n && bytes[$0 - 1] == 0x0D && bytes[$0] == 0x0A }
        for (what, cuts) in [
            ("inside every multi-byte character", insideChars), ("inside every escape", insideEscapes.sorted()),
            ("between every \\r and \\n", betweenCrLf),
        ] {
            if !cuts.isEmpty { out.append((what, cuts)) }
            let each = cuts.count <= singleCuts ? cuts : (0..<singleCuts).map { _ in cuts[rng.below(cuts.count)] }
            out += each.map { ("cut once \(what) (at byte \($0))", [$0]) }
        }
        for round in 0..<randomSplits {
            let count = 1 + rng.below(min(48, max(n, 1)))
            let cuts = (0..<count).map { _ in rng.below(n + 1) }.sorted()
            out.append(("random cuts #\(round) (seed \(seed)): \(cuts)", cuts))
        }
        return out
    }

    /// Feeds `input` in every split: how many splits were tried, and a description of each
    /// split whose outcome differs.
    static func check(_ input: ChunkingInput) -> (tried: Int, failures: [String]) {
        let whole: [String: JSON]
        do {
            whole = try outcome([input.data], input.options, exitCode: input.exitCode)
        } catch {
            return (0, ["\(input.name): fed whole: \(error)"])
        }
        var failures: [String] = []
        let all = splits(input.data, seed: fnv1a(input.name))
        for (how, cuts) in all {
            do {
                let split = try outcome(cut(input.data, cuts), input.options, exitCode: input.exitCode)
                try sameJSON("fed \(how), the outcome (vs. fed whole)", .object(whole), .object(split))
            } catch {
                failures.append("\(input.name): \(error)")
            }
        }
        return (all.count, failures)
    }

    /// Checks every input; prints how many inputs and splits were fed; the failures.
    static func checkAll(_ inputs: [ChunkingInput], _ what: String) -> [String] {
        let checked = inputs.map(check)
        print("chunking: \(inputs.count) inputs (\(what)) fed in \(checked.map(\.tried).reduce(0, +)) splits")
        return checked.flatMap(\.failures)
    }

    /// A stable seed for a name (FNV-1a, 64 bits).
    static func fnv1a(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Every stream case of `group` (`stream/`, or the stream cases of `hostile/`), and every
    /// line case as a one-line stream and as a truncated last line.
    static func conformanceInputs(_ group: String) throws -> [ChunkingInput] {
        try Conformance.cases(group).flatMap { c -> [ChunkingInput] in
            let name = "conformance/\(c.testDescription)"
            let value = try c.load()
            if group == "stream" || (try? getString(value, "form")) == "stream" {
                return [ChunkingInput(name: name, data: try streamInput(value), options: try streamOptions(value),
                                      exitCode: try streamExitCode(value))]
            }
            let line = try getBytes(value, "line")
            return [
                ChunkingInput(name: "\(name) (as a line)", data: line + Data([0x0A]), options: ReadOptions(), exitCode: 0),
                ChunkingInput(name: "\(name) (as a truncated tail)", data: line, options: ReadOptions(), exitCode: nil),
            ]
        }
    }

    /// Lines a hostile harness may print among its frames.
    static let hostileLines: [Data] = [
        Data(),
        Data("   Compiling agent v1.0 (prose on stdout)".utf8),
        Data(#"{"type":"message_delta","turn_id":1,"delta":"bad "#.utf8) + Data([0xC3, 0x28]) + Data(#" utf-8"}"#.utf8),
        Data(#"{"type":"agent_start","turn_id":1}{"type":"cancelled","turn_id":1}"#.utf8),
        Data(#"{"type":"plan_update","turn_id":"x","note":"\ud83d"}"#.utf8),
        Data("\u{FEFF}{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"bom\"}".utf8),
        Data([0, 0, 0, 0]),
        Data(#"{"type":"message_delta","turn_id":1,"delta":"a\ud83d\ude00\u00e9\\\""}"#.utf8),
    ]

    /// `data` with hostile lines inserted every so often and a tail cut inside a character.
    static func withHostileLines(_ data: Data, seed: UInt64) -> Data {
        var rng = SplitMix64(seed)
        var out = Data()
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? data.endIndex
            if rng.below(7) == 0 {
                out += hostileLines[rng.below(hostileLines.count)] + Data([0x0A])
            }
            out += data[start..<end]
            start = end
        }
        return out + Data(#"{"type":"message_delta","turn_id":9,"delta":"cut "#.utf8) + Data([0xE2, 0x82])
    }

    /// `data` with every `\n` made `\r\n`.
    static func withCrlf(_ data: Data) -> Data {
        Data(data.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] })
    }

    /// The stdout and exit code of `hep` with `arguments`.
    static func run(_ arguments: [String]) throws -> (Data, Int32) {
        let process = Process()
        process.executableURL = hepBinary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (data, process.terminationStatus)
    }
}

/// A small deterministic generator (SplitMix64), so that every run tries the same splits.
struct SplitMix64 {
    private var state: UInt64

    init(_ seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (`n` > 0; 0 otherwise).
    mutating func below(_ n: Int) -> Int {
        n <= 0 ? 0 : Int(next() % UInt64(n))
    }
}

@Suite struct ChunkingInvariance {
    @Test(arguments: ["stream", "hostile", "decode", "reject"])
    func everyConformanceInputGivesTheSameOutcomeHoweverSplit(_ group: String) async throws {
        let inputs = try Chunking.conformanceInputs(group)
        #expect(!inputs.isEmpty, "conformance/\(group)/ holds no case")
        let failures = try await offThePool { Chunking.checkAll(inputs, "conformance/\(group)/") }
        #expect(failures.isEmpty, "\(failures.count) split(s) change the outcome:\n\(failures.prefix(20).joined(separator: "\n"))")
    }

    @Test(arguments: ["chat", "tools", "error", "compaction", "stuck", "big-output", "future", "over-window", "skipped-compaction"])
    func simulatedRunsGiveTheSameOutcomeHoweverSplit(_ scenario: String) async throws {
        var failures: [String] = []
        for seed in [1, 2] {
            for extra in [[], ["--full-args"]] {
                let arguments = ["simulate", "--scenario", scenario, "--speed", "0", "--seed", "\(seed)"] + extra
                let (data, code) = try Chunking.run(arguments)
                let name = "hep \(arguments.joined(separator: " "))"
                #expect(data.filter { $0 == 0x0A }.count >= 3, "\(name) wrote \(data.count) bytes")
                let whole = try outcome([data], ReadOptions(), exitCode: code)
                #expect(whole["conforms"] == .bool(true), "\(name): the simulator's run does not conform: \(show(.object(whole)))")
                let hostile = Chunking.withHostileLines(data, seed: UInt64(seed))
                let inputs = [
                    ChunkingInput(name: name, data: data, options: ReadOptions(), exitCode: code),
                    ChunkingInput(name: "\(name), \\r\\n line ends", data: Chunking.withCrlf(data), options: ReadOptions(), exitCode: code),
                    ChunkingInput(name: "\(name), hostile lines", data: hostile, options: ReadOptions(), exitCode: 137),
                    ChunkingInput(name: "\(name), hostile lines, 300-byte lines", data: hostile,
                                  options: ReadOptions(maxLine: 300), exitCode: nil),
                    ChunkingInput(name: "\(name), hostile lines, strict", data: hostile,
                                  options: ReadOptions(strict: true), exitCode: code),
                ]
                failures += try await offThePool { Chunking.checkAll(inputs, name) }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) split(s) change the outcome:\n\(failures.prefix(20).joined(separator: "\n"))")
    }

    @Test func theSplitsCutWhereTheySay() {
        let data = Data("a\u{e9}\\u00e9\r\n\u{1F600}".utf8)
        let named = Dictionary(Chunking.splits(data, seed: 1), uniquingKeysWith: { first, _ in first })
        #expect(named["inside every multi-byte character"] == [2, 12, 13, 14])
        #expect(named["inside every escape"] == [4, 5, 6, 7, 8])
        #expect(named["between every \\r and \\n"] == [10])
        #expect(named["in 1-byte chunks"] == Array(1..<data.count))
        #expect(Chunking.cut(Data("abcdef".utf8), [2, 2, 5]).map { String(decoding: $0, as: UTF8.self) } == ["ab", "", "cde", "f"])
    }
}
