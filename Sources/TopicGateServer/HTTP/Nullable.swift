/// A member written as `null` when it has no value, where the answer always names it (a
/// Swift optional is left out instead).
struct Nullable<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    let value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
