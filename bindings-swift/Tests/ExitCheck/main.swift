// hep-exit-check SCRIPT [release]: starts `sh -c SCRIPT` (sh looked up on PATH) as a
// HepProcess, waits for its first frame, prints the child's pid, and exits with the child
// still running (or, with `release`, first releases the process and then exits). The
// tests (NoOrphans) check that the child was cancelled all the same.

import Foundation
import Hep

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: hep-exit-check SCRIPT [release]\n".utf8))
    exit(2)
}
var process: HepProcess? = try HepProcess(
    executable: "sh", arguments: ["-c", arguments[1]], interruptGrace: .seconds(30))
for try await _ in process!.frames {
    break
}
FileHandle.standardOutput.write(Data("\(process!.pid)\n".utf8))
if arguments.dropFirst(2).first == "release" {
    process = nil
    try await Task.sleep(for: .milliseconds(200))
}
exit(0)
