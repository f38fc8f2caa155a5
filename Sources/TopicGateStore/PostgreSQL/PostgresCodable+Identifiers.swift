import NIOCore
import PostgresNIO
import TopicGateCore

// IDs are TEXT columns and times BIGINT columns, bound and read as the values they stand for.

extension Identifier: PostgresNonThrowingEncodable, PostgresDecodable {
    public static var psqlType: PostgresDataType { String.psqlType }
    public static var psqlFormat: PostgresFormat { String.psqlFormat }

    public func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        rawValue.encode(into: &buffer, context: context)
    }

    public init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        self.init(try String(from: &buffer, type: type, format: format, context: context))
    }
}

/// A type that is an Int64 underneath: a BIGINT column.
protocol BigIntColumn: PostgresNonThrowingEncodable, PostgresDecodable, RawRepresentable where RawValue == Int64 {
    init(_ rawValue: Int64)
}

extension BigIntColumn {
    public static var psqlType: PostgresDataType { Int64.psqlType }
    public static var psqlFormat: PostgresFormat { Int64.psqlFormat }

    public func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        rawValue.encode(into: &buffer, context: context)
    }

    public init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        self.init(try Int64(from: &buffer, type: type, format: format, context: context))
    }
}

extension UnixMillis: BigIntColumn {}
extension UnixSeconds: BigIntColumn {}
