import Foundation
import Hummingbird
import TopicGateCore

/// The address a request came from, for per-address limits and the audit trail: the last hop
/// of `X-Forwarded-For` when a trusted proxy sets it, otherwise the connection's peer.
enum ClientAddress {
    static func of(_ request: Request, context: some RequestContext, proxyTrust: ProxyTrust) -> String? {
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
        if proxyTrust.trusts(peer: peer), let forwarded = request.headers[.init("X-Forwarded-For")!] {
            // A client can prepend anything; the last entry is the one our proxy added.
            if let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
                return last
            }
        }
        return peer
    }
}
