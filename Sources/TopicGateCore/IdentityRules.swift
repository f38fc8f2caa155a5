/// The rules for the identity fields of users and things. Each function returns the value to
/// store, or throws the error a client should see.
public enum IdentityRules {
    /// 3 to 64 characters of letters, digits, `-`, `_`, `.`; no `@` (that is an email) and
    /// not starting with `+` (that is a phone number).
    public static func loginName(_ text: String) throws(KiiError) -> String {
        guard (3...64).contains(text.count), IDSyntax.isWellFormed(text) else {
            throw KiiError.invalidInput(
                "A login name is 3 to 64 characters of letters, digits, '-', '_' and '.'.", field: "loginName")
        }
        return text
    }

    /// `local@domain.tld`, at most 254 characters, stored in lower case.
    public static func emailAddress(_ text: String) throws(KiiError) -> String {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !text.contains(where: { $0.isWhitespace || $0 == ":" })
        else {
            throw KiiError.invalidInput("The email address is not valid.", field: "emailAddress")
        }
        return text.lowercased()
    }

    /// An international number: `+` then 6 to 15 digits (E.164); spaces and dashes are dropped.
    public static func phoneNumber(_ text: String) throws(KiiError) -> String {
        let compact = text.filter { $0 != " " && $0 != "-" }
        let digits = compact.dropFirst()
        guard compact.first == "+", (6...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw KiiError.invalidInput(
                "A phone number is '+' and the country code and number, 6 to 15 digits.", field: "phoneNumber")
        }
        return compact
    }

    /// 1 to 128 characters.
    public static func displayName(_ text: String) throws(KiiError) -> String {
        guard (1...128).contains(text.count) else {
            throw KiiError.invalidInput("A display name is 1 to 128 characters.", field: "displayName")
        }
        return text
    }

    /// Two letters (ISO 3166-1 alpha-2), stored in upper case.
    public static func country(_ text: String) throws(KiiError) -> String {
        guard text.count == 2, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw KiiError.invalidInput("A country is a two-letter ISO 3166-1 code.", field: "country")
        }
        return text.uppercased()
    }

    /// A group's name: 1 to 128 characters.
    public static func groupName(_ text: String) throws(KiiError) -> String {
        let trimmed = text.trimmingWhitespace()
        guard (1...128).contains(trimmed.count) else {
            throw KiiError.invalidInput("A group name is 1 to 128 characters.", field: "name")
        }
        return trimmed
    }

    /// A vendor thing ID: 1 to 200 characters with no `/`, `:`, control or white space.
    public static func vendorThingID(_ text: String) throws(KiiError) -> String {
        guard (1...200).contains(text.count),
            !text.contains(where: {
                $0 == "/" || $0 == ":" || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true
            })
        else {
            throw KiiError.invalidInput(
                "A vendor thing ID is 1 to 200 characters without '/', ':' or white space.", field: "vendorThingID")
        }
        return text
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var view = Substring(self)
        while view.first?.isWhitespace == true { view = view.dropFirst() }
        while view.last?.isWhitespace == true { view = view.dropLast() }
        return String(view)
    }
}
