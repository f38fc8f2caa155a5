import TopicGateCore
import TopicGateStore

/// `GET …/overview`: the app's counts, its outbox depth and dead letters, what this gateway
/// did for it since it started, and with push on, the broker link and the app's devices
/// online on this gateway's brokers.
struct AppOverview: Encodable, Sendable {
    let at: UnixMillis
    let counts: AppCounts
    let outboxDepth: Int
    let deadLetters: Int
    let gateway: GatewayTotals
    let brokerConnected: Bool?
    let devicesOnline: Int?
}
