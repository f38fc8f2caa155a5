/// The body of `PUT …/things/{id}/vendor-thing-id` (`VendorThingIDUpdateRequest+json`): the
/// thing's new vendor thing ID and its new password, both required (how a replaced device takes
/// over a thing).
public struct VendorThingIDChangeRequest: JSONRequestBody, Hashable {
    public var vendorThingID: String
    /// As given: checked against the thing password rule when it is set.
    public var password: String

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let vendorThingID = body["_vendorThingID"]?.stringValue else {
            throw KiiError.invalidInput("'_vendorThingID' is required.", field: "_vendorThingID")
        }
        self.vendorThingID = try IdentityRules.vendorThingID(vendorThingID)
        guard let password = body["_password"]?.stringValue else {
            throw KiiError.invalidInput("'_password' is required.", field: "_password")
        }
        self.password = password
    }
}
