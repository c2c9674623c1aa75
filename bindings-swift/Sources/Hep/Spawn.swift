import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child started by `spawnChild`: its pid (also its process group id) and the read ends
/// of its stdout and stderr pipes.
struct SpawnedChild {
    let pid: pid_t
    let stdout: Int32
    let stderr: Int32
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
/// - stdin `/dev/null`, stdout and stderr to pipes, no other descriptor inherited.
///
/// - Throws: `POSIXError` when the child cannot be started (`ENOENT`, `EACCES`, ...).
func spawnChild(
    executable: String, arguments: [String], environment: [String: String]?, directory: String?
) throws -> SpawnedChild {
    let stdout = try makePipe()
    let stderr: (read: Int32, write: Int32)
    do {
        stderr = try makePipe()
    } catch {
        closeAll(stdout.read, stdout.write)
        throw error
    }
    defer { closeAll(stdout.write, stderr.write) }

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
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
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
    guard failed == 0 else {
        closeAll(stdout.read, stderr.read)
        throw POSIXError(POSIXErrorCode(rawValue: failed) ?? .EIO)
    }
    return SpawnedChild(pid: pid, stdout: stdout.read, stderr: stderr.read)
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

private func closeAll(_ fds: Int32...) {
    for fd in fds { _ = close(fd) }
}
