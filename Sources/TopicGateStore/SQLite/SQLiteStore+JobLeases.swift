import GRDB
public import TopicGateCore

extension SQLiteStore: JobLeaseStore {
    public func takeJobLease(_ job: String, gateway: String, now: UnixMillis, until: UnixMillis) async throws -> Bool {
        let now = now.rawValue
        let until = until.rawValue
        return try await changesRow(
            """
            INSERT INTO job_leases (job, holder, lease_until) VALUES (?, ?, ?)
            ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
            WHERE job_leases.lease_until < ? OR job_leases.holder = excluded.holder
            """, [job, gateway, until, now])
    }
}
