import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection to the gateway, one request at a time (a benchmark with
/// N concurrent requests opens N of these).
final class BenchHTTPConnection: Sendable {
    let channel: any Channel
    private let handler: ResponseHandler
    /// `host:port`, for the `Host` header.
    let authority: String

    /// A response: status and body bytes.
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
    }

    static func open(group: any EventLoopGroup, host: String = "127.0.0.1", port: Int) async throws
        -> BenchHTTPConnection
    {
        let handler = ResponseHandler()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port).get()
        return BenchHTTPConnection(channel: channel, handler: handler, authority: "\(host):\(port)")
    }

    private init(channel: any Channel, handler: ResponseHandler, authority: String) {
        self.channel = channel
        self.handler = handler
        self.authority = authority
    }

    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, contentType: String = "application/json",
        body: String? = nil
    )
        async throws -> Response
    {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: authority)
        if let token { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            head.headers.add(name: "Content-Type", value: contentType)
            head.headers.add(name: "Content-Length", value: String(body.utf8.count))
        } else if method == .POST || method == .PUT {
            head.headers.add(name: "Content-Length", value: "0")
        }
        let request = head
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let handler = self.handler
        let channel = self.channel
        channel.eventLoop.execute {
            handler.waiting.append(promise)
            channel.write(HTTPClientRequestPart.head(request), promise: nil)
            if let body {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { promise.fail($0) }
        }
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }

    final class ResponseHandler: ChannelInboundHandler, @unchecked Sendable {
        // @unchecked: used only on the channel's event loop.
        typealias InboundIn = HTTPClientResponsePart

        var waiting: [EventLoopPromise<Response>] = []
        private var status = 0
        private var body: [UInt8] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                body = []
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard !waiting.isEmpty else { return }
                waiting.removeFirst().succeed(Response(status: status, body: body))
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            for promise in waiting { promise.fail(BenchError("the gateway closed the connection")) }
            waiting = []
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            for promise in waiting { promise.fail(error) }
            waiting = []
            context.close(promise: nil)
        }
    }
}
