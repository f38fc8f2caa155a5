import NIOCore
import NIOHTTP1

/// Makes "this connection closes after the response" hold for every spelling HTTP allows.
///
/// The server loop closes a connection only when a request says `Connection: close` in lower
/// case. Connection options are case-insensitive, and an HTTP/1.0 request without
/// `keep-alive` also asks for a close; Kii's C thing SDK sends `Connection: Close` and reads
/// the response until the server closes. This handler sits between the HTTP/1 codec and the
/// conversion to HTTP types, where the request's version is still known: it rewrites such a
/// request's header to `close`, and puts `Connection: close` on its response.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether each request read and not yet answered asked for a close, oldest first.
    private var closes: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let closes = !head.isKeepAlive
        self.closes.append(closes)
        if closes { head.headers.replaceOrAdd(name: "connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200 else {
            context.write(data, promise: promise)
            return
        }
        if !closes.isEmpty, closes.removeFirst() {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
