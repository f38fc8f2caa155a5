internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: InstallationStore {
    public func insertInstallation(_ installation: Installation, limit: Int?) async throws -> InstallationInsertion {
        let (kind, id) = StoredForm.columns(installation.principal)
        return try await write { connection in
            // Under the principal's quota lock, the same device looked up and the quota counted
            // with no other gateway's insert in between.
            try await Self.lockQuota(connection, "installations", installation.appID, installation.principal)
            if let same = try await connection.first(
                """
                SELECT * FROM installations
                WHERE app_id = \(installation.appID) AND device_type = \(installation.deviceType)
                    AND registration_id = \(installation.registrationID) AND principal_kind = \(kind)
                    AND principal_id = \(id) AND token_hash IS NOT DISTINCT FROM \(installation.tokenHash)
                    AND development = \(installation.development) AND revoked_at IS NULL
                ORDER BY created_at DESC LIMIT 1
                """
            ).flatMap(Self.installation) {
                return .existing(same)
            }
            if let limit {
                let held =
                    try await connection.first(
                        """
                        SELECT COUNT(*) AS n FROM installations
                        WHERE app_id = \(installation.appID) AND principal_kind = \(kind) AND principal_id = \(id)
                            AND revoked_at IS NULL
                        """
                    ).map { Int(try $0("n", as: Int64.self)) } ?? 0
                if held >= limit { return .limited(held: held) }
            }
            try await Self.insert(connection, installation)
            return .inserted
        }
    }

    public func insertInstallation(_ installation: Installation, replacingOldestAt limit: Int, now: UnixMillis)
        async throws -> [Installation]
    {
        let (kind, id) = StoredForm.columns(installation.principal)
        return try await write { connection in
            // Under the principal's quota lock, as every insert that counts: chosen, revoked and
            // inserted with no other gateway's insert in between.
            try await Self.lockQuota(connection, "installations", installation.appID, installation.principal)
            let revoked = try await connection.rows(
                """
                WITH live AS (
                    SELECT installation_id,
                        row_number() OVER (ORDER BY created_at DESC, installation_id DESC) AS newer
                    FROM installations
                    WHERE app_id = \(installation.appID) AND principal_kind = \(kind) AND principal_id = \(id)
                        AND revoked_at IS NULL)
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(installation.appID)
                    AND installation_id IN (SELECT installation_id FROM live WHERE newer >= \(Int64(limit)))
                RETURNING *
                """
            ).compactMap(Self.installation)
            try await Self.insert(connection, installation)
            return revoked
        }
    }

    static func insert(_ connection: PostgresConnection, _ installation: Installation) async throws {
        let (kind, id) = StoredForm.columns(installation.principal)
        try await connection.run(
            """
            INSERT INTO installations (installation_id, app_id, principal_kind, principal_id, device_type,
                registration_id, mqtt_topic, development, created_at, token_hash, credentials_expire_at, revoked_at,
                broker)
            VALUES (\(installation.id.rawValue), \(installation.appID), \(kind), \(id), \(installation.deviceType),
                \(installation.registrationID), \(installation.mqttTopic), \(installation.development),
                \(installation.createdAt), \(installation.tokenHash), \(installation.credentialsExpireAt),
                \(installation.revokedAt), \(installation.broker))
            """)
    }

    public func installation(appID: AppID, id: InstallationID) async throws -> Installation? {
        try await read { connection in
            try await connection.first(
                """
                SELECT * FROM installations
                WHERE app_id = \(appID) AND installation_id = \(id.rawValue) AND revoked_at IS NULL
                """
            ).flatMap(Self.installation)
        }
    }

    public func liveInstallation(mqttTopic: String) async throws -> Installation? {
        try await read { connection in
            try await connection.first(
                "SELECT * FROM installations WHERE mqtt_topic = \(mqttTopic) AND revoked_at IS NULL"
            ).flatMap(Self.installation)
        }
    }

    public func installation(appID: AppID, deviceType: String, registrationID: String, boundTo principal: Principal?)
        async throws -> Installation?
    {
        // Nil columns match every principal.
        let columns = principal.map { StoredForm.columns($0) }
        let kind = columns?.kind
        let id = columns?.id
        return try await read { connection in
            try await connection.first(
                """
                SELECT * FROM installations
                WHERE app_id = \(appID) AND device_type = \(deviceType) AND registration_id = \(registrationID)
                    AND revoked_at IS NULL
                    AND (\(kind)::text IS NULL OR (principal_kind = \(kind) AND principal_id = \(id)))
                ORDER BY created_at DESC LIMIT 1
                """
            ).flatMap(Self.installation)
        }
    }

    public func liveInstallations(appID: AppID, principals: [Principal]) async throws -> [Installation] {
        try await liveInstallationRows(appID: appID, principals: principals, columns: "*", decode: Self.installation)
    }

    public func pushEndpoints(appID: AppID, principals: [Principal]) async throws -> [PushEndpoint] {
        try await liveInstallationRows(
            appID: appID, principals: principals,
            columns: "installation_id, principal_kind, principal_id, device_type, mqtt_topic, broker"
        ) { row in
            // The device type is checked here, not in the query, which then has one index to
            // take: the principals' (on SQLite, a device-type condition made it take the
            // registration index and read every device of the app).
            guard try row("device_type", as: String.self) == "MQTT" else { return nil }
            return try StoredForm.principal(kind: row("principal_kind"), id: row("principal_id")).map {
                PushEndpoint(
                    installationID: InstallationID(try row("installation_id", as: String.self)), principal: $0,
                    mqttTopic: try row("mqtt_topic"), broker: try row("broker", as: String?.self))
            }
        }
    }

    /// `columns` of the live installations of any of `principals`, each principal's oldest
    /// first, each row decoded by `decode` (nil: left out).
    private func liveInstallationRows<T: Sendable>(
        appID: AppID, principals: [Principal], columns: String,
        decode: @escaping @Sendable (PostgresColumns) throws -> T?
    ) async throws -> [T] {
        guard !principals.isEmpty else { return [] }
        let stored = principals.map(StoredForm.columns)
        let users = stored.filter { $0.kind == "user" }.map(\.id)
        let things = stored.filter { $0.kind == "thing" }.map(\.id)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: columns) FROM installations
                WHERE app_id = \(appID) AND revoked_at IS NULL
                    AND ((principal_kind = 'thing' AND principal_id = ANY(\(things)))
                        OR (principal_kind = 'user' AND principal_id = ANY(\(users))))
                ORDER BY principal_kind, created_at, installation_id
                """
            ).compactMap(decode)
        }
    }

    public func recordCredentials(appID: AppID, id: InstallationID, expiresAt: UnixSeconds) async throws -> Bool {
        try await changesRow(
            """
            UPDATE installations SET credentials_expire_at = GREATEST(COALESCE(credentials_expire_at, 0), \(expiresAt))
            WHERE app_id = \(appID) AND installation_id = \(id.rawValue) AND revoked_at IS NULL RETURNING 1
            """)
    }

    public func assignBroker(appID: AppID, id: InstallationID, broker: String) async throws {
        try await write { connection in
            try await connection.run(
                """
                UPDATE installations SET broker = \(broker) WHERE app_id = \(appID) AND installation_id = \(id.rawValue)
                """)
        }
    }

    public func liveInstallationsByBroker() async throws -> [String?: Int] {
        try await read { connection in
            var counts: [String?: Int] = [:]
            for row in try await connection.rows(
                "SELECT broker, COUNT(*) AS n FROM installations WHERE revoked_at IS NULL GROUP BY broker")
            {
                counts.updateValue(Int(try row("n", as: Int64.self)), forKey: try row("broker", as: String?.self))
            }
            return counts
        }
    }

    public func revokeInstallations(appID: AppID, _ selection: InstallationSelection, now: UnixMillis) async throws
        -> [Installation]
    {
        let query: PostgresQuery
        switch selection {
        case .one(let id):
            query = """
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(appID) AND revoked_at IS NULL AND installation_id = \(id.rawValue) RETURNING *
                """
        case .principal(let principal):
            let (kind, id) = StoredForm.columns(principal)
            query = """
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(appID) AND revoked_at IS NULL AND principal_kind = \(kind) AND principal_id = \(id)
                RETURNING *
                """
        case .installedWithOtherTokens(let principal, let keeping):
            let (kind, id) = StoredForm.columns(principal)
            query = """
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(appID) AND revoked_at IS NULL AND principal_kind = \(kind) AND principal_id = \(id)
                    AND token_hash IS NOT NULL AND token_hash IS DISTINCT FROM \(keeping)
                RETURNING *
                """
        case .allInstalledWithout(let principal, let keeping):
            let (kind, id) = StoredForm.columns(principal)
            query = """
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(appID) AND revoked_at IS NULL AND principal_kind = \(kind) AND principal_id = \(id)
                    AND (token_hash IS NULL OR token_hash IS DISTINCT FROM \(keeping))
                RETURNING *
                """
        case .installedWith(let token):
            query = """
                UPDATE installations SET revoked_at = \(now)
                WHERE app_id = \(appID) AND revoked_at IS NULL AND token_hash = \(token)
                RETURNING *
                """
        }
        return try await write { connection in try await connection.rows(query).compactMap(Self.installation) }
    }

    public func revokedInstallations(appID: AppID, principal: Principal, now: UnixSeconds) async throws
        -> [Installation]
    {
        let (kind, id) = StoredForm.columns(principal)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM installations
                WHERE app_id = \(appID) AND principal_kind = \(kind) AND principal_id = \(id) AND revoked_at IS NOT NULL
                    AND credentials_expire_at > \(now)
                ORDER BY revoked_at DESC
                """
            ).compactMap(Self.installation)
        }
    }

    public func outstandingRevocations(now: UnixSeconds) async throws -> [Installation] {
        try await read { connection in
            try await connection.rows(
                "SELECT * FROM installations WHERE revoked_at IS NOT NULL AND credentials_expire_at > \(now)"
            ).compactMap(Self.installation)
        }
    }

    public func purgeRevokedInstallations(now: UnixSeconds) async throws -> Int {
        try await write { connection in
            try await connection.count(
                """
                DELETE FROM installations WHERE revoked_at IS NOT NULL AND COALESCE(credentials_expire_at, 0) <= \(now)
                RETURNING 1
                """)
        }
    }

    public func recordLastSeen(_ seen: [String: UnixMillis]) async throws {
        let seen = Array(seen)
        for start in stride(from: 0, to: seen.count, by: 1000) {
            let slice = seen[start..<min(start + 1000, seen.count)]
            let usernames = slice.map(\.key)
            let times = slice.map(\.value.rawValue)
            try await write { connection in
                try await connection.run(
                    """
                    UPDATE installations AS i SET last_seen_at = GREATEST(COALESCE(i.last_seen_at, 0), s.at)
                    FROM unnest(\(usernames)::text[], \(times)::bigint[]) AS s(username, at)
                    WHERE i.mqtt_topic = s.username
                    """)
            }
        }
    }

    public func installationApps(mqttTopics: [String]) async throws -> [String: AppID] {
        guard !mqttTopics.isEmpty else { return [:] }
        let rows = try await read { connection in
            try await connection.rows(
                "SELECT mqtt_topic, app_id FROM installations WHERE mqtt_topic = ANY(\(mqttTopics))"
            ).map { (try $0("mqtt_topic", as: String.self), try $0("app_id", as: AppID.self)) }
        }
        return Dictionary(rows) { first, _ in first }
    }

    static func installation(_ row: PostgresColumns) throws -> Installation? {
        guard let principal = StoredForm.principal(kind: try row("principal_kind"), id: try row("principal_id")) else {
            return nil
        }
        return Installation(
            id: InstallationID(try row("installation_id", as: String.self)), appID: try row("app_id"),
            principal: principal, deviceType: try row("device_type"), registrationID: try row("registration_id"),
            mqttTopic: try row("mqtt_topic"), development: try row("development"), createdAt: try row("created_at"),
            tokenHash: try row("token_hash"), credentialsExpireAt: try row("credentials_expire_at"),
            revokedAt: try row("revoked_at"), broker: try row("broker"), lastSeenAt: try row("last_seen_at"))
    }
}
