import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child started by `spawnChild`: its pid (also its process group id), the read ends of
/// its stdout and stderr pipes, and the write end of its stdin pipe when it has one.
struct SpawnedChild {
    let pid: pid_t
    let stdout: Int32
    let stderr: Int32
    let stdin: Int32?
}

/// Starts `executable` with `posix_spawn`, atomically set up as a supervised harness needs:
///
/// - in a process group of its own (`POSIX_SPAWN_SETPGROUP`), so that a signal to the group
///   reaches it and everything it starts, and none can reach it before it is there;
/// - with an empty signal mask and default dispositions (`POSIX_SPAWN_SETSIGMASK`,
///   `POSIX_SPAWN_SETSIGDEF`). A child inherits both from the thread that starts it, and
///   Swift concurrency's threads block most signals: started by `Foundation.Process` from a
///   task, a harness would never see the SIGINT of a cancel. A supervisor that ignores
///   SIGINT (run in the background by a shell) would likewise pass that on;
/// - stdin as `input` says, stdout and stderr to pipes, no other descriptor inherited.
///
/// No code of ours runs in the child between fork and exec (that is what `posix_spawn` is),
/// so the child cannot be given `PR_SET_PDEATHSIG` here.
///
/// - Throws: `POSIXError` when the child cannot be started (`ENOENT`, `EACCES`, ...).
func spawnChild(
    executable: String, arguments: [String], environment: [String: String]?, directory: String?,
    input: HepProcess.Input
) throws -> SpawnedChild {
    var opened: [Int32] = []
    defer { opened.forEach { _ = close($0) } }
    let stdout = try makePipe()
    opened += [stdout.read, stdout.write]
    let stderr = try makePipe()
    opened += [stderr.read, stderr.write]
    var stdin: (read: Int32, write: Int32)?
    if case .pipe = input {
        stdin = try makePipe()
        opened += [stdin!.read, stdin!.write]
    }

    #if canImport(Glibc)
    var attributes = posix_spawnattr_t()
    var actions = posix_spawn_file_actions_t()
    let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    #else
    var attributes: posix_spawnattr_t?
    var actions: posix_spawn_file_actions_t?
    let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT
    #endif
    posix_spawnattr_init(&attributes)
    posix_spawn_file_actions_init(&actions)
    defer {
        posix_spawnattr_destroy(&attributes)
        posix_spawn_file_actions_destroy(&actions)
    }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var everySignal = sigset_t()
    sigfillset(&everySignal)
    sigdelset(&everySignal, SIGKILL)
    sigdelset(&everySignal, SIGSTOP)
    posix_spawnattr_setflags(&attributes, Int16(flags))
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &everySignal)
    switch input {
    case .nullDevice:
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    case .inherit:
        #if canImport(Darwin)
        posix_spawn_file_actions_addinherit_np(&actions, 0)
        #endif
    case .fileHandle(let handle):
        posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, 0)
    case .pipe:
        posix_spawn_file_actions_adddup2(&actions, stdin!.read, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
    #if canImport(Glibc)
    posix_spawn_file_actions_addclosefrom_np(&actions, 3)
    #endif
    if let directory {
        posix_spawn_file_actions_addchdir_np(&actions, directory)
    }

    let argv = ([executable] + arguments).map { strdup($0) }
    let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
    defer {
        argv.forEach { free($0) }
        envp?.forEach { free($0) }
    }
    var pid: pid_t = 0
    let failed: Int32
    if let envp {
        failed = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
    } else {
        failed = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], environ)
    }
    guard failed == 0 else { throw POSIXError(POSIXErrorCode(rawValue: failed) ?? .EIO) }
    // The parent keeps the read ends of stdout and stderr and the write end of stdin.
    opened = [stdout.write, stderr.write] + (stdin.map { [$0.read] } ?? [])
    return SpawnedChild(pid: pid, stdout: stdout.read, stderr: stderr.read, stdin: stdin?.write)
}

/// The file `name` runs: a name with a `/` as it is, a bare name looked up in the
/// directories of `PATH` (the child's `environment`'s if it sets one, else this process's;
/// `/usr/bin:/bin` without any), as a shell or `posix_spawnp` does: the first executable
/// regular file of that name.
///
/// - Throws: `POSIXError(.ENOENT)` when none is found.
func lookUp(_ name: String, environment: [String: String]?) throws -> String {
    guard !name.isEmpty else { throw POSIXError(.ENOENT) }
    if name.contains("/") { return name }
    let path = environment?["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
        let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
        var info = stat()
        if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    throw POSIXError(.ENOENT)
}

/// A pipe whose two ends are closed on exec: only the child started with it gets a copy
/// (by dup2), not the children of other threads.
func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (fds[0], fds[1])
}
