import Foundation
import GRDB
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// Backups as an operator takes them: `topicgate backup` while the gateway serves under a
/// stream of writes, `topicgate restore` with the gateway stopped (its refusals included), and
/// on PostgreSQL `pg_dump` under the same load and `pg_restore` into a new database. After the
/// restore every write accepted before the copy began is served, and the pushes that were
/// waiting in the outbox (their broker was down) reach the device.
@Suite("Backups and restores")
struct BackupRestoreTests {
    /// The scene under load: a receiver whose device is connected, subscribed to its inbox; a
    /// thing its owner sends commands to; and the writes, running.
    struct Scene {
        let receiver: (id: String, token: String)
        let inbox: String
        let endpoint: PushWorld.Endpoint
        let owner: (id: String, token: String)
        let thing: String
    }

    static func scene(_ world: PushWorld) async throws -> Scene {
        let receiver = try await world.pseudoUser()
        let inbox = "\(world.app)/users/\(receiver.id)/topics/inbox"
        try await world.call(.put, inbox, token: receiver.token).expect(.noContent)
        try await world.subscribe(inbox, userID: receiver.id, token: receiver.token)
        let endpoint = try await world.install(token: receiver.token)
        let owner = try await world.pseudoUser()
        let thing = try await world.onboardThing("backup-lamp", owner: owner).id
        return Scene(receiver: receiver, inbox: inbox, endpoint: endpoint, owner: owner, thing: thing)
    }

    /// Runs `topicgate` with `arguments`; its exit status and everything it printed.
    static func topicgate(_ arguments: [String]) async throws -> (Int32, String) {
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: ServerProcess.executable.path, arguments: arguments,
            output: output.fileHandleForWriting.fileDescriptor, error: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = await ServerProcess.readToEnd(output.fileHandleForReading)
        return (await process.exit(), text)
    }

    /// Starts writes through `world`, stops its broker and sends three messages to the
    /// receiver (accepted, waiting in the outbox), then runs `copy` while the writes go on.
    /// Returns the writes and the instant the copy began.
    static func copyUnderLoad(
        _ world: PushWorld, _ scene: Scene, copy: () async throws -> Void
    ) async throws -> ([AcceptedWrites.Write], ContinuousClock.Instant) {
        let writes = AcceptedWrites()
        let load = Task {
            try await writes.run(through: world, grantee: scene.receiver.id, thing: scene.thing, owner: scene.owner)
        }
        // Some writes before the copy, however loaded the machine is.
        #expect(try await eventually(timeout: .seconds(60)) { writes.all.count >= 3 })
        try await world.broker.stop()
        for number in 1...3 {
            try await world.push(scene.inbox, token: scene.receiver.token, message: "waiting-\(number)")
        }
        try await Task.sleep(for: .milliseconds(300))
        let began = ContinuousClock.now
        let before = writes.all.count
        try await copy()
        // Writes carry on past the copy.
        #expect(try await eventually(timeout: .seconds(60)) { writes.all.count > before })
        writes.stop()
        try await load.value
        return (writes.all, began)
    }

    /// With the broker back and the receiver's device connected, a gateway started on the
    /// restored data (`directory`, and `arguments` such as its database) serves every write
    /// accepted before `began` and delivers the waiting pushes; then everything stops.
    static func expectRestored(
        onto directory: String, arguments: [String], world: PushWorld, scene: Scene, writes: [AcceptedWrites.Write],
        began: ContinuousClock.Instant, device: MQTTClient, received: ReceivedMessages
    ) async throws {
        let restored = ServerProcess(
            dataDirectory: directory,
            arguments: arguments + [
                "--broker", "mqtt://127.0.0.1:\(world.broker.port)", "--mqtt-secret-file", world.broker.secretFile,
            ], credentialsOf: world.server)
        try await restored.start()
        defer {
            try? FileManager.default.removeItem(atPath: world.directory)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let messages = await received.wait(for: 3, timeout: .seconds(20))
        #expect(
            Set(messages.compactMap { $0.object["msg"]?.stringValue }) == ["waiting-1", "waiting-2", "waiting-3"],
            "the outbox's waiting pushes are delivered after the restore")
        try await AcceptedWrites.expectPresent(
            writes, acceptedBefore: began, in: restored, thing: scene.thing, owner: scene.owner)
        // And the restored gateway goes on serving: a new send reaches the device.
        try await restored.send(scene.inbox, token: scene.receiver.token, message: "after").expect(.created)
        #expect(await received.wait(for: 4).last?.object["msg"]?.stringValue == "after")
        device.shutdown()
        _ = try await restored.stop(signal: SIGTERM)
        try await world.broker.stop()
    }

