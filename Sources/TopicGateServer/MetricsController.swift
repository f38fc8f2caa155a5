import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore
import TopicGateStore

/// `GET /metrics`: Prometheus text exposition. Open like `/health` (it holds counts, never
/// identities or secrets); expose the port only where your scraper runs.
struct MetricsController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to router: Router<Context>) {
        router.get("metrics") { _, _ in
            let bytes = environment.metrics.exposition(
                outboxDepth: try await environment.store.pendingMessageCount(),
                deadLetters: try await environment.store.deadLetterCount(),
                brokerConnected: environment.configuration.push == nil ? nil : environment.link.isReady,
                commandStates: try await environment.store.commandStateCounts())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}
