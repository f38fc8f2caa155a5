import Hummingbird
import TopicGateCore
import TopicGateStore

/// `GET /push/messages/{id}/deliveries` (admin only): how far a traced push (`?trace=true` on
/// a send) got toward each device, with each device's presence now.
struct PushTraceController<Context: CallerRequestContext>: RouteTable {
    let topics: TopicService
    let presence: DevicePresence

    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [
            .get(
                "push/messages/{message}/deliveries",
                "How far a traced push got toward each device: pending, acknowledged, offline or failed (admin)",
                who: .admin, Self.deliveries)
        ]
    }

    func deliveries(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        try caller.requireAdmin(to: "read a push's deliveries; only the admin may")
        let messageID = PushMessageID(try context.parameters.require("message"))
        let deliveries = try await topics.deliveries(of: messageID, appID: caller.appID)
        let names = try await topics.names(appID: caller.appID, of: Array(Set(deliveries.map(\.principal))))
        return try JSONResponse.ok(
            encoding: PushTraceReport(messageID, deliveries, names: names, presence: presence))
    }
}
