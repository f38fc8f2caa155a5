internal import PostgresNIO

/// One result row, read by column name: `try row("user_id")`.
struct PostgresColumns {
    let row: PostgresRandomAccessRow

    func callAsFunction<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try row[column].decode(T.self)
    }
}
