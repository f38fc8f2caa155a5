import GRDB
public import TopicGateCore

extension SQLiteStore: InstallationStore {
    public func insertInstallation(_ installation: Installation, limit: Int?) async throws -> InstallationInsertion {
        let (kind, id) = StoredForm.columns(installation.principal)
        return try await write { db in
            // Looked up in the write: two installs of one device racing end with one installation.
            if let same = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.installationColumns) FROM installations
                        WHERE app_id = ? AND device_type = ? AND registration_id = ? AND principal_kind = ?
                            AND principal_id = ? AND token_hash IS ? AND development = ? AND revoked_at IS NULL
                        ORDER BY created_at DESC LIMIT 1
                        """),
                arguments: [
                    installation.appID.rawValue, installation.deviceType, installation.registrationID, kind, id,
                    installation.tokenHash, installation.development,
                ]
            ).flatMap(Self.installation) {
                return .existing(same)
            }
            if let limit {
                // Counted in the write: no other write commits between the count and the insert.
                let held =
                    try Int.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT COUNT(*) FROM installations
                                WHERE app_id = ? AND principal_kind = ? AND principal_id = ? AND revoked_at IS NULL
                                """),
                        arguments: [installation.appID.rawValue, kind, id]) ?? 0
                if held >= limit { return .limited(held: held) }
            }
            try Self.insert(db, installation)
            return .inserted
        }
    }

    public func insertInstallation(_ installation: Installation, replacingOldestAt limit: Int, now: UnixMillis)
        async throws -> [Installation]
    {
        let (kind, id) = StoredForm.columns(installation.principal)
        return try await write { db in
            // Chosen and revoked in the write that inserts: no other write commits in between.
            let live = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.installationColumns) FROM installations
                        WHERE app_id = ? AND principal_kind = ? AND principal_id = ? AND revoked_at IS NULL
                        ORDER BY created_at, installation_id
                        """),
                arguments: [installation.appID.rawValue, kind, id]
            ).compactMap(Self.installation)
            let oldest = live.prefix(max(0, live.count - limit + 1))
            for revoked in oldest {
                try db.cachedStatement(sql: "UPDATE installations SET revoked_at = ? WHERE installation_id = ?")
                    .execute(arguments: [now.rawValue, revoked.id.rawValue])
            }
            try Self.insert(db, installation)
            return oldest.map { revoked in
                var revoked = revoked
                revoked.revokedAt = now
                return revoked
            }
        }
    }

    static func insert(_ db: Database, _ installation: Installation) throws {
        let (kind, id) = StoredForm.columns(installation.principal)
        try db.cachedStatement(
            sql: """
                INSERT INTO installations (installation_id, app_id, principal_kind, principal_id, device_type,
                    registration_id, mqtt_topic, development, created_at, token_hash, credentials_expire_at,
                        revoked_at, broker)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            installation.id.rawValue, installation.appID.rawValue, kind, id, installation.deviceType,
            installation.registrationID, installation.mqttTopic, installation.development,
            installation.createdAt.rawValue, installation.tokenHash, installation.credentialsExpireAt?.rawValue,
            installation.revokedAt?.rawValue, installation.broker,
        ])
    }

    public func installation(appID: AppID, id: InstallationID) async throws -> Installation? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT \(Self.installationColumns) FROM installations WHERE app_id = ? AND installation_id = ? AND revoked_at IS NULL"
                ),
                arguments: [appID.rawValue, id.rawValue]
            ).flatMap(Self.installation)
        }
    }

    public func liveInstallation(mqttTopic: String) async throws -> Installation? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT \(Self.installationColumns) FROM installations WHERE mqtt_topic = ? AND revoked_at IS NULL"
                ),
                arguments: [mqttTopic]
            ).flatMap(Self.installation)
        }
    }

    public func installation(appID: AppID, deviceType: String, registrationID: String, boundTo principal: Principal?)
        async throws -> Installation?
    {
        let columns = principal.map { StoredForm.columns($0) }
        let arguments: StatementArguments =
            [appID.rawValue, deviceType, registrationID] + (columns.map { [$0.kind, $0.id] } ?? [])
        let bound = columns == nil ? "" : " AND principal_kind = ? AND principal_id = ?"
        let sql = """
            SELECT \(Self.installationColumns) FROM installations WHERE app_id = ? AND device_type = ? AND registration_id = ?
                AND revoked_at IS NULL\(bound) ORDER BY created_at DESC LIMIT 1
            """
        return try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments).flatMap(Self.installation)
        }
    }

    public func liveInstallations(appID: AppID, principals: [Principal]) async throws -> [Installation] {
        try await principalsRows(
            appID: appID, principals: principals, columns: Self.installationColumns, condition: "revoked_at IS NULL"
        ) { row, _ in Self.installation(row) }
    }

    public func pushEndpoints(appID: AppID, principals: [Principal]) async throws -> [PushEndpoint] {
        try await principalsRows(
            appID: appID, principals: principals, columns: "installation_id, principal_id, mqtt_topic, broker",
            // Named, so that SQLite never takes the (app, device type, registration) index
            // instead, which reads every MQTT installation of the app per query; the partial
            // index holds every column the query reads.
            index: "installations_push", condition: "revoked_at IS NULL AND device_type = 'MQTT'",
            // The index holds each principal's installations oldest first: no sort.
            order: nil
        ) { row, kind in
            StoredForm.principal(kind: kind, id: row[1]).map {
                PushEndpoint(
                    installationID: InstallationID(row[0] as String), principal: $0, mqttTopic: row[2], broker: row[3])
            }
        }
    }

    /// `columns` of the installations of any of `principals` that meet `condition` (read through
    /// `index`, one that starts with app, principal kind and principal ID), in `order` (nil:
    /// the index's), each row decoded by `decode` (given its principal kind) while
    /// SQLite still holds it: by kind, many principals per query (a fan-out to 1 000 users is
    /// two queries, not 1 000).
    private func principalsRows<T: Sendable>(
        appID: AppID, principals: [Principal], columns: String, index: String = "installations_principal",
        condition: String, order: String? = "created_at, installation_id",
        decode: @escaping @Sendable (Row, String) -> T?
    ) async throws -> [T] {
        guard !principals.isEmpty else { return [] }
        let byKind = Dictionary(grouping: principals.map(StoredForm.columns), by: \.0)
        let query: @Sendable (Database) throws -> [T] = { db in
            var found: [T] = []
            found.reserveCapacity(principals.count)
            for kind in byKind.keys.sorted() {
                for chunk in Self.chunks(byKind[kind]!.map(\.1)) {
                    let rows = try Row.fetchCursor(
                        Self.statement(
                            db,
                            """
                            SELECT \(columns) FROM installations INDEXED BY \(index)
                            WHERE app_id = ? AND principal_kind = ?
                                AND principal_id IN (\(Self.marks(chunk.count))) AND \(condition)
                            \(order.map { "ORDER BY \($0)" } ?? "")
                            """,
                            cached: chunk.count <= 16),
                        arguments: StatementArguments([appID.rawValue, kind] + chunk))
                    while let row = try rows.next() {
                        if let value = decode(row, kind) { found.append(value) }
                    }
                }
            }
            return found
        }
        // One query (a command's thing, a push to one user): no read transaction around it.
        let queries = byKind.values.reduce(0) { $0 + Self.chunks($1.map(\.1)).count }
        return try await queries == 1 ? readOneStatement(query) : read(query)
    }

    public func recordCredentials(appID: AppID, id: InstallationID, expiresAt: UnixSeconds) async throws -> Bool {
        try await changesRow(
            """
            UPDATE installations SET credentials_expire_at = MAX(COALESCE(credentials_expire_at, 0), ?)
            WHERE app_id = ? AND installation_id = ? AND revoked_at IS NULL
            """, [expiresAt.rawValue, appID.rawValue, id.rawValue])
    }

    public func assignBroker(appID: AppID, id: InstallationID, broker: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE installations SET broker = ? WHERE app_id = ? AND installation_id = ?")
                .execute(arguments: [broker, appID.rawValue, id.rawValue])
        }
    }

    public func liveInstallationsByBroker() async throws -> [String?: Int] {
        try await read { db in
            var counts: [String?: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT broker, COUNT(*) AS n FROM installations WHERE revoked_at IS NULL GROUP BY broker")
            {
                counts.updateValue(row["n"], forKey: row["broker"] as String?)
            }
            return counts
        }
    }

    public func revokeInstallations(appID: AppID, _ selection: InstallationSelection, now: UnixMillis) async throws
        -> [Installation]
    {
        let now = now.rawValue
        let (condition, arguments): (String, StatementArguments)
        switch selection {
        case .one(let id):
            (condition, arguments) = ("installation_id = ?", [id.rawValue])
        case .principal(let principal):
            let (kind, id) = StoredForm.columns(principal)
            (condition, arguments) = ("principal_kind = ? AND principal_id = ?", [kind, id])
        case .installedWithOtherTokens(let principal, let keeping):
            let (kind, id) = StoredForm.columns(principal)
            (condition, arguments) = (
                "principal_kind = ? AND principal_id = ? AND token_hash IS NOT NULL AND token_hash IS NOT ?",
                [kind, id, keeping]
            )
        case .allInstalledWithout(let principal, let keeping):
            let (kind, id) = StoredForm.columns(principal)
            (condition, arguments) = (
                "principal_kind = ? AND principal_id = ? AND (token_hash IS NULL OR token_hash IS NOT ?)",
                [kind, id, keeping]
            )
        case .installedWith(let token):
            (condition, arguments) = ("token_hash = ?", [token])
        }
        return try await write { db in
            let selected = "app_id = ? AND revoked_at IS NULL AND " + condition
            let all: StatementArguments = [appID.rawValue] + arguments
            let revoked = try Row.fetchAll(
                db, sql: "SELECT \(Self.installationColumns) FROM installations WHERE " + selected, arguments: all
            )
            .compactMap(Self.installation)
            try db.execute(sql: "UPDATE installations SET revoked_at = ? WHERE " + selected, arguments: [now] + all)
            return revoked.map { installation in
                var revoked = installation
                revoked.revokedAt = UnixMillis(now)
                return revoked
            }
        }
    }

    public func revokedInstallations(appID: AppID, principal: Principal, now: UnixSeconds) async throws
        -> [Installation]
    {
        let (kind, id) = StoredForm.columns(principal)
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.installationColumns) FROM installations
                        WHERE app_id = ? AND principal_kind = ? AND principal_id = ? AND revoked_at IS NOT NULL
                            AND credentials_expire_at > ?
                        ORDER BY revoked_at DESC
                        """),
                arguments: [appID.rawValue, kind, id, now.rawValue]
            ).compactMap(Self.installation)
        }
    }

    public func outstandingRevocations(now: UnixSeconds) async throws -> [Installation] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT \(Self.installationColumns) FROM installations WHERE revoked_at IS NOT NULL AND credentials_expire_at > ?"
                ),
                arguments: [now.rawValue]
            ).compactMap(Self.installation)
        }
    }

    public func purgeRevokedInstallations(now: UnixSeconds) async throws -> Int {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    DELETE FROM installations WHERE revoked_at IS NOT NULL
                        AND COALESCE(credentials_expire_at, 0) <= ?
                    """
            ).execute(arguments: [now.rawValue])
            return db.changesCount
        }
    }

    /// The columns `installation(_:)` reads, in the order it reads them: by position, since
    /// finding a column by name (case-insensitively) was a fifth of reading a fan-out's
    /// installations.
    static let installationColumns = """
        installation_id, app_id, principal_kind, principal_id, device_type, registration_id, mqtt_topic, development,
        created_at, token_hash, credentials_expire_at, revoked_at, broker, last_seen_at
        """

    public func recordLastSeen(_ seen: [String: UnixMillis]) async throws {
        // In slices, so that a burst of connections does not hold the writer for long.
        let seen = Array(seen)
        for start in stride(from: 0, to: seen.count, by: 500) {
            try await write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        UPDATE installations SET last_seen_at = MAX(COALESCE(last_seen_at, 0), ?) WHERE mqtt_topic = ?
                        """)
                for (username, at) in seen[start..<min(start + 500, seen.count)] {
                    try statement.execute(arguments: [at.rawValue, username])
                }
            }
        }
    }

    public func installationApps(mqttTopics: [String]) async throws -> [String: AppID] {
        var apps: [String: AppID] = [:]
        for start in stride(from: 0, to: mqttTopics.count, by: 500) {
            let slice = Array(mqttTopics[start..<min(start + 500, mqttTopics.count)])
            let found = try await read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT mqtt_topic, app_id FROM installations WHERE mqtt_topic IN "
                        + "(\(databaseQuestionMarks(count: slice.count)))",
                    arguments: StatementArguments(slice)
                ).map { ($0[0] as String, $0[1] as String) }
            }
            for (username, app) in found { apps[username] = AppID(app) }
        }
        return apps
    }

    /// An installation from a row of `installationColumns`.
    static func installation(_ row: Row) -> Installation? {
        guard let principal = StoredForm.principal(kind: row[2], id: row[3]) else { return nil }
        let createdAt: Int64 = row[8]
        let credentialsExpireAt: Int64? = row[10]
        let revokedAt: Int64? = row[11]
        let lastSeenAt: Int64? = row[13]
        return Installation(
            id: InstallationID(row[0] as String), appID: AppID(row[1] as String), principal: principal,
            deviceType: row[4], registrationID: row[5], mqttTopic: row[6], development: row[7],
            createdAt: UnixMillis(createdAt), tokenHash: row[9],
            credentialsExpireAt: credentialsExpireAt.map { UnixSeconds($0) },
            revokedAt: revokedAt.map { UnixMillis($0) },
            broker: row[12], lastSeenAt: lastSeenAt.map { UnixMillis($0) })
    }
}
