/// An answer of one member whose name is data: the field a path names (`{"thingType": …}`,
/// a trigger parameter's `{"<name>": …}`).
struct SingleMember<Value: Encodable & Sendable>: Encodable, Sendable {
    let name: String
    let value: Value

    init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberName.self)
        try container.encode(value, forKey: MemberName(name))
    }
}
