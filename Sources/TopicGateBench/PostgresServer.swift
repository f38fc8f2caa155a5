import Foundation
import ProcessSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of its own: `initdb` in a new directory, then `postgres` in the
/// foreground on a free loopback port, trusting local connections of the user `topicgate`.
/// For the bench (`--postgres`, `--gateways`) and the tests, never for users' data. Run as root (as on CI machines), it
/// runs as the `postgres` system user, which Debian's package creates: PostgreSQL refuses root.
public final class PostgresServer: Sendable {
    public let port: Int
    public let directory: String
    public let user = "topicgate"
    private let process: Mutex<ChildProcess>
    private let launch: Launch

    /// How the server process is started again after `pause()`.
    private struct Launch: Sendable {
        let executable: String
        let arguments: [String]
        let log: String
    }

    /// Servers still running when the process exits (by process ID, with their folders) are
    /// stopped then and their folders removed (a crash leaves them).
    private static let running = Mutex<[pid_t: String]>([:])

    private init(port: Int, directory: String, process: ChildProcess, launch: Launch) {
        self.port = port
        self.directory = directory
        self.process = Mutex(process)
        self.launch = launch
    }

    /// The postmaster's process ID (its backends are its children), from its `postmaster.pid`.
    public var postmasterPID: pid_t? {
        (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8))?
            .split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `postgres://topicgate@127.0.0.1:PORT/database?sslmode=disable`
    public func url(database: String = "postgres") -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Creates the cluster and starts the server; returns once it accepts connections.
    /// `durable: false` turns off `fsync` (tests); the bench keeps PostgreSQL's defaults.
    /// `settings`: more `name=value` settings, after these.
    public static func start(durable: Bool = false, settings: [String] = []) async throws -> PostgresServer {
        guard let binaries = PostgresExecutables.find() else {
            throw ChildProcessError(
                description: "PostgreSQL's initdb and postgres are not installed (apt-get install postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "topicgate-pg-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let runAs = try SystemUser.forPostgres(owning: directory)
        let data = directory + "/data"
        let initdb = try ChildProcess.spawn(
            executable: runAs.executable(binaries.initdb),
            arguments: runAs.arguments(binaries.initdb) + [
                "-D", data, "-U", "topicgate", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync",
            ],
            logPath: directory + "/initdb.log")
        guard await initdb.exit(within: .seconds(120)) == 0 else {
            throw ChildProcessError(description: "initdb failed: \(Self.tail(directory + "/initdb.log"))")
        }
        let port = TCPProbe.freePort()
        let launch = Launch(
            executable: runAs.executable(binaries.postgres),
            arguments: runAs.arguments(binaries.postgres) + [
                "-D", data, "-p", String(port), "-k", directory, "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=300", "-c", "fsync=\(durable ? "on" : "off")",
                "-c", "synchronous_commit=\(durable ? "on" : "off")", "-c",
                "full_page_writes=\(durable ? "on" : "off")",
            ] + settings.flatMap { ["-c", $0] },
            log: directory + "/postgres.log")
        let server = try await run(launch)
        return PostgresServer(port: port, directory: directory, process: server, launch: launch)
    }

    /// Starts the server process and waits until its log says it accepts connections.
    private static func run(_ launch: Launch) async throws -> ChildProcess {
        try? FileManager.default.removeItem(atPath: launch.log)
        let server = try ChildProcess.spawn(
            executable: launch.executable, arguments: launch.arguments, logPath: launch.log)
        let first = running.withLock { running in
            running[server.pid] = (launch.log as NSString).deletingLastPathComponent
            return running.count == 1
        }
        if first { _ = registerExitHandler }
        let deadline = ContinuousClock.now + .seconds(60)
        while !((try? String(contentsOfFile: launch.log, encoding: .utf8))?.contains("ready to accept connections")
            ?? false)
        {
            guard server.isRunning, ContinuousClock.now < deadline else {
                server.killNow()
                throw ChildProcessError(description: "postgres did not start: \(Self.tail(launch.log))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return server
    }

    /// Stops the server (fast shutdown) and keeps its data, for `resume()`: a database outage.
    public func pause() async {
        let server = process.withLock { $0 }
        _ = await server.stop(signal: SIGINT, grace: .seconds(20))
        _ = Self.running.withLock { $0.removeValue(forKey: server.pid) }
    }

    /// Starts the server again on the same port and data after `pause()`.
    public func resume() async throws {
        let server = try await Self.run(launch)
        process.withLock { $0 = server }
    }

    /// Fast shutdown (SIGINT: open transactions roll back), then the directory goes.
    public func stop() async {
        await pause()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Registers `stopAllAtExit` once per process.
    private static let registerExitHandler: Void = { atexit { PostgresServer.stopAllAtExit() } }()

    /// Stops every server still running (fast shutdown), waits up to 10 s for them, and removes
    /// their folders: a test run leaves no data behind (each cluster is tens of megabytes).
    private static func stopAllAtExit() {
        let servers = running.withLock { $0 }
        for pid in servers.keys { kill(pid, SIGINT) }
        for (pid, directory) in servers {
            var status: Int32 = 0
            for _ in 0..<400 where waitpid(pid, &status, WNOHANG) == 0 { usleep(25_000) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private static func tail(_ path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(800))
    }
}

/// Where Debian (`/usr/lib/postgresql/N/bin`, newest first) or `PATH` has PostgreSQL's server.
enum PostgresExecutables {
    static func find() -> (initdb: String, postgres: String)? {
        let versions =
            ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (versions + path).lazy.compactMap { folder -> (String, String)? in
            let initdb = folder + "/initdb"
            let postgres = folder + "/postgres"
            let manager = FileManager.default
            guard manager.isExecutableFile(atPath: initdb), manager.isExecutableFile(atPath: postgres) else {
                return nil
            }
            return (initdb, postgres)
        }.first
    }
}

/// How PostgreSQL's programs are started: directly, or (as root) through `setpriv` as the
/// `postgres` user, which then owns the directory.
struct SystemUser {
    let name: String?

    static func forPostgres(owning directory: String) throws -> SystemUser {
        guard geteuid() == 0 else { return SystemUser(name: nil) }
        guard let entry = getpwnam("postgres") else {
            throw ChildProcessError(description: "running as root needs the postgres user (apt-get install postgresql)")
        }
        guard chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
            throw ChildProcessError(description: "cannot give \(directory) to the postgres user")
        }
        return SystemUser(name: "postgres")
    }

    func executable(_ program: String) -> String { name == nil ? program : "/usr/bin/setpriv" }

    func arguments(_ program: String) -> [String] {
        guard let name else { return [] }
        return ["--reuid=\(name)", "--regid=\(name)", "--init-groups", "--", program]
    }
}
