/// The body of `PUT …/targets/thing:{id}/states` (and a payload on `<mqttTopic>/state`): a
/// thing's state, any non-empty JSON object.
public struct StateReportRequest: JSONRequestBody, Hashable {
    public var state: [String: JSONValue]

    public init(body: [String: JSONValue]) throws(KiiError) {
        state = try ThingStateRecord.validate(body.isEmpty ? nil : .object(body))
    }

    /// A state as published over MQTT: the payload's JSON, if it is any.
    public init(payload: JSONValue?) throws(KiiError) {
        state = try ThingStateRecord.validate(payload)
    }
}
