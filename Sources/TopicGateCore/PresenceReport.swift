/// What TopicGate's broker plugin reports on `topicgate/presence`: a device's first session
/// began, its last one ended, or (when the gateway asks) one part of the list of connected
/// devices; and on `topicgate/presence/changes`, to gateways that asked what it can do, the
/// changes of one turn of the broker's loop in one message. Devices are named by their MQTT
/// username, their installation's MQTT topic.
public enum PresenceReport: Sendable, Hashable {
    /// The plugin's topic (only the gateway's account may read it).
    public static let topic = "topicgate/presence"
    /// The plugin's topic for changes gathered in one message.
    public static let changesTopic = "topicgate/presence/changes"

    /// A device's first session began (`connected`), or its last one ended.
    public struct Change: Sendable, Hashable {
        public let username: String
        public let connected: Bool

        public init(username: String, connected: Bool) {
            self.username = username
            self.connected = connected
        }
    }

    case connected(String)
    case disconnected(String)
    /// Part `part` of `parts` of the usernames connected when the gateway asked.
    case snapshot(usernames: [String], part: Int, parts: Int)
    /// Changes in the order they happened.
    case changes([Change])

    /// `{"connected":"u"}`, `{"disconnected":"u"}`, `{"snapshot":[…],"part":1,"parts":N}` or
    /// `{"changes":["+u","-v",…]}`; nil for anything else.
    public init?(payload: [UInt8]) {
        guard let object = try? JSONReader.object(payload) else { return nil }
        if let changes = object["changes"]?.arrayValue {
            self = .changes(
                changes.compactMap { change in
                    guard let text = change.stringValue, let sign = text.first, sign == "+" || sign == "-",
                        text.count > 1
                    else { return nil }
                    return Change(username: String(text.dropFirst()), connected: sign == "+")
                })
        } else if let username = object["connected"]?.stringValue {
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
