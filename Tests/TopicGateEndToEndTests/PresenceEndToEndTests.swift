import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Devices online: the broker plugin reports each device's first session and the end of its
/// last one to the gateway, and answers who is connected when the gateway (re)connects.
@Suite("Devices online, as the broker plugin reports them")
struct PresenceEndToEndTests {
    @Test(
        "Online while connected, counted for its app; a refused impostor changes nothing; offline with a last-seen time after it leaves, kept across a gateway restart; right again after the gateway restarts; offline when its installation is deleted"
    )
    func presence() async throws {
        let world = try await PushWorld.started()
        let dora = try await world.normalUser("dora")
        let endpoint = try await world.install(token: dora.token)
        let admin = try await world.adminToken()
        /// Dora's device as the principal page sees it.
        func device() async throws -> [String: JSONValue] {
            try await world.installation(endpoint.installationID, of: "user:\(dora.id)", admin: admin)
        }
        func devicesOnline() async throws -> Int64? {
            try await world.call(.get, "\(world.app)/overview", token: admin).expect(.ok).object["devicesOnline"]?
                .intValue
        }
        #expect(try await device()["online"] == false)
        #expect(try await device()["lastSeen"] == nil)

        let client = try await world.connectedDevice(endpoint)
        #expect(try await eventually { try await device()["online"] == true })
        // Counted for its app once the gateway looked its app up (every 2 s).
        #expect(try await eventually { try await devicesOnline() == 1 })

        // Someone offers the device's username and client ID with a wrong password: refused,
        // and the device stays online.
        let impostor = try world.device(endpoint, password: "wrong-password")
        let refusal = await #expect(throws: MQTTError.self) { try await impostor.connect(timeout: .seconds(5)) }
        #expect(refusal?.code == .connectionRefused && refusal?.returnCode == 5, "\(String(describing: refusal))")
        impostor.shutdown()
        // A marker: a second device of Dora's connects after the refusal; once the gateway
        // counts it, any report the refusal made would have come before.
        let marker = try await world.connectedDevice(try await world.install(token: dora.token))
        #expect(try await eventually { try await devicesOnline() == 2 })
        #expect(try await device()["online"] == true)
        marker.shutdown()
        #expect(try await eventually { try await devicesOnline() == 1 })

        // It leaves: offline, last seen when it left.
        let beforeLeaving = Int64(Date().timeIntervalSince1970 * 1000) - 1000
        client.shutdown()
        #expect(try await eventually { try await device()["online"] == false })
        let lastSeen = try await device()["lastSeen"]?.intValue ?? 0
        #expect(lastSeen >= beforeLeaving)
        // The time is written to its installation: a restarted gateway still knows it.
        _ = try await world.server.stop(signal: SIGTERM)
        try await world.server.start()
        #expect(try await device()["online"] == false)
        #expect(try await device()["lastSeen"]?.intValue == lastSeen)

        // Back again, then the gateway restarts: it asks the broker who is connected.
        let again = try await world.connectedDevice(endpoint)
        #expect(try await eventually { try await device()["online"] == true })
        _ = try await world.server.stop(signal: SIGTERM)
        try await world.server.start()
        #expect(try await eventually { try await device()["online"] == true })
        #expect(try await eventually { try await devicesOnline() == 1 })

        // Its installation is deleted: the plugin kicks it, and it is no longer online.
        try await world.call(.delete, "\(world.app)/installations/\(endpoint.installationID)", token: dora.token)
            .expect(.noContent)
        #expect(try await eventually { try await devicesOnline() == 0 })
        again.shutdown()
        try await world.stop()
    }
}
