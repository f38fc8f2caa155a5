import TopicGateCore

/// Where `AbuseGuard` keeps its records: in this process (one gateway) or in the database that
/// the gateways of a fleet share, so that N gateways never give N times the budget.
protocol AbuseLedger: Sendable {
    /// Runs `body` on the records of `keys` (absent and expired ones missing) as one step that
    /// no other step on these keys interleaves with, on any gateway sharing the ledger; keeps
    /// the records it leaves (a record it removed, or one already expired, is dropped).
    func withRecords<Result: Sendable>(
        _ keys: [String], now: UnixMillis, _ body: @escaping @Sendable (inout [String: AbuseRecord]) -> Result
    ) async throws -> Result
}
