import GRDB
public import TopicGateCore

extension SQLiteStore: AppStore {
    public func insertApp(_ app: App) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO apps (app_id, app_key, client_id, client_secret_hash, name, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                app.id.rawValue, app.key, app.clientID, app.clientSecretHash, app.name, app.createdAt,
            ])
        }
    }

    public func app(id: AppID) async throws -> App? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE app_id = ?"), arguments: [id.rawValue])
                .map(Self.app)
        }
    }

    public func app(clientID: String) async throws -> App? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE client_id = ?"), arguments: [clientID])
                .map(Self.app)
        }
    }

    public func apps() async throws -> [App] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM apps ORDER BY created_at, app_id")).map(Self.app)
        }
    }

    public func updateApp(_ app: App) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: "UPDATE apps SET app_key = ?, client_id = ?, client_secret_hash = ?, name = ? WHERE app_id = ?"
            ).execute(arguments: [app.key, app.clientID, app.clientSecretHash, app.name, app.id.rawValue])
        }
    }

    static func app(_ row: Row) -> App {
        App(
            id: AppID(row["app_id"] as String), key: row["app_key"], clientID: row["client_id"],
            clientSecretHash: row["client_secret_hash"], name: row["name"], createdAt: row["created_at"])
    }
}
