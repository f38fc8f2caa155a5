/// The body of `POST …/things`: `_vendorThingID`, `_password` and the thing's fields.
public struct ThingRegistrationRequest: JSONRequestBody, Hashable {
    public var vendorThingID: String
    public var password: String
    public var fields: ThingFields

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let vendorValue = body["_vendorThingID"]?.stringValue else {
            throw KiiError.invalidInput("A thing needs '_vendorThingID'.", field: "_vendorThingID")
        }
        guard let passwordValue = body["_password"]?.stringValue else {
            throw KiiError.invalidInput("A thing needs '_password'.", field: "_password")
        }
        vendorThingID = vendorValue
        password = passwordValue
        fields = try ThingFields(body: body)
    }
}
