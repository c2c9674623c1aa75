// hep-exit-check SCRIPT [release | reaped-elsewhere]: starts `sh -c SCRIPT` (sh looked up on
// PATH) as a HepProcess, waits for its first frame, prints the child's pid, and exits with
// the child still running (or, with `release`, first releases the process and then exits).
// The tests (NoOrphans) check that the child was cancelled all the same.
//
// With `reaped-elsewhere`, SIGCHLD is ignored first, so that the kernel reaps the child and
// its exit status is lost; it prints the verdict and the exit code of the run (`ok nil`).

import Foundation
import Hep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: hep-exit-check SCRIPT [release | reaped-elsewhere]\n".utf8))
    exit(2)
}
let mode = arguments.dropFirst(2).first
if mode == "reaped-elsewhere" {
    _ = signal(SIGCHLD, SIG_IGN)
    let process = try HepProcess(executable: "sh", arguments: ["-c", arguments[1]])
    let result = await process.result
    FileHandle.standardOutput.write(Data("\(result.verdict.name) \(result.exitCode.map { "\($0)" } ?? "nil")\n".utf8))
    exit(0)
}
var process: HepProcess? = try HepProcess(
    executable: "sh", arguments: ["-c", arguments[1]], interruptGrace: .seconds(30))
for try await _ in process!.frames {
    break
}
FileHandle.standardOutput.write(Data("\(process!.pid)\n".utf8))
if mode == "release" {
    process = nil
    try await Task.sleep(for: .milliseconds(200))
}
exit(0)
