/// The ID of one kind of domain object, typed by that kind so that a `UserID` is never passed
/// where a `ThingID` is wanted. The raw value is what travels on the wire.
public struct Identifier<Kind>: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

public typealias AppID = Identifier<App>
public typealias UserID = Identifier<User>
public typealias GroupID = Identifier<Group>
public typealias ThingID = Identifier<Thing>
public typealias CommandID = Identifier<Command>
public typealias TriggerID = Identifier<Trigger>
public typealias PushMessageID = Identifier<PushMessage>

/// The syntax every ID accepted from a client must have.
public enum IDSyntax {
    /// True when `text` can be an ID: 1 to 128 characters of letters, digits, `-`, `_` and `.`.
    /// This keeps IDs safe inside URLs, MQTT topics (no `+`, `#`, `/`) and typed IDs (no `:`).
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default:
                    return false
                }
            }
    }
}

extension Identifier: ExpressibleByStringLiteral {
    /// A literal ID, for fixtures and tests: a string variable still needs `Identifier(_:)`.
    public init(stringLiteral value: String) { self.init(value) }
}
