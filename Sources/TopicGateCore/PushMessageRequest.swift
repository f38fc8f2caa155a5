/// A `SendPushMessageRequest` body, validated: `data` is a flat object (strings, numbers,
/// booleans, null); the channel sections `gcm`, `fcm`, `apns`, `jpush`, `mqtt` are optional
/// objects whose `enabled` is a boolean; `mqtt.data`, when given, replaces `data` on MQTT;
/// the `send*` flags (`sendSender`, `sendWhen`, `sendTopicID`, `sendObjectScope`, `sendAppID`,
/// `sendOrigin`) are booleans and default to true. Neither data object may carry a key of
/// `reservedKeys`.
public struct PushMessageRequest: JSONRequestBody, Hashable {
    public var data: [String: JSONValue]
    public var mqttData: [String: JSONValue]?
    public var mqttEnabled: Bool
    public var flags: Set<String>

    /// Keys a receiver reads as Kii's own (who sent it, from where, which push, which
    /// command): `data` may not carry them, whatever the `send*` flags say, so that a sender
    /// can never forge them.
    public static let reservedKeys: Set<String> = [
        "sender", "origin", "when", "topic", "appID", "objectScopeAppID", "objectScopeUserID", "objectScopeGroupID",
        "objectScopeThingID", "objectScopeType", "type", "bucketID", "bucketType", "objectID", "pushMessageID",
        "commandID",
    ]

    public static let flagNames = [
        "sendSender", "sendWhen", "sendTopicID", "sendObjectScope", "sendAppID", "sendOrigin",
    ]

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let data = body["data"] else {
            throw KiiError.invalidInput("A push message needs a 'data' object.", field: "data")
        }
        self.data = try Self.flat(data, field: "data")
        var mqttEnabled = true
        var mqttData: [String: JSONValue]?
        for channel in ["gcm", "fcm", "apns", "jpush", "mqtt"] {
            guard let section = body[channel], !section.isNull else { continue }
            guard let object = section.objectValue else {
                throw KiiError.invalidInput("'\(channel)' must be an object.", field: channel)
            }
            if let enabled = object["enabled"], enabled.boolValue == nil {
                throw KiiError.invalidInput("'\(channel).enabled' must be a boolean.", field: "\(channel).enabled")
            }
            if channel == "mqtt" {
                mqttEnabled = object["enabled"]?.boolValue ?? true
                if let channelData = object["data"], !channelData.isNull {
                    mqttData = try Self.flat(channelData, field: "mqtt.data")
                }
            }
        }
        self.mqttEnabled = mqttEnabled
        self.mqttData = mqttData
        var flags = Set(Self.flagNames)
        for name in Self.flagNames {
            guard let value = body[name], !value.isNull else { continue }
            guard let flag = value.boolValue else {
                throw KiiError.invalidInput("'\(name)' must be a boolean.", field: name)
            }
            if !flag { flags.remove(name) }
        }
        self.flags = flags
    }

    static func flat(_ value: JSONValue, field: String) throws(KiiError) -> [String: JSONValue] {
        guard let object = value.objectValue else {
            throw KiiError.invalidInput("'\(field)' must be an object.", field: field)
        }
        for (key, member) in object {
            if reservedKeys.contains(key) {
                throw KiiError.invalidInput(
                    "'\(field).\(key)' is reserved: '\(key)' is a field the receiver reads as Kii's own.", field: field)
            }
            switch member {
            case .object, .array:
                throw KiiError.invalidInput(
                    "'\(field).\(key)' must be a string, number or boolean: data is flat.", field: field)
            default: break
            }
        }
        return object
    }
}
