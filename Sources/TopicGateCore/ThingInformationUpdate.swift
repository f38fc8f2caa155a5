/// The body of Thing-IF's `PUT …/things/{id}/thing-type` (`ThingTypeUpdateRequest+json`,
/// `{"thingType": …}`) or `PUT …/things/{id}/firmware-version`
/// (`ThingFirmwareVersionUpdateRequest+json`, `{"firmwareVersion": …}`): one of the thing's
/// trait-defining fields.
public struct ThingInformationUpdate: Sendable, Hashable {
    public enum Field: String, Sendable, Hashable {
        case thingType
        case firmwareVersion

        /// The Cloud API's name of the field on the thing.
        public var thingField: String { "_" + rawValue }
    }

    public var field: Field
    public var value: String

    public init(_ field: Field, body: [String: JSONValue]) throws(KiiError) {
        guard let text = body[field.rawValue]?.stringValue, !text.isEmpty else {
            throw KiiError.invalidInput("'\(field.rawValue)' is required and must be a string.", field: field.rawValue)
        }
        var fields = ThingFields()
        try fields.set(field.thingField, text)
        self.field = field
        self.value = text
    }
}
