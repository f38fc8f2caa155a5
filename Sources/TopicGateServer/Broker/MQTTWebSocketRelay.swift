import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// MQTT over WebSockets for browsers and devices: accepts WebSocket connections on
/// `DeviceListeners.host` and relays each one, byte for byte, to the broker's plain MQTT port
/// as one TCP connection. The broker authenticates and authorizes it like any other device
/// (its plugin sees the same CONNECT, SUBSCRIBE and PUBLISH packets), so every rule holds on
/// this listener too; the relay itself reads nothing of the MQTT stream.
enum MQTTWebSocketRelay {
    /// The WebSocket subprotocols MQTT clients offer (MQTT 3.1.1 and 5, and 3.1).
    static let subprotocols = ["mqtt", "mqttv3.1"]

    /// The relay's servers: WebSockets on `webSocketPort`, and with TLS files secure
    /// WebSockets on `secureWebSocketPort` unless it is off. None when WebSockets are turned off.
    /// Both count their connections against `limits` (one count for the two ports); a connection
    /// must send its first byte within `idleTimeout` and its whole upgrade request within
    /// `readTimeout` of that.
    static func services(
        push: PushConfiguration, limits: ConnectionLimits, idleTimeout: TimeAmount?, readTimeout: TimeAmount?,
        logger: Logger
    ) throws -> [any Service] {
        let listeners = push.listeners
        guard let port = listeners.webSocketPort else { return [] }
        let broker = (host: push.brokerHost, port: push.broker.port)
        // The broker's packet limit plus room for the fixed header: one MQTT packet per frame.
        let frames = WebSocketServerConfiguration(
            maxFrameSize: push.maximumPacketSize + 16, autoPing: .enabled(timePeriod: .seconds(60)))
        let server = server(
            frames: frames, broker: broker, limits: limits, idleTimeout: idleTimeout, readTimeout: readTimeout)
        var services: [any Service] = [
            application(server: server, host: listeners.host, port: port, logger: logger)
        ]
        if let tls = listeners.tls, let securePort = listeners.secureWebSocketPort {
            services.append(
                application(
                    server: try .tls(server, tlsConfiguration: tls.serverConfiguration()),
                    host: listeners.host, port: securePort, logger: logger))
        }
        return services
    }

    private static func application(server: HTTPServerBuilder, host: String, port: Int, logger: Logger)
        -> some Service
    {
        // Plain HTTP requests to this port (no upgrade) get 404.
        Application(
            router: Router(), server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "TopicGate MQTT over WebSockets"),
            logger: logger)
    }

    private static func server(
        frames: WebSocketServerConfiguration, broker: (host: String, port: Int), limits: ConnectionLimits,
        idleTimeout: TimeAmount?, readTimeout: TimeAmount?
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let upgrade = HTTP1WebSocketUpgradeChannel(
                responder: responder, configuration: .init(ws: frames), shouldUpgrade: upgrade(broker: broker))
            return GuardedChildChannel(
                base: upgrade, limits: limits, readTimeout: readTimeout, firstByteTimeout: idleTimeout)
        }
    }

    private static func upgrade(broker: (host: String, port: Int))
        -> @Sendable (HTTPRequest, any Channel, Logger)
        async throws -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    {
        { request, _, _ in
            // Browsers refuse the connection unless the server picks one of the offered
            // subprotocols; MQTT clients offer `mqtt` (or `mqttv3.1`).
            let offered = (request.headerFields[.secWebSocketProtocol] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            var headers = HTTPFields()
            if let chosen = offered.first(where: subprotocols.contains) { headers[.secWebSocketProtocol] = chosen }
            return .upgrade(headers) { inbound, outbound, context in
                try await relay(inbound: inbound, outbound: outbound, broker: broker, logger: context.logger)
            }
        }
    }

    /// Copies WebSocket data frames to a new TCP connection to the broker and the broker's bytes
    /// back as binary frames, until either side closes.
    static func relay(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, broker: (host: String, port: Int),
        logger: Logger
    ) async throws {
        let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: broker.host, port: broker.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        // On shutdown the broker connection closes, which ends the WebSocket too: the server
        // does not wait for devices that would stay connected for hours.
        let channel = connection.channel
        try await withGracefulShutdownHandler {
            try await relay(connection, inbound: inbound, outbound: outbound)
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }

    private static func relay(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        try await connection.executeThenClose { fromBroker, toBroker in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await frame in inbound { try await toBroker.write(frame.data) }
                }
                group.addTask {
                    for try await bytes in fromBroker { try await outbound.write(.binary(bytes)) }
                }
                // Whichever side ends first ends the other.
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }
}
