import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore
import TopicGateStore

/// `GET /metrics`: Prometheus text exposition. It holds counts, never identities or secrets;
/// still, with `--metrics-token` only a scraper that presents it (`Authorization: Bearer …`)
/// reads them, and no web page of another origin can (the CORS middleware leaves this route
/// alone). What it reads from the database is kept for `freshness`, so that scrapes, however
/// frequent, count the outbox and the commands at most that often.
struct MetricsController<Context: RequestContext>: RouteTable {
    let metrics: ServerMetrics
    /// What scrapes read from the database, kept for a few seconds.
    let counted: ScrapeCounts
    /// The gateway's broker link; nil when push is off.
    let link: (any DeviceLink)?
    /// The bearer token a scrape must present; nil: none is asked for.
    let token: String?
    /// How the store's facts are kept: shared by several gateways, the caches are trusted only
    /// while the change feed is heard (`topicgate_caches_trusted`).
    var caching: StoreCaching? = nil

    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [.get("metrics", "Prometheus metrics", on: .open, mediaType: "text/plain", Self.scrape)]
    }

    func scrape(_ request: Request, _ context: Context) async throws -> Response {
        if let token {
            let (scheme, presented) = HeaderValue.schemeAndCredentials(Substring(request.headers[.authorization] ?? ""))
            guard HeaderValue.isScheme(scheme, "bearer"), Secrets.constantTimeEqual(presented, token) else {
                throw KiiError(
                    .unauthorized, "The metrics need the token given with --metrics-token (Authorization: Bearer).",
                    context: ["authenticatedPrincipalID": .string(Principal.anonymous.principalID)])
            }
        }
        let counts = try await counted.read()
        var trusted: Bool?
        if case .sharedGenerations(let generations) = caching { trusted = generations.access.isTrusted }
        let bytes = metrics.exposition(
            outboxDepth: counts.outboxDepth, deadLetters: counts.deadLetters, brokerConnected: link?.isReady,
            cachesTrusted: trusted, commandStates: counts.commandStates)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
