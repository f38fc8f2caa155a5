import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateStore

/// `GET /metrics`: Prometheus text exposition. Open like `/health` (it holds counts, never
/// identities or secrets); expose the port only where your scraper runs.
struct MetricsController<Context: RequestContext>: Sendable {
    let metrics: ServerMetrics
    let store: any Store
    /// The gateway's broker link; nil when push is off.
    let link: (any DeviceLink)?

    func addRoutes(to router: Router<Context>) {
        router.get("metrics") { _, _ in
            let bytes = metrics.exposition(
                outboxDepth: try await store.pendingMessageCount(),
                deadLetters: try await store.deadLetterCount(),
                brokerConnected: link?.isReady,
                commandStates: try await store.commandStateCounts())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}
