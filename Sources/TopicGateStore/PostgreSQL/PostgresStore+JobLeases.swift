internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: JobLeaseStore {
    public func takeJobLease(_ job: String, gateway: String, now: UnixMillis, until: UnixMillis) async throws -> Bool {
        try await changesRow(
            """
            INSERT INTO job_leases (job, holder, lease_until) VALUES (\(job), \(gateway), \(until))
            ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
            WHERE job_leases.lease_until < \(now) OR job_leases.holder = excluded.holder
            RETURNING 1
            """)
    }
}
