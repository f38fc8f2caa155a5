import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process (the embedded Mosquitto) spawned with a clean signal state.
///
/// Foundation's `Process` passes on the parent's signal mask, and a Swift server blocks or
/// ignores SIGTERM and SIGINT to handle them itself: a broker started that way never sees
/// SIGTERM, so it cannot save its persistence file and stop. `posix_spawn` with an empty mask
/// and default dispositions gives the child the signals a daemon expects, and it inherits no
/// descriptor beyond standard input, output and error.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `executable` with `arguments`, standard output and error appended to `logPath`
    /// (never through a symbolic link: the spawn fails instead),
    /// standard input from /dev/null; `environment` replaces ours when given.
    public static func spawn(
        executable: String, arguments: [String], logPath: String, environment: [String: String]? = nil
    ) throws -> ChildProcess {
        try spawn(executable, arguments, environment) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
    }

    /// Starts `executable` with its standard streams on descriptors of ours (a pipe's end, say;
    /// nil: /dev/null), which the caller keeps and closes; `environment` replaces ours when given.
    ///
    /// Instead of Foundation's `Process`, whose `run()` on Linux (Swift 6.3.1) now and then
    /// crashes the whole process: it copies each `/proc/self/fd` entry's 256-byte name field
    /// whole, reading past the end of the directory buffer into an unmapped page.
    public static func spawn(
        executable: String, arguments: [String], environment: [String: String]? = nil, input: Int32? = nil,
        output: Int32? = nil, error: Int32? = nil, workingDirectory: String? = nil
    ) throws -> ChildProcess {
        try spawn(executable, arguments, environment) { actions in
            if let workingDirectory { try Self.changeDirectory(&actions, to: workingDirectory) }
            for (descriptor, target, flags) in [
                (input, Int32(0), O_RDONLY), (output, 1, O_WRONLY), (error, 2, O_WRONLY),
            ] {
                if let descriptor {
                    posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                } else {
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0)
                }
            }
        }
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], _ environment: [String: String]?,
        standardStreams: (inout posix_spawn_file_actions_t) throws -> Void
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try standardStreams(&actions)
        // Nothing else of ours leaks into the child: not the HTTP listener, not the database,
        // not the pipe through which a parent watches us. (Foundation opens most without
        // O_CLOEXEC; a broker holding them would keep our port bound after we die.)
        Self.closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let rc =
            if let envp { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard rc == 0 else {
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        return ChildProcess(pid: pid)
    }

    /// Asks the spawn to start the child in `directory` (glibc's
    /// `posix_spawn_file_actions_addchdir_np`, 2.29+, looked up at run time like the one below);
    /// throws where there is none, rather than start the child elsewhere.
    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to directory: String) throws {
        typealias AddChangeDirectory =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np"),
            unsafeBitCast(symbol, to: AddChangeDirectory.self)(&actions, directory) == 0
        else { throw ChildProcessError(description: "cannot start a child in \(directory) on this system") }
    }

    /// Asks the spawn to close every descriptor from 3 up: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+, looked up at run time since Swift's
    /// Glibc module does not export it); elsewhere, marks our open descriptors close-on-exec.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
            if addCloseFrom(&actions, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Sends `signal` unless the process has already been reaped.
    public func send(_ signal: Int32) {
        if exitStatus.withLock({ $0 == nil }) { kill(pid, signal) }
    }

    /// The exit status once it ended (reaping it), nil while it runs.
    public func poll() -> Int32? {
        exitStatus.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                // WIFEXITED ? WEXITSTATUS : 128 + signal, as a shell reports it.
                status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            } else if reaped < 0 && errno == ECHILD {
                status = -1
            }
            return status
        }
    }

    public var isRunning: Bool { poll() == nil }

    /// SIGKILL, and reap it at once (for owners that are going away).
    public func killNow() {
        exitStatus.withLock { status in
            guard status == nil else { return }
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
            status = 128 + SIGKILL
        }
    }

    /// Waits until the process ends and returns its exit status. Not cancellable: a caller
    /// that must stop waiting signals the process instead.
    public func exit() async -> Int32 {
        while true {
            if let status = poll() { return status }
            await Self.pause(milliseconds: 50)
        }
    }

    /// Blocks the calling thread until the process ends (for callers on a thread of their own)
    /// and returns its exit status.
    public func waitBlocking() -> Int32 {
        while true {
            if let status = poll() { return status }
            usleep(10_000)
        }
    }

    /// Waits up to `timeout` for the process to end; nil when it still runs.
    public func exit(within timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            await Self.pause(milliseconds: 25)
        }
        return poll()
    }

    /// Sends `signal` (SIGTERM by default), waits up to `grace` for the process to end, then
    /// SIGKILL.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(10)) async -> Int32 {
        send(signal)
        if let status = await exit(within: grace) { return status }
        send(SIGKILL)
        return await exit()
    }

    /// A sleep that a cancelled task still waits through (so that polling never spins).
    private static func pause(milliseconds: Int) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { done.resume() }
        }
    }
}
