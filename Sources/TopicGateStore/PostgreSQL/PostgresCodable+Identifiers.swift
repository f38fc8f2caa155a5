internal import PostgresNIO
import TopicGateCore

// IDs are TEXT columns and times BIGINT columns, bound and read as the values they stand for.
// Through these internal overloads, not conformances of the core's types to PostgresNIO's
// protocols: a conformance is public, and would make PostgresNIO part of the store's surface.

extension PostgresQuery.StringInterpolation {
    mutating func appendInterpolation<Kind>(_ value: Identifier<Kind>) { appendInterpolation(value.rawValue) }
    mutating func appendInterpolation<Kind>(_ value: Identifier<Kind>?) { appendInterpolation(value?.rawValue) }
    mutating func appendInterpolation(_ value: UnixMillis) { appendInterpolation(value.rawValue) }
    mutating func appendInterpolation(_ value: UnixMillis?) { appendInterpolation(value?.rawValue) }
    mutating func appendInterpolation(_ value: UnixSeconds) { appendInterpolation(value.rawValue) }
    mutating func appendInterpolation(_ value: UnixSeconds?) { appendInterpolation(value?.rawValue) }
    mutating func appendInterpolation<Kind>(_ values: [Identifier<Kind>]) {
        appendInterpolation(values.map(\.rawValue))
    }
}

extension PostgresColumns {
    func callAsFunction<Kind>(_ column: String, as type: Identifier<Kind>.Type = Identifier<Kind>.self) throws
        -> Identifier<Kind>
    {
        Identifier(try self(column, as: String.self))
    }

    func callAsFunction<Kind>(_ column: String, as type: Identifier<Kind>?.Type = Identifier<Kind>?.self) throws
        -> Identifier<Kind>?
    {
        try self(column, as: String?.self).map { Identifier($0) }
    }

    func callAsFunction(_ column: String, as type: UnixMillis.Type = UnixMillis.self) throws -> UnixMillis {
        UnixMillis(try self(column, as: Int64.self))
    }

    func callAsFunction(_ column: String, as type: UnixMillis?.Type = UnixMillis?.self) throws -> UnixMillis? {
        try self(column, as: Int64?.self).map { UnixMillis($0) }
    }

    func callAsFunction(_ column: String, as type: UnixSeconds.Type = UnixSeconds.self) throws -> UnixSeconds {
        UnixSeconds(try self(column, as: Int64.self))
    }

    func callAsFunction(_ column: String, as type: UnixSeconds?.Type = UnixSeconds?.self) throws -> UnixSeconds? {
        try self(column, as: Int64?.self).map { UnixSeconds($0) }
    }
}
