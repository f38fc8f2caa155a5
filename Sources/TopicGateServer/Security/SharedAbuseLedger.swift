import TopicGateCore
import TopicGateStore

/// The records of a fleet, in the database the gateways share (one transaction a step, the
/// keys' rows locked).
struct SharedAbuseLedger: AbuseLedger {
    let store: any AbuseRecordStore

    func withRecords<Result: Sendable>(
        _ keys: [String], now: UnixMillis, _ body: @escaping @Sendable (inout [String: AbuseRecord]) -> Result
    ) async throws -> Result {
        try await store.updateAbuseRecords(keys: keys, now: now) { stored in
            var records: [String: AbuseRecord] = [:]
            for (key, text) in stored {
                records[key] = (try? JSONReader.value(Array(text.utf8))).flatMap(AbuseRecord.init(json:))
            }
            let before = records
            let result = body(&records)
            var changed: [String: StoredAbuseRecord?] = [:]
            for key in keys where records[key] != before[key] {
                // updateValue: a nil (drop the record) must be kept, not remove the key.
                changed.updateValue(
                    records[key].map {
                        StoredAbuseRecord(text: JSONWriter.string($0.json), expiresAt: $0.expiresAt)
                    },
                    forKey: key)
            }
            return (changed, result)
        }
    }
}
