/// The fields of a user that carry no identity: display name, country, locale and the app's
/// own custom fields.
public struct UserProfile: Sendable, Hashable {
    public var displayName: String?
    public var country: String?
    public var locale: String?
    public var customFields: [String: JSONValue]

    public init(
        displayName: String? = nil, country: String? = nil, locale: String? = nil,
        customFields: [String: JSONValue] = [:]
    ) {
        self.displayName = displayName
        self.country = country
        self.locale = locale
        self.customFields = customFields
    }

    /// This profile with the fields of `update` laid over it.
    public func merging(_ update: UserProfile) -> UserProfile {
        UserProfile(
            displayName: update.displayName ?? displayName,
            country: update.country ?? country,
            locale: update.locale ?? locale,
            customFields: customFields.merging(update.customFields) { _, new in new }
        )
    }
}
