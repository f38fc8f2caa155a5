import NIOCore

/// First in every API connection's pipeline, on raw bytes: admits the connection against
/// `ConnectionLimits` (past a cap it answers 503 `TOO_MANY_CONNECTIONS` and closes), and holds
/// each request to `readTimeout` from its first byte to the first byte of its answer, so that a
/// client sending its headers or body a byte at a time, or not at all, loses the connection.
/// On the API, idle connections between requests are Hummingbird's idle timeout's; on the
/// MQTT-over-WebSockets port, which has no such timeout before the upgrade, `firstByteTimeout`
/// closes a connection that sends nothing, and `upgrades` ends the read deadline at the first
/// answer (the 101): from then on the bytes are a device's MQTT session, watched by the
/// WebSocket's pings and the broker's keep-alive.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let limits: ConnectionLimits
    let readTimeout: TimeAmount?
    /// A connection must send its first byte within this (nil: no deadline).
    let firstByteTimeout: TimeAmount?
    /// The first answer ends the deadlines for good (a WebSocket upgrade).
    let upgrades: Bool
    /// A request is being read: its deadline runs.
    private var reading = false
    /// The connection was answered once.
    private var answered = false
    /// The client's address as the caps count it (an IPv6 client by its /64).
    private var client: String?
    private var admitted = false
    private var deadline: Scheduled<Void>?

    init(
        limits: ConnectionLimits, readTimeout: TimeAmount?, firstByteTimeout: TimeAmount? = nil,
        upgrades: Bool = false
    ) {
        self.limits = limits
        self.readTimeout = readTimeout
        self.firstByteTimeout = firstByteTimeout
        self.upgrades = upgrades
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
        if let firstByteTimeout { deadline = close(context, in: firstByteTimeout) }
    }

    private func close(_ context: ChannelHandlerContext, in time: TimeAmount) -> Scheduled<Void> {
        let channel = context.channel
        return context.eventLoop.scheduleTask(in: time) { channel.close(promise: nil) }
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
        if !reading, !(upgrades && answered) {
            reading = true
            deadline?.cancel()
            deadline = readTimeout.map { close(context, in: $0) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The request was read whole: it is being answered.
        if !answered || reading {
            reading = false
            answered = true
            deadline?.cancel()
            deadline = nil
        }
        context.write(data, promise: promise)
    }
}
