import Synchronization

/// The tables a statement of the PostgreSQL store changes, read from its text: `INSERT INTO t`,
/// `DELETE FROM t`, `UPDATE t SET a = …, b = …` and an upsert's `DO UPDATE SET …`, anywhere in
/// the statement (so inside a `WITH` too). The store's statements carry every value as a
/// parameter (`$1`), so nothing in the text is data. When the columns of an update cannot be told
/// it counts as an update of every column (`*`): the rules then see too much, never too little.
enum StatementChanges {
    /// What each statement text changes, read once: the store's texts are a few hundred
    /// templates (their values are parameters), and each was read again on every execution.
    private static let read = Mutex<[String: [TableChange]]>([:])
    /// Texts kept at most (a text built from a list's length is one more template per length).
    static let kept = 4_096

    static func of(_ sql: String) -> [TableChange] {
        if let changes = read.withLock({ $0[sql] }) { return changes }
        let changes = reading(sql)
        read.withLock { read in
            if read.count < kept { read[sql] = changes }
        }
        return changes
    }

    private static func reading(_ sql: String) -> [TableChange] {
        // A plain query changes nothing (a change inside one starts with WITH).
        if sql.utf8.starts(with: "SELECT".utf8) { return [] }
        let tokens = tokenize(sql)
        var changes: [TableChange] = []
        var lastInsert: String?
        var index = 0
        func word(_ offset: Int) -> String? {
            index + offset < tokens.count ? tokens[index + offset] : nil
        }
        while index < tokens.count {
            switch tokens[index] {
            case "INSERT" where word(1) == "INTO":
                if let table = word(2).flatMap(identifier) {
                    changes.append(.insert(table))
                    lastInsert = table
                }
            case "DELETE" where word(1) == "FROM":
                if let table = word(2).flatMap(identifier) { changes.append(.delete(table)) }
            case "UPDATE":
                // `UPDATE t [AS a] SET …`, or an upsert's `DO UPDATE SET …` on the table it inserts
                // into.
                var (table, set) = word(1) == "SET" ? (lastInsert, index + 1) : (word(1).flatMap(identifier), index + 2)
                if set < tokens.count, tokens[set] == "AS" { set += 2 }
                if set < tokens.count, tokens[set] != "SET", identifier(tokens[set]) != nil { set += 1 }
                if let table, set < tokens.count, tokens[set] == "SET" {
                    changes.append(.update(table, columns: assignedColumns(tokens, after: set)))
                } else if let table {
                    changes.append(.update(table, columns: ["*"]))
                }
            default: break
            }
            index += 1
        }
        return changes
    }

    /// The columns assigned in the `SET` list that starts after `set`: each name followed by
    /// `=` outside parentheses, up to the clause that ends the list.
    private static func assignedColumns(_ tokens: [String], after set: Int) -> Set<String> {
        var columns: Set<String> = []
        var depth = 0
        var index = set + 1
        while index < tokens.count {
            let token = tokens[index]
            switch token {
            case "(": depth += 1
            case ")":
                if depth == 0 { return columns.isEmpty ? ["*"] : columns }
                depth -= 1
            case "WHERE", "FROM", "RETURNING", "ON", ";":
                if depth == 0 { return columns.isEmpty ? ["*"] : columns }
            default:
                if depth == 0, index + 1 < tokens.count, tokens[index + 1] == "=", let name = identifier(token) {
                    columns.insert(name)
                }
            }
            index += 1
        }
        return columns.isEmpty ? ["*"] : columns
    }

    /// A table or column name (in lower case, as the schema writes them), not a keyword's
    /// punctuation or a parameter.
    private static func identifier(_ token: String) -> String? {
        guard let first = token.utf8.first,
            first == UInt8(ascii: "_") || (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z")
        else {
            return nil
        }
        return token.lowercased()
    }

    /// Words (upper-cased), and each other character on its own; parameters, quoted strings and
    /// white space dropped.
    private static func tokenize(_ sql: String) -> [String] {
        var tokens: [String] = []
        let bytes = Array(sql.utf8)
        var index = 0
        func isWord(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "'") { index += 1 }
                index += 1
            } else if byte == UInt8(ascii: "$") {
                index += 1
                while index < bytes.count, isWord(bytes[index]) { index += 1 }
            } else if isWord(byte) {
                let start = index
                while index < bytes.count, isWord(bytes[index]) { index += 1 }
                tokens.append(String(decoding: bytes[start..<index], as: UTF8.self).uppercased())
            } else {
                if byte > 0x20 { tokens.append(String(UnicodeScalar(byte))) }
                index += 1
            }
        }
        return tokens
    }
}
