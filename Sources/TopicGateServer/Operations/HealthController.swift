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
        JSONResponse.ok(.object(["status": .string("ok"), "version": .string(TopicGateVersion.current)]))
    }

    func ready(_ request: Request, _ context: Context) async throws -> Response {
        let database = await operations.databaseAnswers()
        let pushOn = link != nil
        let broker = link?.isReady ?? true
        var body: [String: JSONValue] = [
            "database": .string(database ? "ok" : "unreachable"),
            "broker": .string(!pushOn ? "off" : broker ? "connected" : "disconnected"),
        ]
        // With several brokers: ready while one is connected (the others' devices wait), and
        // each one's state.
        if let connections = link?.brokerConnections, !connections.isEmpty {
            body["brokers"] = .object(connections.mapValues { .string($0 ? "connected" : "disconnected") })
        }
        let draining = drain.isDraining
        guard database && broker && !draining else {
            body["errorCode"] = .string("NOT_READY")
            if draining { body["status"] = .string("draining") }
            body["message"] = .string(
                draining
                    ? "The gateway is stopping: it answers the requests it gets until then, but takes no new ones."
                    : !database
                        ? "The database does not answer." : "The gateway is not connected to the MQTT broker.")
            return JSONResponse.make(status: .serviceUnavailable, body: .object(body))
        }
        body["status"] = .string("ready")
        return JSONResponse.ok(.object(body))
    }
}
