import Foundation
import MQTTBridge
import TopicGateCore

/// A device's MQTT side, set up exactly as Kii's SDKs do it from an `mqtt-endpoint` answer:
/// client ID = username = mqttTopic, subscribed to its own topic.
struct EmulatedDevice {
    let client: MQTTClient
    let topic: String

    static func connect(endpoint: [String: JSONValue]) async throws -> EmulatedDevice {
        guard let topic = endpoint["mqttTopic"]?.stringValue, let username = endpoint["username"]?.stringValue,
            let password = endpoint["password"]?.stringValue, let host = endpoint["host"]?.stringValue,
            let port = endpoint["portTCP"]?.intValue
        else { throw KiiHTTPError(status: 0, code: "BAD_ENDPOINT", message: "The MQTT endpoint misses a field.") }
        let client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: host, port: Int(port), clientID: topic, username: username, password: password, keepAlive: 60))
        try await client.connect(timeout: .seconds(10))
        try await client.subscribe(topic)
        return EmulatedDevice(client: client, topic: topic)
    }

    /// Prints a line at once (the emulators are watched live, often through a pipe).
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
