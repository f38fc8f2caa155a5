public import TopicGateCore

/// The abuse controls' records (token buckets, lockouts, checks in flight) that the gateways of a
/// fleet share, as JSON text each with the time after which it may be dropped.
public protocol AbuseRecordStore: Sendable {
    /// Reads the records of `keys` (a missing record, or one that expired before `now`, is
    /// absent), locked against every other gateway, and hands them to `update`; writes back the
    /// records it returns (nil: dropped) in the same transaction, and returns its result.
    func updateAbuseRecords<Result: Sendable>(
        keys: [String], now: UnixMillis,
        _ update: @escaping @Sendable ([String: String]) -> (records: [String: StoredAbuseRecord?], result: Result)
    ) async throws -> Result
}
