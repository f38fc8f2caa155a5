/// The token endpoint's answer (RFC 6749 §5.1, with Kii's `id` of whom the token acts as):
/// also the answer of a link login and of an end node's token.
struct TokenGrant: Encodable, Sendable {
    let id: String
    let accessToken: String
    let tokenType: String
    /// Seconds; Kii's "never" is a very large number rather than none.
    let expiresIn: Int64

    enum CodingKeys: String, CodingKey {
        case id
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}
