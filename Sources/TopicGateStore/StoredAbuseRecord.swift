public import TopicGateCore

/// One abuse record as a store keeps it.
public struct StoredAbuseRecord: Sendable, Hashable {
    /// The record as JSON text.
    public var text: String
    /// After this the record may be dropped.
    public var expiresAt: UnixMillis

    public init(text: String, expiresAt: UnixMillis) {
        self.text = text
        self.expiresAt = expiresAt
    }
}
