// hep-bench-swift: `HepStream.feed` in 64 KiB chunks against Foundation's JSONDecoder
// decoding a Codable frame enum line by line, on the corpora of hep-bench (dumped by
// `hep-bench --dump-corpus DIR`, which bench/swift/run.sh does).
//
//     hep-bench-swift --corpus-dir DIR [--reps N] [--corpus NAME]
//
// Every case is checked before it is timed, and every timed run must give the corpus's
// frame count (and hep's every stream an ok verdict): the bench never reports the speed of
// a failure.

import Foundation
import Hep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed check: the bench stops.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// One dumped corpus: each stream's bytes.
struct Corpus {
    let name: String
    let streams: [Data]
    let frames: Int
    let bytes: Int

    init(_ directory: URL) throws {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("corpus.json")))
        guard let manifest = manifest as? [String: Any], let name = manifest["name"] as? String,
            let count = manifest["streams"] as? Int, let frames = manifest["frames"] as? Int,
            let bytes = manifest["bytes"] as? Int
        else { throw Failure(description: "\(directory.path)/corpus.json: not a hep-bench manifest") }
        self.name = name
        streams = try (0..<count).map { index in
            try Data(contentsOf: directory.appendingPathComponent(String(format: "stream-%04d.jsonl", index)))
        }
        self.frames = streams.reduce(0) { $0 + $1.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } }
        self.bytes = streams.reduce(0) { $0 + $1.count }
        guard self.frames == frames, self.bytes == bytes else {
            throw Failure(description: "\(name): the files hold \(self.frames) frames / \(self.bytes) bytes, the manifest says \(frames) / \(bytes)")
        }
    }
}

let chunkSize = 64 << 10

/// hep: each stream fed in 64 KiB slices to a fresh HepStream, then finished with exit code
/// 0; every stream must be ok, conforming, without violations or skipped lines. Returns the
/// frames delivered.
func hepFeed(_ corpus: Corpus) throws -> Int {
    var frames = 0
    for data in corpus.streams {
        let stream = HepStream()
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + chunkSize, data.endIndex)
            frames += try stream.feed(data[start..<end]).count
            start = end
        }
        let result = stream.finish(exitCode: 0)
        guard result.verdict == .ok, result.conforms, result.violationCount == 0, result.skippedCount == 0,
            result.frames == result.lines
        else { throw Failure(description: "\(corpus.name): a stream is not ok: \(result.verdict.name) \(result.reasons)") }
    }
    return frames
}

/// hep, frames with their line number and raw line (`feedReceived`), otherwise as `hepFeed`.
func hepFeedReceived(_ corpus: Corpus) throws -> Int {
    var frames = 0
    for data in corpus.streams {
        let stream = HepStream()
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + chunkSize, data.endIndex)
            frames += try stream.feedReceived(data[start..<end]).count
            start = end
        }
        guard stream.finish(exitCode: 0).verdict == .ok else { throw Failure(description: "\(corpus.name): not ok") }
    }
    return frames
}

/// Each line of `data` (without its `\n`), handed to `body`.
func forEachLine(_ data: Data, _ body: (Data) throws -> Void) rethrows {
    var start = data.startIndex
    while let newline = data[start...].firstIndex(of: 0x0A) {
        try body(data[start..<newline])
        start = newline + 1
    }
}

/// What a Swift user would write: each stream split on `\n`, each line decoded by one
/// JSONDecoder into the Codable frame enum. Returns the frames decoded. A plain loop (no
/// closure capturing the count), so the baseline pays for no harness overhead.
func jsonDecoder(_ corpus: Corpus) throws -> Int {
    let decoder = JSONDecoder()
    var frames = 0
    for data in corpus.streams {
        var start = data.startIndex
        while let newline = data[start...].firstIndex(of: 0x0A) {
            _ = try decoder.decode(CodableFrame.self, from: data[start..<newline])
            frames += 1
            start = newline + 1
        }
    }
    return frames
}

/// Before timing: hep's frames and JSONDecoder's agree on every line, field by field, and
/// each `raw` is its line.
func checkAgreement(_ corpus: Corpus) throws {
    let decoder = JSONDecoder()
    for (index, data) in corpus.streams.enumerated() {
        let received = try HepStream().feedReceived(data)
        var lines: [Data] = []
        forEachLine(data) { lines.append($0) }
        guard received.count == lines.count else {
            throw Failure(description: "\(corpus.name) stream \(index): hep reads \(received.count) frames of \(lines.count) lines")
        }
        for (r, line) in zip(received, lines) {
            let codable = try decoder.decode(CodableFrame.self, from: line)
            guard codable.same(as: r.frame), Data(r.raw.utf8) == line else {
                throw Failure(description: "\(corpus.name) stream \(index) line \(r.line): hep and JSONDecoder disagree")
            }
        }
    }
}

