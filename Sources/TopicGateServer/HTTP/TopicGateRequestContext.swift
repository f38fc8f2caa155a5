import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage, the peer's address (nil in
/// router tests, which have no socket) and, on the app's routes, the caller.
struct TopicGateRequestContext: CallerRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    var identity: Caller?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
