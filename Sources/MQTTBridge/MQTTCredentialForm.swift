/// How MQTT passwords are written. The broker plugin accepts both.
public enum MQTTCredentialForm: String, Sendable, CaseIterable {
    /// `k1.<expiry>.<HMAC-SHA256 of k1.<username>.<expiry>>`: 57 characters, which fits the
    /// smallest Kii SDK buffer (Kii's C thing SDK holds 127 characters of password).
    case compact
    /// An HS256 JWT with EMQX's `acl` claim (about 400 characters), for operators who put an
    /// EMQX-style broker beside TopicGate's; too long for Kii's C thing SDK.
    case jwt
}
