import Synchronization
import TopicGateCore

/// The records of one gateway, in memory; bounded: past `pruneThreshold` records, expired ones
/// are dropped every thousand steps.
final class MemoryAbuseLedger: AbuseLedger {
    private struct State {
        var records: [String: AbuseRecord] = [:]
        var steps = 0
    }

    private let state = Mutex(State())
    let pruneThreshold: Int

    init(pruneThreshold: Int = 50_000) { self.pruneThreshold = pruneThreshold }

    func withRecords<Result: Sendable>(
        _ keys: [String], now: UnixMillis, _ body: @escaping @Sendable (inout [String: AbuseRecord]) -> Result
    ) async throws -> Result {
        state.withLock { state in
            var records: [String: AbuseRecord] = [:]
            for key in keys { records[key] = state.records[key].flatMap { $0.expiresAt >= now ? $0 : nil } }
            let result = body(&records)
            for key in keys { state.records[key] = records[key] }
            state.steps += 1
            if state.records.count > pruneThreshold, state.steps % 1024 == 0 {
                state.records = state.records.filter { $0.value.expiresAt >= now }
            }
            return result
        }
    }
}
