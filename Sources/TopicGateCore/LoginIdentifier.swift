/// The `username` of a password grant: whose password is being presented.
///
/// Kii accepts a bare login name, email address or `+phone`, and the qualified forms
/// `LOGIN_NAME:`, `EMAIL:`, `PHONE:` and, for things, `VENDOR_THING_ID:` (prefixes are
/// matched case-insensitively).
public enum LoginIdentifier: Sendable, Hashable, CustomStringConvertible {
    case loginName(String)
    case emailAddress(String)
    case phoneNumber(String)
    case vendorThingID(String)

    /// Reads `username`; nil when it is empty.
    public init?(username: String) {
        guard !username.isEmpty else { return nil }
        if let (prefix, rest) = Self.split(username) {
            switch prefix {
            case "LOGIN_NAME": self = .loginName(rest)
            case "EMAIL": self = .emailAddress(rest.lowercased())
            case "PHONE": self = .phoneNumber(Self.normalizedPhone(rest))
            case "VENDOR_THING_ID": self = .vendorThingID(rest)
            default: self = .loginName(username)
            }
        } else if username.contains("@") {
            self = .emailAddress(username.lowercased())
        } else if username.hasPrefix("+") {
            self = .phoneNumber(Self.normalizedPhone(username))
        } else {
            self = .loginName(username)
        }
    }

    static func split(_ text: String) -> (String, String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (text[..<colon].uppercased(), String(text[text.index(after: colon)...]))
    }

    /// An international number loses its spaces and dashes, as `IdentityRules.phoneNumber`
    /// stores it; Unity's local form (`JP-09012345678`) is kept as it is.
    static func normalizedPhone(_ text: String) -> String {
        text.hasPrefix("+") ? text.filter { $0 != " " && $0 != "-" } : text
    }

    /// The qualified form (`LOGIN_NAME:…`, `EMAIL:…`, `PHONE:…`, `VENDOR_THING_ID:…`).
    public var description: String {
        switch self {
        case .loginName(let value): "LOGIN_NAME:\(value)"
        case .emailAddress(let value): "EMAIL:\(value)"
        case .phoneNumber(let value): "PHONE:\(value)"
        case .vendorThingID(let value): "VENDOR_THING_ID:\(value)"
        }
    }
}
