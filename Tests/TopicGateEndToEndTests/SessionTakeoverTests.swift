import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// A device's client ID must be its username: valid credentials under another client ID are
/// refused at CONNECT, so no device can take over another's session (which would disconnect it
/// and receive what waits in its queue).
@Suite("Broker: a device cannot take another's session")
struct SessionTakeoverTests {
    @Test("A's valid credentials with B's client ID, or any other client ID: refused, and B stays connected")
    func clientIDMustBeUsername() async throws {
        let world = try await PushWorld.started()
        let a = try await world.pseudoUser()
        let b = try await world.pseudoUser()
        let endpointA = try await world.install(token: a.token)
        let endpointB = try await world.install(token: b.token)
        let victim = try await world.connectedDevice(endpointB, cleanSession: false)
        defer { victim.shutdown() }
        var events = victim.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        let received = ReceivedMessages(victim)

        for clientID in [endpointB.topic, endpointA.topic + "x", "anything"] {
            let impostor = try MQTTClient(
                configuration: MQTTClientConfiguration(
                    host: endpointA.host, port: endpointA.portTCP, clientID: clientID, username: endpointA.username,
                    password: endpointA.password, cleanSession: false))
            await #expect(throws: MQTTError.self, "client ID \(clientID)") {
                try await impostor.connect(timeout: .seconds(5))
            }
            impostor.shutdown()
        }
        // The same credentials under their own client ID connect: the refusals were the client ID's.
        let own = try await world.connectedDevice(endpointA)
        own.shutdown()
        // B is still connected (a reconnect would take it a second), and a push to B reaches it.
        #expect(victim.isConnected)
        let marker = try await world.marker(to: b)
        #expect(await received.before(marker: marker) == [])
        try await world.stop()
    }
}
