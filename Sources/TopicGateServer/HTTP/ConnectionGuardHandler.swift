import NIOCore

/// First in every API connection's pipeline, on raw bytes: admits the connection against
/// `ConnectionLimits` (past a cap it answers 503 `TOO_MANY_CONNECTIONS` and closes), and holds
/// each request to `readTimeout` from its first byte to the first byte of its answer, so that a
/// client sending its headers or body a byte at a time, or not at all, loses the connection.
/// Idle connections between requests are Hummingbird's idle timeout's.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let limits: ConnectionLimits
    let readTimeout: TimeAmount?
    /// The client's address as the caps count it (an IPv6 client by its /64).
    private var client: String?
    private var admitted = false
    private var deadline: Scheduled<Void>?

    init(limits: ConnectionLimits, readTimeout: TimeAmount?) {
        self.limits = limits
        self.readTimeout = readTimeout
    }

    static let refusal: String = {
        let body = #"{"errorCode":"TOO_MANY_CONNECTIONS","message":"Too many connections are open; try again later."}"#
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
            + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
    }()

    /// Set once the connection was counted in, or refused.
    private var decided = false

    func handlerAdded(context: ChannelHandlerContext) {
        // An accepted connection is often active before its pipeline is built.
        if context.channel.isActive { decide(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        decide(context)
        if admitted { context.fireChannelActive() }
    }

    private func decide(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        client = context.channel.remoteAddress?.ipAddress.map(AddressGroup.key)
        admitted = limits.admit(client)
        guard admitted else {
            let bytes = context.channel.allocator.buffer(string: Self.refusal)
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(bytes))).whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if admitted {
            admitted = false
            limits.release(client)
            context.fireChannelInactive()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing of a refused connection reaches the HTTP parser.
        guard admitted else { return }
        if deadline == nil, let readTimeout {
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: readTimeout) { channel.close(promise: nil) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The request was read whole: it is being answered.
        deadline?.cancel()
        deadline = nil
        context.write(data, promise: promise)
    }
}
