/// The body of `POST …/installations`, with the quirks of Kii's SDKs: `installationType` for
/// `deviceType` (Embedded-Core), `development` as a bool or the strings "true"/"false" (ebisu).
public struct InstallationRequest: JSONRequestBody, Hashable {
    public var deviceType: String
    public var development: Bool
    public var registrationID: String?
    /// For the admin: the thing or user to install the device for.
    public var thingID: ThingID?
    public var userID: UserID?

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let type = (body["deviceType"] ?? body["installationType"])?.stringValue else {
            throw KiiError.invalidInput("'deviceType' is required.", field: "deviceType")
        }
        guard Installation.deviceTypes.contains(type) else {
            throw KiiError.invalidInput(
                "'deviceType' must be one of \(Installation.deviceTypes.sorted().joined(separator: ", ")).",
                field: "deviceType")
        }
        deviceType = type
        switch body["development"] {
        case nil, .null: development = false
        case .bool(let value): development = value
        case .string(let text) where text.lowercased() == "true": development = true
        case .string(let text) where text.lowercased() == "false": development = false
        default: throw KiiError.invalidInput("'development' must be true or false.", field: "development")
        }
        registrationID = body["installationRegistrationID"]?.stringValue
        if type != "MQTT", registrationID?.isEmpty ?? true {
            throw KiiError.invalidInput(
                "'installationRegistrationID' is required for \(type).", field: "installationRegistrationID")
        }
        if let registrationID, registrationID.utf8.count > 4096 {
            throw KiiError.invalidInput(
                "'installationRegistrationID' is too long.", field: "installationRegistrationID")
        }
        thingID = try Self.id(body["thingID"]?.stringValue, field: "thingID")
        userID = try Self.id(body["userID"]?.stringValue, field: "userID")
    }

    private static func id<Kind>(_ text: String?, field: String) throws(KiiError) -> Identifier<Kind>? {
        guard let text else { return nil }
        guard IDSyntax.isWellFormed(text) else {
            throw KiiError.invalidInput("'\(field)' is not a valid ID.", field: field)
        }
        return Identifier(text)
    }
}
