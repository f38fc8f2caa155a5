import TopicGateCore

/// One page of a listing, as Kii pages them: its rows under the listing's own name
/// (`commands`, `triggers`, `results`, `events`, …), and `nextPaginationKey` when more follow.
struct ListingPage<Row: Encodable & Sendable>: Encodable, Sendable {
    let name: String
    let rows: [Row]
    let nextPaginationKey: String?

    init(_ name: String, _ rows: [Row], next: String?) {
        self.name = name
        self.rows = rows
        self.nextPaginationKey = next
    }

    /// A page read by sequence: when it is full, the next one starts after its last row's.
    init(_ name: String, _ rows: [(sequence: Int64, row: Row)], limit: Int) {
        self.init(
            name, rows.map(\.row), next: rows.count == limit ? rows.last.map { String($0.sequence) } : nil)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberName.self)
        try container.encode(rows, forKey: MemberName(name))
        try container.encodeIfPresent(nextPaginationKey, forKey: MemberName("nextPaginationKey"))
    }
}

/// A page of domain values is written by `JSONWriter` from their own forms, as they are one by one.
extension ListingPage: JSONRepresentable where Row: JSONRepresentable {
    var json: JSONValue {
        var members: [String: JSONValue] = [name: .array(rows.map(\.json))]
        if let nextPaginationKey { members["nextPaginationKey"] = .string(nextPaginationKey) }
        return .object(members)
    }
}
