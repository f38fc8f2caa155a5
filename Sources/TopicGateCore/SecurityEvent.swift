/// One line of an app's security audit trail: account links made, rotated, used and removed,
/// failed and locked logins, principals disabled or enabled, idle pseudo users removed, tokens
/// revoked.
public struct SecurityEvent: Sendable, Hashable, JSONRepresentable {
    /// What happened.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let linkCreated = Self(rawValue: "LINK_CREATED")
        public static let linkRepeated = Self(rawValue: "LINK_REPEATED")
        public static let linkRotated = Self(rawValue: "LINK_ROTATED")
        public static let linkRefused = Self(rawValue: "LINK_REFUSED")
        public static let linkDeleted = Self(rawValue: "LINK_DELETED")
        public static let linkLogin = Self(rawValue: "LINK_LOGIN")
        public static let linkLoginFailed = Self(rawValue: "LINK_LOGIN_FAILED")
        public static let linkLoginLocked = Self(rawValue: "LINK_LOGIN_LOCKED")
        public static let loginFailed = Self(rawValue: "LOGIN_FAILED")
        public static let loginLocked = Self(rawValue: "LOGIN_LOCKED")
        public static let userDisabled = Self(rawValue: "USER_DISABLED")
        public static let userEnabled = Self(rawValue: "USER_ENABLED")
        public static let thingDisabled = Self(rawValue: "THING_DISABLED")
        public static let thingEnabled = Self(rawValue: "THING_ENABLED")
        public static let pseudoUserRemoved = Self(rawValue: "PSEUDO_USER_REMOVED")
        public static let tokenRevoked = Self(rawValue: "TOKEN_REVOKED")
    }

    public var at: UnixMillis
    public var appID: AppID
    public var kind: Kind
    /// Who acted: a principal's description, or `anonymous` for a call without a token.
    public var actor: String
    /// The user or thing it is about, when known.
    public var subjectID: String?
    /// For link events: `provider:externalID`; for logins: the login name given.
    public var account: String?
    public var clientAddress: String?
    public var detail: String

    public init(
        at: UnixMillis, appID: AppID, kind: Kind, actor: String, subjectID: String? = nil, account: String? = nil,
        clientAddress: String? = nil, detail: String = ""
    ) {
        self.at = at
        self.appID = appID
        self.kind = kind
        self.actor = actor
        self.subjectID = subjectID
        self.account = account
        self.clientAddress = clientAddress
        self.detail = detail
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "at": at.json, "event": .string(kind.rawValue), "actor": .string(actor), "detail": .string(detail),
        ]
        if let subjectID { object["subjectID"] = .string(subjectID) }
        if let account { object["account"] = .string(account) }
        if let clientAddress { object["clientAddress"] = .string(clientAddress) }
        return .object(object)
    }
}
