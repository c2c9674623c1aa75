// hep-bounds-swift: the Swift reader of `make bounds`. `HepStream` is fed stdin in 64 KiB
// chunks (FileHandle), then finished with exit code 0.
//
//     hep-bounds-swift [--max-line-bytes N]
//
// Prints one JSON line: the frames it was handed, the run's frame, line and skipped counts,
// the kinds of the skipped lines kept, the verdict, the seconds from the first read to the
// result, and its own peak RSS in KiB: `VmHWM` of /proc/self/status (this executable's
// address space alone: under `swift run` the process began as SwiftPM, and getrusage's
// `ru_maxrss`, also printed, counts SwiftPM's peak too).

import Foundation
import Hep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed read or bad arguments: the reader stops.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Bytes read from stdin at a time, as the other readers read.
let chunkBytes = 64 * 1024

/// This process's peak resident set size in KiB (`VmHWM`), or nil off Linux.
func peakRssKib() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    guard let row = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
    return row.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
}

/// getrusage's peak resident set size of this process in KiB.
func maxRssKib() -> Int {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
    #else
    getrusage(RUSAGE_SELF, &usage)
    return usage.ru_maxrss / 1024  // bytes on Darwin
    #endif
}

func main() throws {
    let args = Array(CommandLine.arguments.dropFirst())
    var maxLineBytes: UInt64?
    switch args.count {
    case 0: break
    case 2 where args[0] == "--max-line-bytes":
        guard let n = UInt64(args[1]) else { throw Failure(description: "--max-line-bytes \(args[1]): not a count") }
        maxLineBytes = n
    default: throw Failure(description: "usage: hep-bounds-swift [--max-line-bytes N]")
    }
    let clock = ContinuousClock()
    let start = clock.now
    let stream = HepStream(maxLineBytes: maxLineBytes)
    let input = FileHandle.standardInput
    var frames = 0
    while let chunk = try input.read(upToCount: chunkBytes), !chunk.isEmpty {
        frames += try stream.feed(chunk).count
    }
    frames += try stream.endInput().count
    let result = stream.finish(exitCode: 0)
    let elapsed = (clock.now - start).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    let report: [String: Any] = [
        "frames": frames,
        "result_frames": result.frames,
        "lines": result.lines,
        "skipped": result.skippedCount,
        "skipped_kinds": Array(Set(result.skipped.map(\.kind))).sorted(),
        "verdict": result.verdict.name,
        "seconds": seconds,
        "hwm_kib": peakRssKib() as Any? ?? NSNull(),
        "maxrss_kib": maxRssKib(),
    ]
    let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    FileHandle.standardOutput.write(json + Data("\n".utf8))
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("hep-bounds-swift: \(error)\n".utf8))
    exit(1)
}
