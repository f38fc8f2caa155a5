import PostgresNIO
public import TopicGateCore

extension PostgresStore: QueryStore {
    public func queryUsers(appID: AppID, _ request: QueryRequest) async throws -> (users: [User], more: Bool) {
        var query = QuerySQL(.postgres)
        let sql = try query.users(appID: appID, request)
        let statement = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(query.binds))
        let rows = try await read { connection in try await connection.rows(statement) }
        return (try rows.prefix(request.limit).map(Self.user), rows.count > request.limit)
    }

    public func queryThings(appID: AppID, _ request: QueryRequest) async throws -> (things: [Thing], more: Bool) {
        var query = QuerySQL(.postgres)
        let sql = try query.things(appID: appID, request)
        let statement = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(query.binds))
        let rows = try await read { connection in try await connection.rows(statement) }
        return (try rows.prefix(request.limit).map(Self.thing), rows.count > request.limit)
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
