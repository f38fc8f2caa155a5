/// The body of a link or link-login request, checked: `provider`, `externalID`, `secret`, and
/// for a rotation `rotate: true` with `oldSecret`.
public struct AccountLinkRequest: Sendable, Hashable {
    public var provider: String
    public var externalID: String
    public var secret: String
    public var rotate: Bool
    public var oldSecret: String?
    /// For a login: when the token should expire; nil for never.
    public var expiresAt: UnixMillis?

    /// The fewest bits of secret accepted for a new link.
    public static let minimumSecretBits = 128
    static let maximumSecretLength = 1024
    static let maximumExternalIDLength = 255

    /// Parses a request to link; a new secret must carry at least 128 bits.
    public init(linking body: [String: JSONValue]) throws(KiiError) {
        try self.init(body)
        try Self.requireStrong(secret, field: "secret")
        rotate = body["rotate"]?.boolValue ?? false
        if body["rotate"] != nil, body["rotate"]?.boolValue == nil {
            throw KiiError.invalidInput("'rotate' must be true or false.", field: "rotate")
        }
        oldSecret = try Self.optionalString(body, "oldSecret")
        if rotate, oldSecret == nil {
            throw KiiError.invalidInput(
                "A rotation needs 'oldSecret', the secret linked until now.", field: "oldSecret")
        }
    }

    /// Parses a link login (no strength check: a wrong secret is simply wrong).
    public init(login body: [String: JSONValue]) throws(KiiError) {
        try self.init(body)
        expiresAt = try TokenRequest.expiresAt(body)
    }

    init(_ body: [String: JSONValue]) throws(KiiError) {
        provider = try Self.provider(try Self.requiredString(body, "provider"))
        externalID = try Self.externalID(try Self.requiredString(body, "externalID"))
        secret = try Self.requiredString(body, "secret")
        guard secret.utf8.count <= Self.maximumSecretLength else {
            throw KiiError.invalidInput("'secret' is longer than \(Self.maximumSecretLength) bytes.", field: "secret")
        }
        rotate = false
    }

    /// A provider name: letters, digits, `.`, `_` and `-`, 1 to 64 characters (e.g. `icloud`).
    public static func provider(_ text: String) throws(KiiError) -> String {
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        guard allowed, (1...64).contains(text.utf8.count) else {
            throw KiiError.invalidInput(
                "'provider' must be 1 to 64 letters, digits, '.', '_' or '-'.", field: "provider")
        }
        return text
    }

    /// An external ID: 1 to 255 bytes of printable text.
    public static func externalID(_ text: String) throws(KiiError) -> String {
        guard (1...maximumExternalIDLength).contains(text.utf8.count),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            throw KiiError.invalidInput(
                "'externalID' must be 1 to \(maximumExternalIDLength) bytes of printable text.", field: "externalID")
        }
        return text
    }

    /// The bits a secret can carry at most, judged by its length and the alphabet it is
    /// written in: hex 4 bits a character, base64 (either flavour) 6, anything else 6.5 (the
    /// printable ASCII range). A server cannot see randomness; it can refuse what is too short
    /// to hold 128 random bits.
    public static func capacityBits(_ secret: String) -> Int {
        let bytes = Array(secret.utf8)
        func isHex(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
        func isBase64(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2B || byte == 0x2F || byte == 0x2D || byte == 0x5F || byte == 0x3D
        }
        if bytes.allSatisfy(isHex) { return bytes.count * 4 }
        if bytes.allSatisfy(isBase64) { return bytes.filter { $0 != 0x3D }.count * 6 }
        return bytes.count * 13 / 2
    }

    static func requireStrong(_ secret: String, field: String) throws(KiiError) {
        let distinct = Set(secret.utf8).count
        guard capacityBits(secret) >= minimumSecretBits, distinct >= 8 else {
            throw KiiError(
                .invalidInputData,
                "'\(field)' must hold at least \(minimumSecretBits) random bits: 32 hex digits, 22 base64 "
                    + "characters, or more.",
                context: ["field": .string(field), "minimumBits": .int(Int64(minimumSecretBits))])
        }
    }

    static func requiredString(_ body: [String: JSONValue], _ key: String) throws(KiiError) -> String {
        guard let text = try optionalString(body, key) else {
            throw KiiError.invalidInput("'\(key)' is required.", field: key)
        }
        return text
    }

    static func optionalString(_ body: [String: JSONValue], _ key: String) throws(KiiError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue else {
            throw KiiError.invalidInput("'\(key)' must be a string.", field: key)
        }
        return text
    }
}
