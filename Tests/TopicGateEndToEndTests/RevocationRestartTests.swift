import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// A revocation outlives the broker: a deleted installation's credentials, still validly
/// signed, are refused by a broker killed with SIGKILL and started again, on every attempt from
/// the first on, before and after the gateway has reconnected and sent its revocations again.
@Suite("Revocations across a broker restart")
struct RevocationRestartTests {
    /// A device connected, then its installation deleted: kicked, and written down in the
    /// plugin's revocation file. Its endpoint.
    static func revokedDevice(in world: PushWorld) async throws -> PushWorld.Endpoint {
        let user = try await world.pseudoUser()
        let endpoint = try await world.install(token: user.token)
        let device = try await world.connectedDevice(endpoint)
        var events = device.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        try await world.call(.delete, "\(world.app)/installations/\(endpoint.installationID)", token: user.token)
            .expect(.noContent)
        #expect(await events.next() == .disconnected(expected: false))
        device.shutdown()
        #expect(try await eventually { revokedUntil(endpoint.username, in: world) != nil })
        return endpoint
    }

    /// Until when the plugin's revocation file (`<username> <expiresAt>` lines) refuses
    /// `username`; nil when the file does not name it.
    static func revokedUntil(_ username: String, in world: PushWorld) -> Int64? {
        let text = (try? String(contentsOfFile: world.broker.directory + "/revocations", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, String(fields[0]) == username { return Int64(fields[1]) }
        }
        return nil
    }

    @Test("Delete an installation, kill -9 the broker, restart it: the credentials are refused every time")
    func refusedFromTheFirstConnect() async throws {
        let world = try await PushWorld.started()
        let endpoint = try await Self.revokedDevice(in: world)

        world.broker.send(signal: SIGKILL)
        try await world.broker.stop(signal: SIGKILL)
        try await world.broker.start()
        // Right away, before the gateway is back on this broker, and on for a few seconds: at
        // least three attempts (under the whole suite's load one attempt can take the seconds).
        var attempts = 0
        let until = ContinuousClock.now + .seconds(4)
        while attempts < 3 || ContinuousClock.now < until {
            let client = try world.device(endpoint)
            attempts += 1
            let refusal = await #expect(throws: MQTTError.self, "attempt \(attempts) was let in") {
                try await client.connect(timeout: .seconds(15))
            }
            // Refused as not authorised (CONNACK 5), not a timeout or a broker still starting.
            #expect(refusal?.code == .connectionRefused && refusal?.returnCode == 5, "\(String(describing: refusal))")
            client.shutdown()
            try await Task.sleep(for: .milliseconds(200))
        }
        // A device that was not revoked connects as ever.
        let other = try await world.pseudoUser()
        let fresh = try await world.connectedDevice(try await world.install(token: other.token))
        fresh.shutdown()
        try await world.stop()
    }

    @Test(
        "The plugin's file deleted while the broker is down: the gateway sends its revocations again on reconnect, and the credentials are refused"
    )
    func resentOnReconnect() async throws {
        let world = try await PushWorld.started()
        try await world.stopping {
            let endpoint = try await Self.revokedDevice(in: world)
            let file = world.broker.directory + "/revocations"

            // The broker dies and comes back without the plugin's file: only the gateway knows.
            try await world.broker.stop(signal: SIGKILL)
            try FileManager.default.removeItem(atPath: file)
            #expect(try await eventually { try await world.call(.get, "/ready").status == .serviceUnavailable })
            try await world.broker.start()
            // The plugin writes its file again when the revocation arrives: the gateway re-sent it.
            #expect(
                try await eventually(timeout: .seconds(30)) { Self.revokedUntil(endpoint.username, in: world) != nil })
            let client = try world.device(endpoint)
            let refusal = await #expect(throws: MQTTError.self) { try await client.connect(timeout: .seconds(5)) }
            #expect(refusal?.code == .connectionRefused && refusal?.returnCode == 5, "\(String(describing: refusal))")
            client.shutdown()
        }
    }

    @Test(
        "An endpoint request racing the installation's deletion hands out no credentials the broker would take: 404, or a password refused and covered by the revocation"
    )
    func endpointRacingRevocation() async throws {
        let world = try await PushWorld.started()
        try await world.stopping {
            var (handedOut, refusedAtOnce) = (0, 0)
            for _ in 0..<20 {
                let user = try await world.pseudoUser()
                let endpoint = try await world.install(token: user.token)
                let path = "\(world.app)/installations/\(endpoint.installationID)"
                async let asked = world.call(.get, "\(path)/mqtt-endpoint", token: user.token)
                async let deleted = world.call(.delete, path, token: user.token)
                let (answer, deletion) = try await (asked, deleted)
                #expect(deletion.status == .noContent)
                guard answer.status == .ok else {
                    #expect(answer.status == .notFound && answer.object["errorCode"] == "INSTALLATION_NOT_FOUND")
                    refusedAtOnce += 1
                    continue
                }
                handedOut += 1
                // Handed out before the revocation: the revocation must outlast this password.
                let password = try #require(answer.object["password"]?.stringValue)
                let expiry = try #require(Int64(password.split(separator: ".")[1]))
                #expect(try await eventually { Self.revokedUntil(endpoint.username, in: world) != nil })
                #expect(
                    (Self.revokedUntil(endpoint.username, in: world) ?? 0) >= expiry,
                    "the revocation ends before the password it raced")
                let device = try world.device(endpoint, password: password)
                let refusal = await #expect(throws: MQTTError.self) { try await device.connect(timeout: .seconds(5)) }
                #expect(refusal?.code == .connectionRefused && refusal?.returnCode == 5)
                device.shutdown()
            }
            print("endpoint requests racing a deletion: \(handedOut) answered first, \(refusedAtOnce) refused")
        }
    }
}
