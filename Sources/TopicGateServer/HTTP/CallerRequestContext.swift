import Hummingbird
import NIOCore
import TopicGateCore

/// A request context that carries the caller, set by `CallerMiddleware` on every route under
/// `/api/apps/{appID}` and `/thing-if/apps/{appID}`.
protocol CallerRequestContext: RequestContext {
    var identity: Caller? { get set }
    /// The connection's peer.
    var remoteAddress: SocketAddress? { get }
}

extension CallerRequestContext {
    /// The caller `CallerMiddleware` established. A route registered outside the app's groups
    /// has none: a mistake in the router, answered as a server error.
    var caller: Caller {
        get throws(KiiError) {
            guard let identity else {
                throw KiiError(.undefinedError, "This route has no caller; it is registered outside the app's routes.")
            }
            return identity
        }
    }
}
