/// A topic's name: 1 to 64 characters of letters, digits, `_` and `-` (Kii's rule), which also
/// keeps it safe in URLs and MQTT topics.
public struct TopicName: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard (1...64).contains(rawValue.utf8.count),
            rawValue.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            })
        else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
