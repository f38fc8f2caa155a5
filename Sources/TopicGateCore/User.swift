/// A user of an app. A *pseudo user* has no password: its access token is its identity, and
/// it becomes a normal user when it is given an identity (login name, email or phone) and a
/// password.
public struct User: Sendable, Hashable {
    public var id: UserID
    public var appID: AppID
    public var loginName: String?
    public var emailAddress: String?
    public var phoneNumber: String?
    /// bcrypt hash; nil for a pseudo user.
    public var passwordHash: String?
    public var profile: UserProfile
    public var disabled: Bool
    public var createdAt: UnixMillis
    public var modifiedAt: UnixMillis
    /// When the user's token was last used.
    public var lastSeenAt: UnixMillis

    public init(
        id: UserID, appID: AppID, loginName: String? = nil, emailAddress: String? = nil, phoneNumber: String? = nil,
        passwordHash: String? = nil, profile: UserProfile = UserProfile(), disabled: Bool = false,
        createdAt: UnixMillis, modifiedAt: UnixMillis, lastSeenAt: UnixMillis? = nil
    ) {
        self.id = id
        self.appID = appID
        self.loginName = loginName
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.passwordHash = passwordHash
        self.profile = profile
        self.disabled = disabled
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.lastSeenAt = lastSeenAt ?? createdAt
    }

    /// True while the user has no password.
    public var isPseudo: Bool { passwordHash == nil }

    /// How operators know the user: its login name, else its display name (a pseudo user may
    /// have neither).
    public var shownName: String? { loginName ?? profile.displayName }

    /// The user as Kii returns it to the user itself or the admin (`GET /users/me`).
    public var json: JSONValue {
        var members = profile.customFields
        members["userID"] = .string(id.rawValue)
        members["internalUserID"] = .string(id.rawValue)
        if let loginName { members["loginName"] = .string(loginName) }
        if let emailAddress {
            members["emailAddress"] = .string(emailAddress)
            members["emailAddressVerified"] = false
        }
        if let phoneNumber {
            members["phoneNumber"] = .string(phoneNumber)
            members["phoneNumberVerified"] = false
        }
        if let displayName = profile.displayName { members["displayName"] = .string(displayName) }
        if let country = profile.country { members["country"] = .string(country) }
        if let locale = profile.locale { members["locale"] = .string(locale) }
        members["_hasPassword"] = .bool(!isPseudo)
        members["_disabled"] = .bool(disabled)
        members["createdAt"] = createdAt.json
        members["modifiedAt"] = modifiedAt.json
        return .object(members)
    }

    /// What another user of the app may see: ID, login name and display name.
    public var publicJSON: JSONValue {
        var members: [String: JSONValue] = ["userID": .string(id.rawValue)]
        if let loginName { members["loginName"] = .string(loginName) }
        if let displayName = profile.displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }
}
