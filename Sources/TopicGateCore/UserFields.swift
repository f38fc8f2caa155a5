/// The user fields of a registration or update body, read and validated.
///
/// Keys that start with `_` and the read-only keys Kii returns (`userID`, `internalUserID`,
/// `createdAt`, …) are ignored, because the Unity SDK sends the whole user it last read back
/// with an update. Every other key that is not a known field is a custom field.
public struct UserFields: JSONRequestBody, Hashable {
    public var loginName: String?
    public var emailAddress: String?
    public var phoneNumber: String?
    /// As given: checked against the app's password rule when it is set.
    public var password: String?
    public var profile: UserProfile

    /// The keys Kii returns but never takes from a client.
    public static let readOnlyKeys: Set<String> = [
        "userID", "internalUserID", "emailAddressVerified", "phoneNumberVerified", "createdAt", "created",
        "modifiedAt", "modified", "disabled",
    ]

    /// Reads and validates `body`; `INVALID_INPUT_DATA` on bad values (the password is checked
    /// when it is set, against the rule of the deployment).
    public init(body: [String: JSONValue]) throws(KiiError) {
        var custom: [String: JSONValue] = [:]
        var profile = UserProfile()
        for (key, value) in body where !key.hasPrefix("_") && !Self.readOnlyKeys.contains(key) {
            switch key {
            case "loginName": loginName = try IdentityRules.loginName(try Self.string(value, key))
            case "emailAddress": emailAddress = try IdentityRules.emailAddress(try Self.string(value, key))
            case "phoneNumber": phoneNumber = try IdentityRules.phoneNumber(try Self.string(value, key))
            case "password": password = try Self.string(value, key)
            case "displayName": profile.displayName = try IdentityRules.displayName(try Self.string(value, key))
            case "country": profile.country = try IdentityRules.country(try Self.string(value, key))
            case "locale": profile.locale = try Self.string(value, key)
            default: custom[key] = value
            }
        }
        profile.customFields = custom
        self.profile = profile
    }

    /// True when the body names a login name, email address or phone number.
    public var hasIdentity: Bool { loginName != nil || emailAddress != nil || phoneNumber != nil }

    static func string(_ value: JSONValue, _ key: String) throws(KiiError) -> String {
        guard let text = value.stringValue else {
            throw KiiError.invalidInput("The field '\(key)' must be a string.", field: key)
        }
        return text
    }
}
