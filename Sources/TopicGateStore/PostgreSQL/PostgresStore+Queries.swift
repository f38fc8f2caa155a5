internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: QueryStore {
    public func queryUsers(appID: AppID, _ request: QueryRequest) async throws -> (users: [User], more: Bool) {
        try await query(request, decode: Self.user) { query in try query.users(appID: appID, request) }
    }

    public func queryThings(appID: AppID, _ request: QueryRequest) async throws -> (things: [Thing], more: Bool) {
        try await query(request, decode: Self.thing) { query in try query.things(appID: appID, request) }
    }

    /// Runs the query `compile` writes, decoding each row; whether more than a page matched.
    private func query<Result: Sendable>(
        _ request: QueryRequest, decode: @escaping @Sendable (PostgresColumns) throws -> Result,
        compile: (inout QuerySQL) throws -> String
    ) async throws -> ([Result], Bool) {
        var query = QuerySQL(.postgres)
        let statement = PostgresQuery(unsafeSQL: try compile(&query), binds: Self.bindings(query.binds))
        let results = try await read { connection in try await connection.rows(statement).map(decode) }
        return (Array(results.prefix(request.limit)), results.count > request.limit)
    }

    static func bindings(_ binds: [QuerySQL.Bind]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .boolean(let flag): bindings.append(flag)
            }
        }
        return bindings
    }
}
