import GRDB
public import TopicGateCore

extension SQLiteStore: QueryStore {
    public func queryUsers(appID: AppID, _ request: QueryRequest) async throws -> (users: [User], more: Bool) {
        var query = QuerySQL(.sqlite)
        let sql = try query.users(appID: appID, request)
        let binds = query.binds
        let users = try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: Self.arguments(binds)).map(Self.user)
        }
        return (Array(users.prefix(request.limit)), users.count > request.limit)
    }

    public func queryThings(appID: AppID, _ request: QueryRequest) async throws -> (things: [Thing], more: Bool) {
        var query = QuerySQL(.sqlite)
        let sql = try query.things(appID: appID, request)
        let binds = query.binds
        let things = try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: Self.arguments(binds)).map(Self.thing)
        }
        return (Array(things.prefix(request.limit)), things.count > request.limit)
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
