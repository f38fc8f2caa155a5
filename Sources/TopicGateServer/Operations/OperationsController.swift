import Hummingbird
import TopicGateCore
import TopicGateStore

/// Operator endpoints of our own (admin only): the app's overview, the security audit trail,
/// the dead letters (pushes the broker refused or that kept failing) and the idle pseudo user
/// cleanup.
struct OperationsController<Context: CallerRequestContext>: RouteTable {
    let operations: OperationsService
    let cleanup: PseudoUserCleanup
    let body: RequestBody
    let metrics: ServerMetrics
    let time: TimeSource
    /// The gateway's broker link; nil when push is off.
    let link: (any DeviceLink)?
    let presence: DevicePresence

    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [
            .get(
                "overview", "Counts of the app, outbox depth, dead letters and this gateway's totals (admin)",
                who: .admin, Self.overview),
            .get(
                "security-audit", "The security audit trail, newest first (admin)", who: .admin,
                query: APISchema.paging, Self.securityAudit),
            .get(
                "dead-letters", "Pushes that could not be delivered (admin)", who: .admin, query: APISchema.paging,
                Self.deadLetters),
            .post(
                "pseudo-user-cleanup", "Remove idle pseudo users (admin)", who: .admin,
                body: APISchema.json(
                    APISchema.object(
                        ["idleDays": APISchema.integer, "dryRun": APISchema.boolean], required: ["idleDays"])),
                Self.cleanUp),
        ]
    }

    /// Everything is the caller's app's alone (another app's admin learns nothing of it): its
    /// counts, its outbox depth and dead letters, its devices online on this gateway's brokers,
    /// and `gateway`, what this process did for it since it started.
    func overview(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try Self.admin(context, to: "read the overview")
        let overview = try await operations.overview(appID: caller.appID)
        return try JSONResponse.ok(
            encoding: AppOverview(
                at: time.now(), counts: overview.counts, outboxDepth: overview.outboxDepth,
                deadLetters: overview.deadLetters, gateway: metrics.totals(appID: caller.appID),
                brokerConnected: link?.isReady,
                devicesOnline: link.map { _ in presence.onlineCount(appID: caller.appID) }))
    }

    func securityAudit(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try Self.admin(context, to: "read the security audit")
        let (limit, before) = Self.paging(request)
        let page = try await operations.securityEvents(appID: caller.appID, limit: limit, before: before)
        return try JSONResponse.ok(encoding: ListingPage("events", page.map { ($0.sequence, $0.event) }, limit: limit))
    }

    func deadLetters(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try Self.admin(context, to: "read the dead letters")
        let (limit, before) = Self.paging(request)
        let page = try await operations.deadLetters(appID: caller.appID, limit: limit, before: before)
        return try JSONResponse.ok(
            encoding: ListingPage("deadLetters", page.map { ($0.sequence, $0.letter) }, limit: limit))
    }

    func cleanUp(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try Self.admin(context, to: "clean up pseudo users")
        let cleanupRequest = try await body.decode(PseudoUserCleanupRequest.self, from: request)
        let report = try await cleanup.run(
            appID: caller.appID, idleDays: cleanupRequest.idleDays, dryRun: cleanupRequest.dryRun,
            actor: caller.principal.description)
        return try JSONResponse.ok(encoding: report)
    }

    /// The caller, who must be the app's admin to do `what`.
    static func admin(_ context: Context, to what: String) throws -> Caller {
        let caller = try context.caller
        try caller.requireAdmin(to: what)
        return caller
    }

    /// `?limit=` (1 to 1000, default 100) and `?paginationKey=` of a newest-first listing.
    static func paging(_ request: Request) -> (limit: Int, before: Int64?) {
        (request.limit(default: 100), request.uri.queryParameters.get("paginationKey").flatMap { Int64($0) })
    }

}
