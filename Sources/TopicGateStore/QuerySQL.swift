public import TopicGateCore

/// Kii's query clauses as a SQL condition over `users u` or `things t`, for either engine: the
/// condition with placeholders, the values bound to them, and the order. A field that cannot
/// be queried, or a value of the wrong kind for its field, is `INVALID_INPUT_DATA`.
public struct QuerySQL: Sendable {
    public enum Dialect: Sendable { case sqlite, postgres }

    /// One bound value.
    public enum Bind: Sendable, Hashable {
        case text(String)
        case integer(Int64)
        case real(Double)
        case boolean(Bool)
    }

    /// What a field is in SQL.
    struct Column {
        enum Kind { case text, integer, number, boolean }
        let expression: String
        let kind: Kind
        /// Compared without regard to case (a login name).
        var caseless = false
    }

    public let dialect: Dialect
    public private(set) var binds: [Bind] = []

    public init(_ dialect: Dialect) { self.dialect = dialect }

    /// The next placeholder for `bind`.
    mutating func placeholder(_ bind: Bind) -> String {
        binds.append(bind)
        return dialect == .sqlite ? "?" : "$\(binds.count)"
    }

    // MARK: Fields

    static let userColumns: [String: (String, Column.Kind)] = [
        "userID": ("u.user_id", .text), "loginName": ("u.login_name", .text),
        "displayName": ("u.display_name", .text), "emailAddress": ("u.email_address", .text),
        "phoneNumber": ("u.phone_number", .text), "country": ("u.country", .text), "locale": ("u.locale", .text),
        "createdAt": ("u.created_at", .integer), "modifiedAt": ("u.modified_at", .integer),
        "disabled": ("u.disabled", .boolean),
    ]

    static let thingColumns: [String: (String, Column.Kind)] = [
        "_thingID": ("t.thing_id", .text), "_vendorThingID": ("t.vendor_thing_id", .text),
        "_created": ("t.created_at", .integer), "_modified": ("t.modified_at", .integer),
        "_disabled": ("t.disabled", .boolean),
    ]

    static let thingFieldKinds: [String: Column.Kind] = {
        var kinds: [String: Column.Kind] = [:]
        for key in [
            "_thingType", "_vendor", "_firmwareVersion", "_productName", "_lot", "_layoutPosition",
        ] + (1...5).map({ "_stringField\($0)" }) {
            kinds[key] = .text
        }
        for index in 1...5 { kinds["_numberField\(index)"] = .number }
        return kinds
    }()

    /// The users' fields that can be queried, for error messages.
    public static var userFields: [String] { userColumns.keys.sorted() }
    public static var thingFields: [String] { (Array(thingColumns.keys) + Array(thingFieldKinds.keys)).sorted() }

    static func userColumn(_ field: String) throws(KiiError) -> Column {
        guard let (expression, kind) = Self.userColumns[field] else {
            throw KiiError.invalidInput(
                "'\(field)' cannot be queried; users are queried by \(Self.userFields.joined(separator: ", ")).",
                field: field)
        }
        return Column(expression: expression, kind: kind, caseless: field == "loginName")
    }

    static func thingColumn(_ field: String, _ dialect: Dialect) throws(KiiError) -> Column {
        if let (expression, kind) = Self.thingColumns[field] { return Column(expression: expression, kind: kind) }
        guard let kind = Self.thingFieldKinds[field] else {
            throw KiiError.invalidInput(
                "'\(field)' cannot be queried; things are queried by \(Self.thingFields.joined(separator: ", ")), "
                    + "userOwners and groupOwners.", field: field)
        }
        switch dialect {
        case .sqlite: return Column(expression: "json_extract(t.fields, '$.\(field)')", kind: kind)
        case .postgres:
            let text = "(t.fields::jsonb ->> '\(field)')"
            return Column(expression: kind == .number ? "\(text)::numeric" : text, kind: kind)
        }
    }

    // MARK: Conditions

