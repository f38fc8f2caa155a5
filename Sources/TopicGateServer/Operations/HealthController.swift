import Hummingbird
import TopicGateCore
import TopicGateStore

/// `GET /health` (the process answers) and `GET /ready` (the database answers and, with push
/// on, the gateway is connected to the broker): for load balancers, Compose and Kubernetes.
struct HealthController<Context: RequestContext>: Sendable {
    let operations: OperationsService
    /// The gateway's broker link; nil when push is off.
    let link: (any DeviceLink)?

    func addRoutes(to router: Router<Context>) {
        router.get("health") { _, _ in
            JSONResponse.ok(.object(["status": .string("ok")]))
        }
        router.get("ready") { _, _ in
            let database = await operations.databaseAnswers()
            let pushOn = link != nil
            let broker = link?.isReady ?? true
            var body: [String: JSONValue] = [
                "database": .string(database ? "ok" : "unreachable"),
                "broker": .string(!pushOn ? "off" : broker ? "connected" : "disconnected"),
            ]
            // With several brokers: ready while one is connected (the others' devices wait),
            // and each one's state.
            if let connections = link?.brokerConnections, !connections.isEmpty {
                body["brokers"] = .object(connections.mapValues { .string($0 ? "connected" : "disconnected") })
            }
            guard database && broker else {
                body["errorCode"] = .string("NOT_READY")
                body["message"] = .string(
                    !database ? "The database does not answer." : "The gateway is not connected to the MQTT broker.")
                return JSONResponse.make(status: .serviceUnavailable, body: .object(body))
            }
            body["status"] = .string("ready")
            return JSONResponse.ok(.object(body))
        }
    }
}
