import TopicGateCore

/// One operation of the HTTP API as the OpenAPI document describes it: method, path (OpenAPI
/// form, `{name}` for a path parameter), what it is for, who may call it, its query
/// parameters, its body and its success statuses. Every operation also answers Kii errors
/// (`{"errorCode","message",…}`), described once.
struct APIOperation: Sendable {
    /// How a caller authenticates; an operation lists those it accepts.
    enum Credential: String, Sendable, CaseIterable {
        /// `Authorization: Bearer <token>` (a user, thing, admin or anonymous token).
        case bearer
        /// `Authorization: Basic base64(appID:appKey)` (anonymous) or
        /// `base64(clientID:clientSecret)` (the admin).
        case basic
        /// No credentials.
        case none
    }

    /// A request body: its media types (any JSON-ish type is read the same way) and schema.
    struct Body: Sendable {
        let mediaTypes: [String]
        let schema: JSONValue
        var required = true
    }

    /// A query parameter: its name and schema.
    typealias Query = (name: String, schema: JSONValue)

    let method: String
    let path: String
    let summary: String
    let tag: String
    let credentials: [Credential]
    var query: [Query] = []
    var body: Body?
    /// Success statuses: 200, 201 and 204 are the usual ones.
    var success: [Int]
    /// The media type of a success body.
    var successMediaType = "application/json"

    /// The path parameters, in order.
    var pathParameters: [String] {
        path.split(separator: "/").compactMap { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? String(part.dropFirst().dropLast()) : nil
        }
    }
}

extension [APIOperation.Credential] {
    /// Whoever calls: an API route authenticates what it is given, then decides.
    static let anyone: Self = [.bearer, .basic, .none]
    /// The app's admin: its token, or its client ID and secret.
    static let admin: Self = [.bearer, .basic]
    /// No credentials are read.
    static let unauthenticated: Self = [.none]
}
