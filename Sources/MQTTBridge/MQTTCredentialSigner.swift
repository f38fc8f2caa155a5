import Crypto
import Foundation
public import TopicGateCore

/// Signs MQTT passwords with the secret the gateway shares with the broker plugin, over the
/// MQTT username and an expiry. Two forms (`MQTTCredentialForm`): the compact default, and
/// HS256 JWTs whose claims are `sub` (= the MQTT username), `iat`, `exp`, and `acl` in EMQX's
/// JWT format, so an EMQX cluster can enforce the same credentials. TopicGate's own plugin
/// verifies both and derives the device rule from the username.
public struct MQTTCredentialSigner: Sendable {
    private let key: SymmetricKey
    public let form: MQTTCredentialForm

    /// `secret` is used as the HMAC key byte for byte (the plugin reads the same text from its
    /// secret file).
    public init(secret: String, form: MQTTCredentialForm = .compact) {
        key = SymmetricKey(data: Array(secret.utf8))
        self.form = form
    }

    /// A device's password: it may subscribe to `topic` and publish to `topic/state`.
    public func devicePassword(topic: String, issuedAt: UnixSeconds, expiresAt: UnixSeconds) -> String {
        if form == .compact { return compact(username: topic, expiresAt: expiresAt) }
        return sign(
            Claims(
                sub: topic, iat: issuedAt.rawValue, exp: expiresAt.rawValue,
                acl: [
                    .init(permission: "allow", action: "subscribe", topic: topic),
                    .init(permission: "allow", action: "publish", topic: topic + "/state"),
                ]))
    }

    /// The gateway's own password (its username is the plugin's superuser).
    public func gatewayPassword(username: String, issuedAt: UnixSeconds, expiresAt: UnixSeconds) -> String {
        if form == .compact { return compact(username: username, expiresAt: expiresAt) }
        return sign(Claims(sub: username, iat: issuedAt.rawValue, exp: expiresAt.rawValue, acl: nil))
    }

    /// `k1.<expiresAt>.<base64url HMAC-SHA256 of "k1.<username>.<expiresAt>">`.
    private func compact(username: String, expiresAt: UnixSeconds) -> String {
        let prefix = "k1."
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(prefix)\(username).\(expiresAt)".utf8), using: key)
        return "\(prefix)\(expiresAt)." + Base64URL.encode(Data(mac))
    }

    private struct Header: Encodable {
        let alg = "HS256"
        let typ = "JWT"
    }

    private struct Claims: Encodable {
        struct Rule: Encodable {
            let permission: String
            let action: String
            let topic: String
        }
        let sub: String
        let iat: Int64
        let exp: Int64
        let acl: [Rule]?
    }

    private func sign(_ claims: Claims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        let header = (try? encoder.encode(Header())) ?? Data()
        let payload = (try? encoder.encode(claims)) ?? Data()
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(Data(signature))
    }

}
