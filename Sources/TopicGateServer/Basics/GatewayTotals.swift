/// What one gateway process did since it started, for the console's live rates: the same
/// events as the Prometheus counters, read without parsing the exposition. A fleet has one
/// set per gateway.
struct GatewayTotals: Sendable, Hashable, Encodable {
    var sendsAllowed = 0
    var sendsDenied = 0
    var subscribesAllowed = 0
    var subscribesDenied = 0
    /// Publications the broker acknowledged (one per device a push reached).
    var deliveries = 0
    var deliveriesFailed = 0
    var deadLettered = 0
}
