import Hummingbird
import TopicGateCore
import TopicGateStore

/// `GET /health` (the process answers) and `GET /ready` (the database answers, with push on the
/// gateway is connected to the broker, and it is not draining before a stop): for load
/// balancers, Compose and Kubernetes.
struct HealthController<Context: RequestContext>: RouteTable {
    let operations: OperationsService
    /// The gateway's broker link; nil when push is off.
    let link: (any DeviceLink)?
    /// Set from SIGTERM until the stop (`GatewayShutdown`).
    let drain: GatewayDrain

    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [
            .get("health", "The process answers", on: .open, Self.health),
            .get("ready", "The database answers and the broker is connected", on: .open, Self.ready),
        ]
    }

    func health(_ request: Request, _ context: Context) async throws -> Response {
        JSONResponse.make(status: .ok, json: HealthReport.bytes)
    }

    func ready(_ request: Request, _ context: Context) async throws -> Response {
        let database = await operations.databaseAnswers()
        let broker = link?.isReady ?? true
        let draining = drain.isDraining
        let ready = database && broker && !draining
        let message =
            ready
            ? nil
            : draining
                ? "The gateway is stopping: it answers the requests it gets until then, but takes no new ones."
                : !database ? "The database does not answer." : "The gateway is not connected to the MQTT broker."
        // With several brokers: ready while one is connected (the others' devices wait), and
        // each one's state.
        let connections = link?.brokerConnections ?? [:]
        let readiness = Readiness(
            database: database ? "ok" : "unreachable",
            broker: link == nil ? "off" : broker ? "connected" : "disconnected",
            brokers: connections.isEmpty ? nil : connections.mapValues { $0 ? "connected" : "disconnected" },
            status: ready ? "ready" : draining ? "draining" : nil, errorCode: ready ? nil : "NOT_READY",
            message: message)
        return try JSONResponse.make(status: ready ? .ok : .serviceUnavailable, encoding: readiness)
    }
}