    @Test("topicgate backup under load, topicgate restore: every accepted write is back, waiting pushes delivered")
    func sqliteBackupAndRestore() async throws {
        let world = try await PushWorld.started()
        let scene = try await Self.scene(world)
        let backup = world.directory + "-backup.sqlite"
        defer { try? FileManager.default.removeItem(atPath: backup) }
        let (writes, began) = try await Self.copyUnderLoad(world, scene) {
            let (status, output) = try await Self.topicgate(["backup", "--data-dir", world.directory, backup])
            #expect(status == 0, "\(output)")
            #expect(output.contains("Backed up"))
        }

        // A restore into a data folder a gateway serves is refused, and changes nothing.
        let (busy, busyOutput) = try await Self.topicgate(["restore", "--data-dir", world.directory, backup])
        #expect(busy != 0 && busyOutput.contains("A gateway is serving"), "\(busyOutput)")
        try await world.call(.get, "\(world.app)/users/me", token: scene.receiver.token).expect(.ok)
        _ = try await world.server.stop(signal: SIGTERM)

        // Files that are not a TopicGate database, or that a newer TopicGate wrote, are refused.
        let notDatabase = world.directory + "-not-a-database"
        try "hello".write(toFile: notDatabase, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notDatabase) }
        let (refused, refusedOutput) = try await Self.topicgate(["restore", "--data-dir", world.directory, notDatabase])
        #expect(refused != 0 && refusedOutput.contains("not a TopicGate database"), "\(refusedOutput)")
        let newer = world.directory + "-newer.sqlite"
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        defer { try? FileManager.default.removeItem(atPath: newer) }
        try await DatabaseQueue(path: newer).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        let (newerStatus, newerOutput) = try await Self.topicgate(["restore", "--data-dir", world.directory, newer])
        #expect(newerStatus != 0 && newerOutput.contains("from a newer TopicGate"), "\(newerOutput)")

        // Restored on a new machine: a new data folder, the same broker secret.
        let restoredDirectory = world.directory + "-restored"
        defer { try? FileManager.default.removeItem(atPath: restoredDirectory) }
        let (status, output) = try await Self.topicgate(["restore", "--data-dir", restoredDirectory, backup])
        #expect(status == 0 && output.contains("Restored"), "\(output)")

        try await world.broker.start()
        let device = try await world.connectedDevice(scene.endpoint)
        let received = ReceivedMessages(device)
        try await Self.expectRestored(
            onto: restoredDirectory, arguments: [], world: world, scene: scene, writes: writes, began: began,
            device: device, received: received)
    }

    /// `program` of PostgreSQL's, run as it is installed (pg_dump, pg_restore), against `server`.
    static func postgresTool(_ program: String, _ arguments: [String]) async throws -> (Int32, String) {
        let candidates =
            ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"]
            .map { $0 + "/" + program } + ["/usr/bin/" + program]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("\(program) is not installed (apt-get install postgresql)")
        }
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: executable, arguments: arguments,
            output: output.fileHandleForWriting.fileDescriptor, error: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = await ServerProcess.readToEnd(output.fileHandleForReading)
        return (await process.exit(), text)
    }

    @Test("pg_dump under load, pg_restore into a new database: every accepted write is back, waiting pushes delivered")
    func postgresDumpAndRestore() async throws {
        let database = try await TestPostgres.shared.newDatabase()
        // A short lease: what this gateway had claimed when the dump was taken is another's a
        // second later.
        let world = try await PushWorld.started(arguments: ["--database", database, "--outbox-lease", "1"])
        let scene = try await Self.scene(world)
        let dump = world.directory + "-dump.pgc"
        defer { try? FileManager.default.removeItem(atPath: dump) }
        let (writes, began) = try await Self.copyUnderLoad(world, scene) {
            let (status, output) = try await Self.postgresTool("pg_dump", ["-Fc", "-f", dump, "-d", database])
            #expect(status == 0, "\(output)")
        }
        _ = try await world.server.stop(signal: SIGTERM)

        let target = try await TestPostgres.shared.newDatabase()
        let (status, output) = try await Self.postgresTool(
            "pg_restore", ["--no-owner", "--exit-on-error", "-d", target, dump])
        #expect(status == 0, "\(output)")

        try await world.broker.start()
        let device = try await world.connectedDevice(scene.endpoint)
        let received = ReceivedMessages(device)
        // Another gateway, with its own ID.
        try await Self.expectRestored(
            onto: world.directory + "-restored", arguments: ["--database", target], world: world, scene: scene,
            writes: writes, began: began, device: device, received: received)
    }
}
