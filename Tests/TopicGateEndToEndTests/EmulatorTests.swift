import Foundation
import HTTPTypes
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// The two emulators against the real executable and its embedded broker: the README's
/// three-terminal tour, checked.
@Suite("topicgate emulate", .serialized)
struct EmulatorTests {
    /// `topicgate <arguments>` running in the background, its output collected in a file.
    final class Background: @unchecked Sendable {
        let process: ChildProcess
        let outputPath: String

        init(_ arguments: [String], environment: [String: String], outputPath: String) throws {
            self.outputPath = outputPath
            _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
            process = try ChildProcess.spawn(
                executable: ServerProcess.executable.path, arguments: arguments, logPath: outputPath,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        }

        var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

        /// A bound, not a target: on a loaded machine an emulator can take many seconds to start.
        func waitFor(_ text: String, timeout: Duration = .seconds(60)) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if output.contains(text) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        deinit {
            if process.isRunning {
                process.send(SIGTERM)
                _ = process.waitBlocking()
            }
        }
    }

    @Test("thing + phone: the command goes out, its commandID comes back to that phone only, state is published")
    func tour() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-emulate-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let appID = server.appID
        let environment = ["TOPICGATE_URL": "http://127.0.0.1:\(server.port)", "TOPICGATE_APP_ID": appID]

        let thing = try Background(
            ["emulate", "thing", "--vendor-thing-id", "lamp-1", "--password", "lamp-secret", "--state-interval", "1"],
            environment: environment, outputPath: directory + ".thing")
        #expect(try await thing.waitFor("online"), "\(thing.output)")
        let phone = directory + ".phone.json"
        let bystander = try Background(
            ["emulate", "phone", "listen", "--profile", directory + ".bystander.json"], environment: environment,
            outputPath: directory + ".bystander")
        #expect(try await bystander.waitFor("listening"), "\(bystander.output)")

        let (ownStatus, owned, ownErrors) = try await server.runCLI(
            [
                "emulate", "phone", "own", "--profile", phone, "--vendor-thing-id", "lamp-1", "--password",
                "lamp-secret",
            ],
            credentials: environment)
        #expect(ownStatus == 0, "\(ownErrors)")
        #expect(owned.contains("owner of thing th."))
        let (status, output, errors) = try await server.runCLI(
            ["emulate", "phone", "command", "--profile", phone, "--vendor-thing-id", "lamp-1", "--wait", "15"],
            credentials: environment)
        #expect(status == 0, "\(output)\(errors)")
        let commandID = try #require(output.split(separator: " ").dropFirst().first.map(String.init))
        #expect(output.contains(#"push: {"commandID":"\#(commandID)""#))
        #expect(output.contains("DONE"))
        #expect(thing.output.contains("command \(commandID)"))
        #expect(thing.output.contains("results sent"))

        // The same phone is the same user on the next run (its token was kept).
        let profile = try #require(PhoneProfileFile.userID(phone))
        #expect(
            try await server.runCLI(
                ["emulate", "phone", "command", "--profile", phone, "--vendor-thing-id", "lamp-1"],
                credentials: environment
            ).0 == 0)
        #expect(PhoneProfileFile.userID(phone) == profile)

        // The bystander phone received nothing before a marker sent to it after all that; the
        // thing's state reached the server.
        let bystanderUser = (
            id: try #require(PhoneProfileFile.userID(directory + ".bystander.json")),
            token: try #require(PhoneProfileFile.token(directory + ".bystander.json"))
        )
        let marker = try await server.marker(to: bystanderUser)
        #expect(try await bystander.waitFor(marker), "\(bystander.output)")
        #expect(bystander.output.components(separatedBy: "push:").count == 2, "\(bystander.output)")
        #expect(try await thing.waitFor("state:"))
        let token = try #require(PhoneProfileFile.token(phone))
        let thingID = try #require(owned.split(separator: " ").first { $0.hasPrefix("th.") }.map(String.init))
        let statePath = "/thing-if/apps/\(appID)/targets/thing:\(thingID)/states"
        #expect(
            try await eventually(timeout: .seconds(4)) {
                try await server.call(.get, statePath, token: token).status == .ok
            })
        #expect(try await server.call(.get, statePath, token: token).object["power"] != nil)
        try await server.stop(signal: SIGTERM)
    }
}

/// Reads the phone emulator's profile file.
enum PhoneProfileFile {
    static func object(_ path: String) -> [String: JSONValue]? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONReader.object(Array($0)) }
    }
    static func userID(_ path: String) -> String? { object(path)?["userID"]?.stringValue }
    static func token(_ path: String) -> String? { object(path)?["token"]?.stringValue }
}
