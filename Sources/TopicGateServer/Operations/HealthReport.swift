import TopicGateCore

/// `GET /health`: the process answers, and which version it runs. The same for the process's
/// life, so written once.
struct HealthReport: Encodable, Sendable {
    let status: String
    let version: String

    static let current = HealthReport(status: "ok", version: TopicGateVersion.current)
    static let bytes: [UInt8] = (try? JSONResponse.bytes(current)) ?? []
}
