/// What TopicGate's broker plugin reports on `topicgate/presence`: a device's first session
/// began, its last one ended, or (when the gateway asks) one part of the list of connected
/// devices. Devices are named by their MQTT username, their installation's MQTT topic.
public enum PresenceReport: Sendable, Hashable {
    /// The plugin's topic (only the gateway's account may read it).
    public static let topic = "topicgate/presence"

    case connected(String)
    case disconnected(String)
    /// Part `part` of `parts` of the usernames connected when the gateway asked.
    case snapshot(usernames: [String], part: Int, parts: Int)

    /// `{"connected":"u"}`, `{"disconnected":"u"}` or `{"snapshot":[…],"part":1,"parts":N}`;
    /// nil for anything else.
    public init?(payload: [UInt8]) {
        guard let object = try? JSONReader.object(payload) else { return nil }
        if let username = object["connected"]?.stringValue {
            self = .connected(username)
        } else if let username = object["disconnected"]?.stringValue {
            self = .disconnected(username)
        } else if let names = object["snapshot"]?.arrayValue, let part = object["part"]?.intValue,
            let parts = object["parts"]?.intValue, parts >= 1, (1...parts).contains(part)
        {
            self = .snapshot(usernames: names.compactMap(\.stringValue), part: Int(part), parts: Int(parts))
        } else {
            return nil
        }
    }
}
