/// A member's name chosen at run time, for the typed answers whose names Kii takes from data
/// (a listing's name, a thing's field, an ACL's actions).
struct MemberName: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
}
