import Foundation
public import HTTPTypes

/// Which web pages may call the API from a browser (CORS), and what the browser is told.
///
/// Kii's JavaScript SDK sends its own headers (`X-Kii-AppID`, `X-Kii-AppKey`, `X-Kii-SDK`) and
/// Kii media types on every call, so every call is preflighted; the API uses GET, POST, PUT,
/// PATCH, DELETE and HEAD. Nothing here relies on cookies: callers present bearer tokens, so
/// no request carries ambient credentials and `Access-Control-Allow-Credentials` is never sent.
public struct CrossOriginPolicy: Sendable, Equatable {
    /// The origins allowed, as `scheme://host[:port]`; nil allows every origin (`*`).
    public var allowedOrigins: [String]?

    /// Methods a preflight allows: every method of the API.
    public static let methods = "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"
    /// Request headers allowed beyond the ones a preflight asks for by name (see `preflight`).
    public static let headers =
        "Authorization, Content-Type, Accept, X-Kii-AppID, X-Kii-AppKey, X-Kii-SDK, X-Request-ID, kii-m"
    /// Response headers a page may read.
    public static let exposedHeaders = "Location, Retry-After, X-MQTT-TTL, X-Request-ID, Content-Type, ETag"
    /// Seconds a browser may cache a preflight.
    public static let maxAge = "3600"

    /// Every origin (`--cors-origins '*'`, the default).
    public static let anyOrigin = CrossOriginPolicy(allowedOrigins: nil)

    public init(allowedOrigins: [String]?) {
        self.allowedOrigins = allowedOrigins
    }

    /// `*`, or a comma-separated list of origins. Nil when an entry is not an origin.
    public init?(parsing text: String) {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if entries == ["*"] {
            self = .anyOrigin
            return
        }
        guard !entries.isEmpty, entries.allSatisfy(Self.isOrigin) else { return nil }
        self.init(allowedOrigins: entries.map { $0.lowercased() })
    }

    /// `Access-Control-Allow-Origin` for a request from `origin`; nil when it is not allowed.
    public func allowOrigin(for origin: String) -> String? {
        guard let allowedOrigins else { return "*" }
        return allowedOrigins.contains(origin.lowercased()) ? origin : nil
    }

    /// The headers added to an actual (non-preflight) response for a request from `origin`.
    public func responseFields(origin: String) -> HTTPFields {
        var fields = HTTPFields()
        if allowedOrigins != nil { fields[.vary] = "Origin" }
        guard let allowed = allowOrigin(for: origin) else { return fields }
        fields[.accessControlAllowOrigin] = allowed
        fields[.accessControlExposeHeaders] = Self.exposedHeaders
        return fields
    }

    /// The answer to a preflight from `origin` asking for `requestedHeaders`
    /// (`Access-Control-Request-Headers`): the allowed methods, and the headers the API knows
    /// plus every well-formed header the browser names (a bearer-token API has nothing to
    /// protect by refusing a header). An origin that is not allowed gets no CORS headers, so
    /// the browser refuses the call.
    public func preflightFields(origin: String, requestedHeaders: String?) -> HTTPFields {
        var fields = HTTPFields()
        if allowedOrigins != nil { fields[.vary] = "Origin" }
        guard let allowed = allowOrigin(for: origin) else { return fields }
        fields[.accessControlAllowOrigin] = allowed
        fields[.accessControlAllowMethods] = Self.methods
        let requested = (requestedHeaders ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && HTTPField.Name($0) != nil }
        fields[.accessControlAllowHeaders] = ([Self.headers] + requested).joined(separator: ", ")
        fields[.accessControlMaxAge] = Self.maxAge
        return fields
    }

    /// `scheme://host[:port]` with scheme http or https and nothing after the authority.
    static func isOrigin(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard let range = lower.range(of: "://") else { return false }
        let scheme = lower[..<range.lowerBound]
        let authority = lower[range.upperBound...]
        return (scheme == "http" || scheme == "https") && !authority.isEmpty
            && !authority.contains(where: { "/?#@ ".contains($0) })
    }
}
