internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: AppStore {
    public func insertApp(_ app: App) async throws {
        try await write { connection in
            try await connection.run(
                """
                INSERT INTO apps (app_id, app_key, client_id, client_secret_hash, name, created_at)
                VALUES (\(app.id), \(app.key), \(app.clientID), \(app.clientSecretHash), \(app.name), \(app.createdAt))
                """)
        }
    }

    public func app(id: AppID) async throws -> App? {
        try await read { connection in
            try await connection.first("SELECT * FROM apps WHERE app_id = \(id)").map(Self.app)
        }
    }

    public func app(clientID: String) async throws -> App? {
        try await read { connection in
            try await connection.first("SELECT * FROM apps WHERE client_id = \(clientID)").map(Self.app)
        }
    }

    public func apps() async throws -> [App] {
        try await read { connection in
            try await connection.rows("SELECT * FROM apps ORDER BY created_at, app_id").map(Self.app)
        }
    }

    public func updateApp(_ app: App) async throws {
        try await write { connection in
            try await Self.notify(connection, .app(app.id))
            try await connection.run(
                """
                UPDATE apps SET app_key = \(app.key), client_id = \(app.clientID),
                    client_secret_hash = \(app.clientSecretHash), name = \(app.name)
                WHERE app_id = \(app.id)
                """)
        }
    }

    static func app(_ row: PostgresColumns) throws -> App {
        App(
            id: try row("app_id"), key: try row("app_key"), clientID: try row("client_id"),
            clientSecretHash: try row("client_secret_hash"), name: try row("name"), createdAt: try row("created_at"))
    }
}