    /// The condition `clause` sets, columns read by `column`.
    mutating func condition(_ clause: QueryClause, column: (String) throws(KiiError) -> Column) throws(KiiError)
        -> String
    {
        switch clause {
        case .all: return "1 = 1"
        case .eq(let field, let value):
            let column = try column(field)
            return try compare(column, "=", value)
        case .prefix(let field, let prefix):
            let column = try column(field)
            guard column.kind == .text else { throw Self.wrongKind(field) }
            // SQLite's LIKE ignores ASCII case, so it matches a login name and GLOB the others;
            // PostgreSQL's LIKE keeps case, so a login name is compared in lower case.
            switch (dialect, column.caseless) {
            case (.sqlite, true):
                return "\(column.expression) LIKE \(placeholder(.text(Self.like(prefix)))) ESCAPE '\\'"
            case (.sqlite, false):
                return "\(column.expression) GLOB \(placeholder(.text(Self.glob(prefix))))"
            case (.postgres, true):
                return "lower(\(column.expression)) LIKE lower(\(placeholder(.text(Self.like(prefix))))) ESCAPE '\\'"
            case (.postgres, false):
                return "\(column.expression) LIKE \(placeholder(.text(Self.like(prefix)))) ESCAPE '\\'"
            }
        case .range(let field, let lower, let upper):
            let column = try column(field)
            var parts: [String] = []
            if let lower { parts.append(try compare(column, lower.included ? ">=" : ">", lower.value)) }
            if let upper { parts.append(try compare(column, upper.included ? "<=" : "<", upper.value)) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .among(let field, let values):
            let column = try column(field)
            var parts: [String] = []
            for value in values { parts.append(try compare(column, "=", value)) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .hasField(let field, _):
            return "\(try column(field).expression) IS NOT NULL"
        case .not(let inner):
            return "NOT (\(try condition(inner, column: column)))"
        case .and(let clauses):
            var parts: [String] = []
            for inner in clauses { parts.append("(\(try condition(inner, column: column)))") }
            return parts.joined(separator: " AND ")
        case .or(let clauses):
            var parts: [String] = []
            for inner in clauses { parts.append("(\(try condition(inner, column: column)))") }
            return parts.joined(separator: " OR ")
        case .contains(let field, let value):
            guard field == "userOwners" || field == "groupOwners" else {
                throw KiiError.invalidInput(
                    "'contains' applies to userOwners and groupOwners, not '\(field)'.", field: field)
            }
            let kind = placeholder(.text(field == "userOwners" ? "user" : "group"))
            let id = placeholder(.text(value))
            return "EXISTS (SELECT 1 FROM thing_owners o WHERE o.app_id = t.app_id AND o.thing_id = t.thing_id "
                + "AND o.owner_kind = \(kind) AND o.owner_id = \(id))"
        }
    }

    /// `column op value`, the value bound as the column's kind.
    private mutating func compare(_ column: Column, _ op: String, _ value: JSONValue) throws(KiiError) -> String {
        let bind: Bind
        switch (column.kind, value) {
        case (.text, .string(let text)): bind = .text(text)
        case (.integer, .int(let number)): bind = .integer(number)
        case (.integer, .double(let number)): bind = .integer(Int64(number))
        case (.number, .int(let number)): bind = .real(Double(number))
        case (.number, .double(let number)): bind = .real(number)
        case (.boolean, .bool(let flag)): bind = .boolean(flag)
        default: throw Self.wrongKind(column.expression)
        }
        let value = placeholder(bind)
        if column.caseless {
            return dialect == .sqlite
                ? "\(column.expression) \(op) \(value) COLLATE NOCASE"
                : "lower(\(column.expression)) \(op) lower(\(value))"
        }
        return "\(column.expression) \(op) \(value)"
    }

    /// A LIKE pattern (escape `\\`) matching `prefix` then anything.
    static func like(_ prefix: String) -> String {
        var pattern = ""
        for character in prefix {
            if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// A GLOB pattern matching `prefix` then anything (SQLite's LIKE would ignore case).
    static func glob(_ prefix: String) -> String {
        var pattern = ""
        for character in prefix {
            switch character {
            case "*", "?", "[": pattern += "[\(character)]"
            default: pattern.append(character)
            }
        }
        return pattern + "*"
    }

    static func wrongKind(_ field: String) -> KiiError {
        KiiError.invalidInput("The value's kind does not fit the field '\(field)'.", field: "clause")
    }

    // MARK: Whole queries

    /// The page key: how many results came before.
    public static func offset(_ paginationKey: String?) throws(KiiError) -> Int {
        guard let paginationKey else { return 0 }
        guard let offset = Int(paginationKey), (0...1_000_000).contains(offset) else {
            throw KiiError.invalidInput("The paginationKey is not one this server gave.", field: "paginationKey")
        }
        return offset
    }

    /// `WHERE … ORDER BY … LIMIT … OFFSET …` for a user query (the app bound first).
    public mutating func users(appID: AppID, _ request: QueryRequest) throws(KiiError) -> String {
        let app = placeholder(.text(appID.rawValue))
        let condition = try condition(request.clause) { (field) throws(KiiError) in try Self.userColumn(field) }
        let order = try request.orderBy.map { (field) throws(KiiError) in try Self.userColumn(field).expression }
        return try page(
            "SELECT u.* FROM users u WHERE u.app_id = \(app) AND (\(condition))", order: order, id: "u.user_id",
            request)
    }

    /// The same for a thing query.
    public mutating func things(appID: AppID, _ request: QueryRequest) throws(KiiError) -> String {
        let app = placeholder(.text(appID.rawValue))
        let dialect = dialect
        let condition = try condition(request.clause) { (field) throws(KiiError) in
            try Self.thingColumn(field, dialect)
        }
        let order = try request.orderBy.map { (field) throws(KiiError) in
            try Self.thingColumn(field, dialect).expression
        }
        return try page(
            "SELECT t.* FROM things t WHERE t.app_id = \(app) AND (\(condition))", order: order, id: "t.thing_id",
            request)
    }

    private mutating func page(_ select: String, order: String?, id: String, _ request: QueryRequest)
        throws(KiiError) -> String
    {
        let direction = request.descending ? "DESC" : "ASC"
        let ordering = (order.map { "\($0) \(direction), " } ?? "") + "\(id) \(direction)"
        let limit = placeholder(.integer(Int64(request.limit + 1)))
        let offset = placeholder(.integer(Int64(try Self.offset(request.paginationKey))))
        return "\(select) ORDER BY \(ordering) LIMIT \(limit) OFFSET \(offset)"
    }
}