/// Process CPU time, in seconds.
func cpuTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

struct Case {
    let name: String
    let run: (Corpus) throws -> Int
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

/// Times `cases` on `corpus`: one untimed warm-up, then `reps` rounds run round-robin.
/// Returns the median wall time of each case, in seconds; the last case is the baseline.
func measure(_ cases: [Case], on corpus: Corpus, reps: Int) throws -> [Double] {
    for c in cases {
        let frames = try c.run(corpus)
        guard frames == corpus.frames else { throw Failure(description: "\(c.name) read \(frames) frames of \(corpus.frames)") }
    }
    var wall = Array(repeating: [Double](), count: cases.count)
    var cpu = wall
    for _ in 0..<reps {
        for (index, c) in cases.enumerated() {
            let (clock, startCPU) = (ContinuousClock.now, cpuTime())
            let frames = try c.run(corpus)
            let elapsed = ContinuousClock.now - clock
            cpu[index].append(cpuTime() - startCPU)
            wall[index].append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            guard frames == corpus.frames else { throw Failure(description: "\(c.name) read \(frames) frames of \(corpus.frames)") }
        }
    }
    let medians = wall.map(median)
    let baseline = medians[cases.count - 1]
    print("\(corpus.name) — reading                             median ms    MB/s  Mframes/s   min..max ms   cpu ms  JSONDecoder/row")
    for (index, c) in cases.enumerated() {
        let ms = medians[index] * 1000
        let row = [
            lpad(String(format: "%.1f", ms), 10),
            lpad(String(format: "%.1f", Double(corpus.bytes) / 1e6 / medians[index]), 7),
            lpad(String(format: "%.2f", Double(corpus.frames) / 1e6 / medians[index]), 10),
            lpad(String(format: "%.0f..%.0f", wall[index].min()! * 1000, wall[index].max()! * 1000), 13),
            lpad(String(format: "%.1f", median(cpu[index]) * 1000), 8),
            lpad(String(format: "%.2fx", baseline / medians[index]), 16),
        ]
        print("  \(pad(c.name, 48))\(row.joined())")
    }
    return medians
}

func main() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var corpusDir: URL?
    var reps = 7
    var only: String?
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        guard let value = arguments.first else { throw Failure(description: "\(flag) needs a value") }
        arguments.removeFirst()
        switch flag {
        case "--corpus-dir": corpusDir = URL(fileURLWithPath: value)
        case "--reps": reps = Int(value) ?? 0
        case "--corpus": only = value
        default: throw Failure(description: "unknown option \(flag) (--corpus-dir DIR, --reps N, --corpus NAME)")
        }
    }
    guard let corpusDir, reps > 0 else { throw Failure(description: "usage: hep-bench-swift --corpus-dir DIR [--reps N] [--corpus NAME]") }
    print("hep-bench-swift: 1 warm-up + \(reps) timed runs per case (median reported), \(ProcessInfo.processInfo.activeProcessorCount) cores")
    let cases = [
        Case(name: "a1. HepStream.feed(64 KiB) + finish(0)", run: hepFeed),
        Case(name: "a2. HepStream.feedReceived(64 KiB) + finish(0)", run: hepFeedReceived),
        Case(name: "b1. JSONDecoder per line, Codable frame enum", run: jsonDecoder),
    ]
    var ratios: [(String, Double)] = []
    for name in ["delta-heavy", "tool-heavy"] where only == nil || only == name {
        let corpus = try Corpus(corpusDir.appendingPathComponent(name))
        print("\(corpus.name): \(corpus.streams.count) streams, \(corpus.frames) frames, \(String(format: "%.1f", Double(corpus.bytes) / 1e6)) MB")
        try checkAgreement(corpus)
        let medians = try measure(cases, on: corpus, reps: reps)
        ratios.append((corpus.name, medians[2] / medians[0]))
    }
    print("")
    for (name, ratio) in ratios {
        print("HepStream.feed(64 KiB) vs JSONDecoder on \(name): \(String(format: "%.2fx", ratio)) (target >= 5x: \(ratio >= 5 ? "met" : "MISSED"))")
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("hep-bench-swift: \(error)\n".utf8))
    exit(1)
}
