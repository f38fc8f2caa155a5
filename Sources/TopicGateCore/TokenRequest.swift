/// The body of the OAuth2 token endpoint (JSON or a form): a password grant for a user or a
/// thing, or client credentials for the admin (or, with the app ID, an anonymous token), and
/// the optional `expiresAt` a client may ask for.
public struct TokenRequest: JSONRequestBody, Hashable {
    public enum Grant: Sendable, Hashable {
        case password(LoginIdentifier, password: String)
        case clientCredentials(clientID: String, secret: String)
    }

    public var grant: Grant
    /// When the token should expire; nil for never.
    public var expiresAt: UnixMillis?

    public init(body: [String: JSONValue]) throws(KiiError) {
        // Without `grant_type`, a body with `client_id` and no `username` is a client-credentials
        // grant: Kii's JavaScript SDK's `authenticateAsAppAdmin` sends just the client's ID
        // and secret.
        let implied = body["client_id"] != nil && body["username"] == nil ? "client_credentials" : "password"
        let grantType = try Self.optionalString(body, "grant_type") ?? implied
        switch grantType {
        case "password":
            guard let username = try Self.optionalString(body, "username"),
                let password = try Self.optionalString(body, "password"),
                let identifier = LoginIdentifier(username: username)
            else {
                throw KiiError.oauth(.invalidRequest, "A password grant needs 'username' and 'password'.")
            }
            grant = .password(identifier, password: password)
        case "client_credentials":
            guard let clientID = try Self.optionalString(body, "client_id") else {
                throw KiiError.oauth(.invalidRequest, "A client credentials grant needs 'client_id'.")
            }
            grant = .clientCredentials(clientID: clientID, secret: try Self.optionalString(body, "client_secret") ?? "")
        default:
            throw KiiError.oauth(.unsupportedGrantType, "The grant type '\(grantType)' is not supported.")
        }
        expiresAt = try Self.expiresAt(body)
    }

    /// The client ID of a client-credentials grant.
    public var clientID: String? {
        if case .clientCredentials(let clientID, _) = grant { clientID } else { nil }
    }

    static func optionalString(_ body: [String: JSONValue], _ key: String) throws(KiiError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw KiiError.oauth(.invalidRequest, "'\(key)' must be a string.") }
        return text
    }

    /// The optional `expiresAt` (ms since 1970) a client may ask its token to expire at.
    public static func expiresAt(_ body: [String: JSONValue]) throws(KiiError) -> UnixMillis? {
        guard let value = body["expiresAt"], !value.isNull else { return nil }
        guard let millis = value.intValue, millis > 0 else {
            throw KiiError.oauth(.invalidRequest, "'expiresAt' must be a time in milliseconds since 1970.")
        }
        return UnixMillis(millis)
    }
}
