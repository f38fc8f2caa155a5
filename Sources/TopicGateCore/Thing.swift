/// A thing: a device with its own credentials (vendor thing ID + password), fields and owners.
public struct Thing: Sendable, Hashable {
    public var id: ThingID
    public var appID: AppID
    public var vendorThingID: String
    /// bcrypt hash of the thing password.
    public var passwordHash: String
    public var fields: ThingFields
    public var disabled: Bool
    public var createdAt: UnixMillis
    public var modifiedAt: UnixMillis

    public init(
        id: ThingID, appID: AppID, vendorThingID: String, passwordHash: String, fields: ThingFields,
        disabled: Bool = false, createdAt: UnixMillis, modifiedAt: UnixMillis
    ) {
        self.id = id
        self.appID = appID
        self.vendorThingID = vendorThingID
        self.passwordHash = passwordHash
        self.fields = fields
        self.disabled = disabled
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The thing as Kii's Cloud API returns it (`_thingID`, `_vendorThingID`, …, custom fields).
    public var json: JSONValue {
        var members = fields.values
        members["_thingID"] = .string(id.rawValue)
        members["_vendorThingID"] = .string(vendorThingID)
        members["_created"] = createdAt.json
        members["_modified"] = modifiedAt.json
        members["_disabled"] = .bool(disabled)
        return .object(members)
    }
}
