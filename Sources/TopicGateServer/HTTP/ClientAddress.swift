import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore

/// The address a request came from, for per-address limits and the audit trail: the last hop
/// of `X-Forwarded-For` when a trusted proxy sets it, otherwise the connection's peer.
enum ClientAddress {
    /// `peer`: the connection's (the request context's `remoteAddress`, given by the caller's
    /// context type, so no cast is needed to find it).
    static func of(_ request: Request, peer: SocketAddress?, proxyTrust: ProxyTrust) -> String? {
        let peer = peer?.ipAddress
        if proxyTrust.trusts(peer: peer), let forwarded = request.headers[forwardedFor] {
            // A client can prepend anything; the last entry is the one our proxy added.
            if let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
                return last
            }
        }
        return peer
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
