/// How a path names a user: `me`, its ID, or a qualified address
/// (`LOGIN_NAME:`, `EMAIL:`, `PHONE:`).
public enum UserReference: Sendable, Hashable {
    case me
    case id(UserID)
    case address(LoginIdentifier)

    /// Reads a path segment; nil when it names nothing a user can be found by.
    public init?(pathSegment segment: String) {
        if segment == "me" {
            self = .me
        } else if segment.contains(":") {
            guard let identifier = LoginIdentifier(username: segment), case .some = Self.userAddress(identifier) else {
                return nil
            }
            self = .address(identifier)
        } else if IDSyntax.isWellFormed(segment) {
            self = .id(UserID(segment))
        } else {
            return nil
        }
    }

    static func userAddress(_ identifier: LoginIdentifier) -> LoginIdentifier? {
        if case .vendorThingID = identifier { return nil }
        return identifier
    }
}
