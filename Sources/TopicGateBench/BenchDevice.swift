import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A benchmark MQTT device on a NIO channel: connects, subscribes to its topic with QoS 0 and
/// hands every publication (with the time it arrived) to `onMessage`, on the event loop.
final class BenchDevice: @unchecked Sendable {
    // @unchecked: `channel` is set once in `connect` before any other use, and the handler's
    // state is touched only on the channel's event loop.
    private(set) var channel: (any Channel)?
    let handler: Handler

    /// Linux's `IP_BIND_ADDRESS_NO_PORT` (`<linux/in.h>`), which Glibc's module does not export.
    static let bindAddressNoPort: Int32 = 24

    init(onMessage: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void = { _, _ in }) {
        handler = Handler(onMessage: onMessage)
    }

    /// Connects and waits for CONNACK; throws unless the broker accepted.
    /// `localAddress` binds the client's end first (a loopback address of 127.0.0.0/8, so that
    /// more devices connect than one source address has ephemeral ports). Its port is chosen by
    /// `connect`, not by `bind` (`IP_BIND_ADDRESS_NO_PORT`): a port chosen at bind is taken for
    /// every destination, and once the odd half of the range that bind prefers is used up, each
    /// bind walks it again, holding the holder's event loop until its connects time out (raw
    /// Mosquitto stopped at about 14 000 devices per source address that way).
    func connect(
        group: any EventLoopGroup, host: String = "127.0.0.1", port: Int, clientID: String, username: String?,
        password: String?, localAddress: SocketAddress? = nil
    ) async throws {
        let handler = self.handler
        var bootstrap = ClientBootstrap(group: group)
        if let localAddress {
            bootstrap = bootstrap.channelOption(
                ChannelOptions.ipOption(NIOBSDSocket.Option(rawValue: Self.bindAddressNoPort)),
                value: 1
            ).bind(to: localAddress)
        }
        let channel =
            try await bootstrap
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .connect(host: host, port: port).get()
        self.channel = channel
        let acknowledged = channel.eventLoop.makePromise(of: UInt8.self)
        try await channel.eventLoop.submit { handler.connectPromise = acknowledged }.get()
        try await channel.writeAndFlush(MQTTWire.connect(clientID: clientID, username: username, password: password))
            .get()
        let code = try await acknowledged.futureResult.get()
        guard code == 0 else {
            try? await channel.close()
            throw BenchError("the broker refused the connection (CONNACK \(code))")
        }
    }

    /// Subscribes to `filter` with QoS 0 and waits for SUBACK.
    func subscribe(_ filter: String) async throws {
        guard let channel else { throw BenchError("not connected") }
        let handler = self.handler
        let acknowledged = channel.eventLoop.makePromise(of: Void.self)
        try await channel.eventLoop.submit { handler.subscribePromise = acknowledged }.get()
        try await channel.writeAndFlush(MQTTWire.subscribe(filter, packetID: 1)).get()
        try await acknowledged.futureResult.get()
    }

    /// Sends DISCONNECT and closes.
    func close() async {
        guard let channel else { return }
        try? await channel.writeAndFlush(MQTTWire.disconnect).get()
        try? await channel.close()
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        // @unchecked: every property is used only on the channel's event loop.
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let onMessage: @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void
        var connectPromise: EventLoopPromise<UInt8>?
        var subscribePromise: EventLoopPromise<Void>?
        private var pending = ByteBuffer()

        init(onMessage: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void) {
            self.onMessage = onMessage
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var incoming = unwrapInboundIn(data)
            pending.writeBuffer(&incoming)
            let now = ContinuousClock.now
            while let packet = MQTTWire.read(&pending) {
                switch packet {
                case .connectAcknowledged(let code):
                    connectPromise?.succeed(code)
                    connectPromise = nil
                case .subscribeAcknowledged:
                    subscribePromise?.succeed(())
                    subscribePromise = nil
                case .publish(_, let payload, let packetID):
                    if let packetID {
                        context.writeAndFlush(wrapOutboundOut(MQTTWire.publishAcknowledgement(packetID)), promise: nil)
                    }
                    onMessage(payload, now)
                case .other:
                    break
                }
            }
            pending.discardReadBytes()
        }

        func channelInactive(context: ChannelHandlerContext) {
            connectPromise?.fail(BenchError("the broker closed the connection"))
            subscribePromise?.fail(BenchError("the broker closed the connection"))
            connectPromise = nil
            subscribePromise = nil
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
