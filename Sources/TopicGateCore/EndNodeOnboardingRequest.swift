/// The body of `POST /thing-if/apps/{appID}/onboardings` that onboards an end node through its
/// gateway (`OnboardingEndNodeWithGatewayThingID+json` with `gatewayThingID`, or
/// `…WithGatewayVendorThingID+json` with `gatewayVendorThingID`): the end node's vendor thing
/// ID and password, its owner (its gateway's owners when left out), and the fields a new end
/// node gets (`endNodeThingType`, `endNodeFirmwareVersion`, `endNodeThingProperties`).
public struct EndNodeOnboardingRequest: Sendable, Hashable {
    public var gateway: ThingReference
    public var vendorThingID: String
    public var password: String
    public var owner: Owner?
    /// What a new end node is registered with; its layout position is always END_NODE.
    public var fields: ThingFields

    public init(gatewayByVendorThingID: Bool, body: [String: JSONValue]) throws(KiiError) {
        if gatewayByVendorThingID {
            gateway = .vendorThingID(try OnboardingRequest.string(body, "gatewayVendorThingID"))
        } else {
            let id = try OnboardingRequest.string(body, "gatewayThingID")
            guard IDSyntax.isWellFormed(id) else {
                throw KiiError.invalidInput("'gatewayThingID' is not a thing ID.", field: "gatewayThingID")
            }
            gateway = .id(ThingID(id))
        }
        vendorThingID = try OnboardingRequest.string(body, "endNodeVendorThingID")
        password = try OnboardingRequest.string(body, "endNodePassword")
        if let typed = body["owner"], !typed.isNull {
            guard let text = typed.stringValue, let parsed = Owner(parsing: text) else {
                throw KiiError.invalidInput("'owner' must be 'user:ID' or 'group:ID'.", field: "owner")
            }
            owner = parsed
        }
        var fields = ThingFields()
        // kii_go sends the properties as a JSON string; the other SDKs as an object.
        switch body["endNodeThingProperties"] {
        case .object(let object)?: fields = try ThingFields(body: object)
        case .string(let text)?:
            if let object = try? JSONReader.object(Array(text.utf8)) { fields = try ThingFields(body: object) }
        default: break
        }
        for (key, field) in [("endNodeThingType", "_thingType"), ("endNodeFirmwareVersion", "_firmwareVersion")] {
            if let value = body[key], !value.isNull {
                guard let text = value.stringValue else {
                    throw KiiError.invalidInput("'\(key)' must be a string.", field: key)
                }
                try fields.set(field, text)
            }
        }
        try fields.set("_layoutPosition", "END_NODE")
        self.fields = fields
    }
}
