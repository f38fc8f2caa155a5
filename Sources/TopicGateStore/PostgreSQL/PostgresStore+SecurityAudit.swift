internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: SecurityAuditStore {
    public func appendSecurityEvent(_ event: SecurityEvent) async throws {
        try await write { connection in
            try await connection.run(
                """
                INSERT INTO security_audit (app_id, at, event, actor, subject_id, account, client_address, detail)
                VALUES (\(event.appID), \(event.at), \(event.kind.rawValue), \(event.actor), \(event.subjectID),
                    \(event.account), \(event.clientAddress), \(event.detail))
                """)
        }
    }

    public func securityEvents(appID: AppID, limit: Int, before: Int64?) async throws
        -> [(sequence: Int64, event: SecurityEvent)]
    {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM security_audit WHERE app_id = \(appID) AND audit_id < \(before ?? Int64.max)
                ORDER BY audit_id DESC LIMIT \(limit)
                """
            ).map { row in
                (
                    try row("audit_id"),
                    SecurityEvent(
                        at: try row("at"), appID: try row("app_id"),
                        kind: SecurityEvent.Kind(rawValue: try row("event")),
                        actor: try row("actor"), subjectID: try row("subject_id"), account: try row("account"),
                        clientAddress: try row("client_address"), detail: try row("detail"))
                )
            }
        }
    }
}
