import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage plus the peer's address
/// (nil in router tests, which have no socket).
struct TopicGateRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
