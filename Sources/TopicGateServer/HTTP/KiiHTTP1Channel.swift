import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The gateway's HTTP/1.1 server with no caps or deadlines, for another server of this package
/// that must answer exactly as the gateway does (the bench's durable bound).
package func kiiHTTPServer() -> HTTPServerBuilder { KiiHTTP1Channel.builder() }

/// Hummingbird's HTTP/1.1 server channel with `ConnectionCloseHandler` in its pipeline, so
/// that `Connection: Close` and HTTP/1.0 requests end their connection after the response, and
/// `ConnectionGuardHandler` first in it: caps on open connections and a read deadline.
struct KiiHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    /// Connections with no request for this long are closed.
    let idleTimeout: TimeAmount?
    /// The caps on open connections and the request read deadline (nil: none).
    let limits: ConnectionLimits?
    let readTimeout: TimeAmount?

    /// The server builder for `Application(server:)`.
    static func builder(
        idleTimeout: TimeAmount? = nil, limits: ConnectionLimits? = nil, readTimeout: TimeAmount? = nil
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            KiiHTTP1Channel(responder: responder, idleTimeout: idleTimeout, limits: limits, readTimeout: readTimeout)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            if let limits {
                // Before TLS too: a refusal costs no handshake. With TLS the refusal is plain text.
                try pipeline.addHandler(
                    ConnectionGuardHandler(limits: limits, readTimeout: readTimeout), position: .first)
            }
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
            try pipeline.addHandler(ConnectionCloseHandler())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(
                HTTPConnectionStateHandler(
                    idleTimeout: idleTimeout.map { .nanoseconds($0.nanoseconds) }, logger: logger))
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
