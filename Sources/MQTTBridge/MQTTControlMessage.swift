import Foundation
public import TopicGateCore

/// A message from the gateway to TopicGate's broker plugin on `$CONTROL/topicgate/v1`.
public struct MQTTControlMessage: Sendable, Hashable {
    /// The control topic the plugin listens on.
    public static let topic = "$CONTROL/topicgate/v1"

    /// A device username to refuse (and kick) until its credentials expire.
    public struct Revocation: Sendable, Hashable {
        public let username: String
        public let expiresAt: UnixSeconds

        public init(username: String, expiresAt: UnixSeconds) {
            self.username = username
            self.expiresAt = expiresAt
        }
    }

    public let revocations: [Revocation]

    public init(revoking revocations: [Revocation]) {
        self.revocations = revocations
    }

    private struct Command: Encodable {
        let command = "revoke"
        let username: String
        let expiresAt: Int64
    }

    private struct Body: Encodable {
        let commands: [Command]
    }

    /// `{"commands":[{"command":"presence"},{"command":"features","nonce":…}]}`: the plugin
    /// answers on `topicgate/presence` with the usernames connected now and, if it takes fan-outs
    /// (`MQTTFanOut`), with `{"features":["fanOut"],"nonce":…}`. A plugin that does not know the
    /// second command ignores it. `nonce`: letters and digits, at most 64.
    public static func presenceAndFeaturesRequest(nonce: String) -> [UInt8] {
        Array(#"{"commands":[{"command":"presence"},{"command":"features","nonce":"\#(nonce)"}]}"#.utf8)
    }

    /// `{"commands":[{"command":"barrier","id":…}]}`: the plugin answers `{"routed":…}`
    /// (`RoutingReceipt`) on `topicgate/presence` once every fan-out sent before it is routed
    /// into its devices' sessions. `id`: letters and digits, at most 64.
    public static func barrier(id: String) -> [UInt8] {
        Array(#"{"commands":[{"command":"barrier","id":"\#(id)"}]}"#.utf8)
    }

    /// `{"commands":[{"command":"revoke","username":…,"expiresAt":…},…]}`
    public var payload: [UInt8] {
        let body = Body(commands: revocations.map { Command(username: $0.username, expiresAt: $0.expiresAt.rawValue) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(body)) ?? Data())
    }
}
