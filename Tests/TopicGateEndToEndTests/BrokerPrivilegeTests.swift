import Foundation
import Glibc
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// A gateway started by root runs its embedded Mosquitto as the `mosquitto` account. These
/// tests play that account turned hostile (a compromised broker, or Debian's own mosquitto
/// service): it plants a configuration and symbolic links where root reads and writes, then
/// the broker restarts. The broker must come back as `mosquitto`, and no file of root's may
/// change. They need what `make test` has: root, and Debian's `mosquitto` account.
@Suite("The broker's account cannot become root")
struct BrokerPrivilegeTests {
    let mosquitto: passwd

    init() throws {
        try #require(geteuid() == 0, "these tests show what a gateway started by root does: run them as root")
        mosquitto = try #require(getpwnam("mosquitto"), "apt-get install mosquitto makes the account").pointee
    }

    @Test(
        "A broker folder left writable by its account: the planted config and links are not used, root's files stay as they were"
    )
    func plantedFolder() async throws {
        let victims = try Victims()
        defer { victims.remove() }
        let directory = TestFolder.url.appendingPathComponent("tg-priv-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The layout an older gateway left: `<data>/broker` owned by mosquitto, which has now
        // written `user root` into the configuration and linked the log, the state folder and
        // the secret's temporary name to root's files.
        let broker = directory + "/broker"
        try FileManager.default.createDirectory(atPath: broker, withIntermediateDirectories: true)
        try "user root\nallow_anonymous true\nlistener 1\n".write(
            toFile: broker + "/mosquitto.conf", atomically: true, encoding: .utf8)
        for (name, target) in [
            ("mosquitto.log", victims.file), ("state", victims.folder), ("mqtt-secret.new", victims.file),
            ("mosquitto.conf.new", victims.file),
        ] {
            try FileManager.default.createSymbolicLink(atPath: broker + "/" + name, withDestinationPath: target)
        }
        for path in [broker, broker + "/mosquitto.conf"] {
            #expect(chown(path, mosquitto.pw_uid, mosquitto.pw_gid) == 0)
        }
        for name in ["mosquitto.log", "state", "mqtt-secret.new", "mosquitto.conf.new"] {
            #expect(lchown(broker + "/" + name, mosquitto.pw_uid, mosquitto.pw_gid) == 0)
        }

        let world = try await PushWorld.started(embedded: true, directory: directory)
        let first = try await world.embeddedBrokerPID()
        #expect(try uid(of: first) == mosquitto.pw_uid, "the broker runs as mosquitto")
        let config = try String(contentsOfFile: broker + "/mosquitto.conf", encoding: .utf8)
        #expect(config.contains("\nuser mosquitto\n") && !config.contains("user root"), "\(config)")
        #expect(!config.contains("allow_anonymous true"))
        // The folder and what root reads are root's now; the state folder is a real folder.
        #expect(try owner(broker) == 0)
        #expect(try owner(broker + "/mosquitto.conf") == 0)
        #expect(try owner(broker + "/mosquitto.log") == 0)
        #expect(try kind(broker + "/state") == .typeDirectory)
        #expect(try owner(broker + "/state") == mosquitto.pw_uid)
        #expect(victims.unchanged(), "root's file and folder are as they were")

        // A device still gets its push through that broker.
        let scene = try await world.subscribedMember()
        let device = try await world.connectedDevice(scene.endpoint)
        let received = ReceivedMessages(device)
        try await world.push(scene.topic, token: scene.owner.token, message: "as mosquitto")
        #expect(await received.wait(for: 1).first?.object["msg"]?.stringValue == "as mosquitto")
        device.shutdown()
        try await world.stop()
        #expect(victims.unchanged())
    }

    @Test(
        "Its account can write neither the config nor the log, and a broker it crashes comes back as mosquitto with a fresh config"
    )
    func hostileBrokerRestarts() async throws {
        let victims = try Victims()
        defer { victims.remove() }
        let world = try await PushWorld.started(embedded: true)
        let broker = world.directory + "/broker"
        let first = try await world.embeddedBrokerPID()
        #expect(try uid(of: first) == mosquitto.pw_uid)
        // As mosquitto: every way to change what root reads or appends to is refused.
        for script in [
            "echo 'user root' >> \(broker)/mosquitto.conf",
            "ln -sf \(victims.file) \(broker)/mosquitto.log",
            "rm -f \(broker)/mosquitto.log",
            "ln -s \(victims.file) \(broker)/mosquitto.conf.new",
            "cp /dev/null \(broker)/mqtt-secret",
        ] {
            #expect(try await asMosquitto(script) != 0, "mosquitto may not: \(script)")
        }
        // What it may write: its own state folder.
        #expect(try await asMosquitto("touch \(broker)/state/scratch") == 0)

        // Something changed the config anyway (root, by hand); the broker crashes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: broker + "/mosquitto.conf"))
        handle.seekToEndOfFile()
        handle.write(Data("user root\n".utf8))
        try handle.close()
        kill(first, SIGKILL)
        var second = first
        for _ in 0..<200 where second == first || kill(second, 0) != 0 {
            try await Task.sleep(for: .milliseconds(50))
            second = (try? await world.embeddedBrokerPID()) ?? first
        }
        #expect(second != first, "the gateway restarted its broker")
        #expect(try uid(of: second) == mosquitto.pw_uid, "the restarted broker runs as mosquitto")
        let config = try String(contentsOfFile: broker + "/mosquitto.conf", encoding: .utf8)
        #expect(!config.contains("user root"), "the config is rendered anew before each start")
        #expect(victims.unchanged())
        try await world.stop()
    }

    @Test("As root, a template, data folder or secret file other users may write is refused with a clear message")
    func worldWritableRefused() async throws {
        let folder = TestFolder.url.appendingPathComponent("tg-ww-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        // A template every user may write.
        let template = folder + "/mosquitto.conf"
        try FileManager.default.copyItem(
            atPath: BrokerProcess.repository.appendingPathComponent("broker-config/mosquitto.conf").path,
            toPath: template)
        chmod(template, 0o666)
        var output = try await failedStart(folder + "/a", ["--broker-config", template])
        #expect(output.contains("The broker template \(template) is writable by every user"), "\(output)")

        // A data folder every user may write.
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        chmod(folder + "/b", 0o777)
        output = try await failedStart(folder + "/b", [])
        #expect(output.contains("The data folder \(folder)/b is writable by every user"), "\(output)")

        // A secret of another user's (it could have swapped it for one it knows).
        try FileManager.default.createDirectory(
            atPath: folder + "/c", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let secret = folder + "/c/mqtt-secret"
        _ = FileManager.default.createFile(
            atPath: secret, contents: Data(String(repeating: "ab", count: 32).utf8),
            attributes: [.posixPermissions: 0o600])
        chown(secret, mosquitto.pw_uid, mosquitto.pw_gid)
        output = try await failedStart(folder + "/c", [])
        #expect(output.contains("The MQTT secret \(secret) belongs to uid \(mosquitto.pw_uid), not root"), "\(output)")
        // And one every user may write.
        chown(secret, 0, 0)
        chmod(secret, 0o602)
        output = try await failedStart(folder + "/c", [])
        #expect(output.contains("The MQTT secret \(secret)") && output.contains("chmod 600"), "\(output)")
    }

    /// `topicgate serve` on `directory` with an embedded broker and `arguments`, which must
    /// exit with an error before it serves: what it printed.
    func failedStart(_ directory: String, _ arguments: [String]) async throws -> String {
        let server = ServerProcess(dataDirectory: directory, arguments: arguments)
        await #expect(throws: TestFailure.self) { try await server.start() }
        let output = try String(contentsOfFile: server.outputPath, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: server.outputPath)
        return output
    }

    /// Runs `script` with `sh` as the mosquitto account: its exit status.
    func asMosquitto(_ script: String) async throws -> Int32 {
        let process = try ChildProcess.spawn(
            executable: "/usr/sbin/runuser", arguments: ["-u", "mosquitto", "--", "/bin/sh", "-c", script])
        return await process.exit()
    }

    /// The effective uid of process `pid`.
    func uid(of pid: pid_t) throws -> uid_t {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let fields = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(whereSeparator: \.isWhitespace)
        return try #require(fields.flatMap { $0.count > 2 ? uid_t($0[2]) : nil })
    }

    /// The owner of `path` itself (a link's own, not its target's).
    func owner(_ path: String) throws -> uid_t {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.ownerAccountID] as? NSNumber).uint32Value
    }

    func kind(_ path: String) throws -> FileAttributeType? {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    }
}

/// A file and a folder of root's that a hostile broker account points its links at, with
/// what they were: a test checks that nothing wrote to them.
struct Victims {
    let file: String
    let folder: String
    let contents = "root's own file\n"

    init() throws {
        let base = TestFolder.url.appendingPathComponent("tg-victim-\(UUID().uuidString)").path
        file = base + ".txt"
        folder = base
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
    }

    /// True when the file holds what it did, is still root's with its mode, and the folder is
    /// still empty and root's.
    func unchanged() -> Bool {
        func ownerAndMode(_ path: String) -> [Int] {
            let attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
            return [
                (attributes[.ownerAccountID] as? NSNumber)?.intValue ?? -1,
                (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1,
            ]
        }
        return (try? String(contentsOfFile: file, encoding: .utf8)) == contents && ownerAndMode(file) == [0, 0o644]
            && ownerAndMode(folder) == [0, 0o755]
            && ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? ["?"]).isEmpty
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: file)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
