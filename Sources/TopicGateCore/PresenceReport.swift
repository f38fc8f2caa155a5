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
        if let changes = Self.plainChanges(payload) {
            self = .changes(changes)
            return
        }
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

    /// The changes of `{"changes":["+u","-v",…]}` written as the plugin writes it (no spaces, no
    /// escapes, no empty names), read straight from the bytes: in a storm of connects each
    /// message names hundreds. nil for anything else, which the general reader then reads.
    static func plainChanges(_ payload: [UInt8]) -> [Change]? {
        let opening = Array(#"{"changes":["#.utf8)
        guard payload.count >= opening.count + 2, payload.starts(with: opening) else { return nil }
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var changes: [Change] = []
        var at = opening.count
        if payload[at] == UInt8(ascii: "]") {
            return at + 2 == payload.count && payload[at + 1] == UInt8(ascii: "}") ? [] : nil
        }
        while true {
            guard at + 3 < payload.count, payload[at] == quote else { return nil }
            let sign = payload[at + 1]
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            let start = at + 2
            var end = start
            while end < payload.count, payload[end] != quote {
                if payload[end] == backslash || payload[end] < 0x20 { return nil }
                end += 1
            }
            guard end > start, end < payload.count,
                let username = String(validating: payload[start..<end], as: UTF8.self)
            else { return nil }
            changes.append(Change(username: username, connected: sign == UInt8(ascii: "+")))
            at = end + 1
            guard at < payload.count else { return nil }
            if payload[at] == UInt8(ascii: ",") {
                at += 1
            } else if payload[at] == UInt8(ascii: "]") {
                return at + 2 == payload.count && payload[at + 1] == UInt8(ascii: "}") ? changes : nil
            } else {
                return nil
            }
        }
    }
}
