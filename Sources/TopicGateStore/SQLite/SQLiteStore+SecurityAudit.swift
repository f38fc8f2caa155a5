import GRDB
public import TopicGateCore

extension SQLiteStore: SecurityAuditStore {
    public func appendSecurityEvent(_ event: SecurityEvent) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO security_audit (app_id, at, event, actor, subject_id, account, client_address, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                event.appID.rawValue, event.at.rawValue, event.kind.rawValue, event.actor, event.subjectID,
                event.account,
                event.clientAddress, event.detail,
            ])
        }
    }

    public func securityEvents(appID: AppID, limit: Int, before: Int64?) async throws
        -> [(sequence: Int64, event: SecurityEvent)]
    {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM security_audit WHERE app_id = ? AND audit_id < ?
                        ORDER BY audit_id DESC LIMIT ?
                        """),
                arguments: [appID.rawValue, before ?? Int64.max, limit]
            ).map { row in
                (
                    row["audit_id"],
                    SecurityEvent(
                        at: UnixMillis(row["at"] as Int64), appID: AppID(row["app_id"] as String),
                        kind: SecurityEvent.Kind(rawValue: row["event"]), actor: row["actor"],
                        subjectID: row["subject_id"],
                        account: row["account"], clientAddress: row["client_address"], detail: row["detail"])
                )
            }
        }
    }
}
