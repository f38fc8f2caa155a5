import GRDB
public import TopicGateCore

extension SQLiteStore: QueryStore {
    public func queryUsers(appID: AppID, _ request: QueryRequest) async throws -> (users: [User], more: Bool) {
        try await query(request, decode: Self.user) { query in try query.users(appID: appID, request) }
    }

    public func queryThings(appID: AppID, _ request: QueryRequest) async throws -> (things: [Thing], more: Bool) {
        try await query(request, decode: Self.thing) { query in try query.things(appID: appID, request) }
    }

    /// Runs the query `compile` writes, decoding each row; whether more than a page matched.
    private func query<Result: Sendable>(
        _ request: QueryRequest, decode: @escaping @Sendable (Row) throws -> Result,
        compile: (inout QuerySQL) throws -> String
    ) async throws -> ([Result], Bool) {
        var query = QuerySQL(.sqlite)
        let sql = try compile(&query)
        let binds = query.binds
        let results = try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: Self.arguments(binds)).map(decode)
        }
        return (Array(results.prefix(request.limit)), results.count > request.limit)
    }

    static func arguments(_ binds: [QuerySQL.Bind]) -> StatementArguments {
        StatementArguments(
            binds.map { bind -> (any DatabaseValueConvertible)? in
                switch bind {
                case .text(let text): text
                case .integer(let number): number
                case .real(let number): number
                case .boolean(let flag): flag
                }
            })
    }
}
