import GRDB
import TopicGateCore

// Times are stored as the integers they stand for (the columns are INTEGER).

extension UnixMillis: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> UnixMillis? {
        guard let millis = Int64.fromDatabaseValue(value) else { return nil }
        return UnixMillis(millis)
    }
}

extension UnixSeconds: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> UnixSeconds? {
        guard let seconds = Int64.fromDatabaseValue(value) else { return nil }
        return UnixSeconds(seconds)
    }
}
