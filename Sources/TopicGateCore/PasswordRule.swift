/// What a new password of one kind of account must be. By default Kii's rules, so that apps and
/// fleets moved from Kii keep their passwords: a user's is 4 to 50 printable ASCII characters
/// (space included), a thing's 1 to 200 printable characters (thing passwords are baked into
/// firmware). A deployment may ask users for more (`raisingMinimum`).
public struct PasswordRule: Sendable, Hashable {
    public enum Account: Sendable, Hashable {
        case user
        case thing
    }

    /// A password that passed a rule: the only thing a password hash is made from.
    public struct Checked: Sendable, Hashable {
        public let text: String
        fileprivate init(_ text: String) { self.text = text }
    }

    public let account: Account
    public let minimumLength: Int
    public let maximumLength: Int

    /// Kii's rule for users (`^[\x20-\x7E]{4,50}$`).
    public static let user = PasswordRule(account: .user, minimumLength: 4, maximumLength: 50)
    /// Kii's rule for things (`^\p{Print}{1,200}$`).
    public static let thing = PasswordRule(account: .thing, minimumLength: 1, maximumLength: 200)

    /// This rule with a longer minimum (never past the maximum).
    public func raisingMinimum(to length: Int) -> PasswordRule {
        PasswordRule(
            account: account, minimumLength: min(max(minimumLength, length), maximumLength),
            maximumLength: maximumLength)
    }

    /// The password, checked: `PASSWORD_TOO_SHORT` (with `minimumLength`), `PASSWORD_TOO_LONG`
    /// (with `maximumLength`), or `INVALID_INPUT_DATA` for a character the rule does not take.
    public func check(_ text: String, field: String = "password") throws(KiiError) -> Checked {
        let length = text.unicodeScalars.count
        guard length >= minimumLength else {
            throw KiiError(
                .passwordTooShort, "A password needs at least \(minimumLength) characters.",
                context: ["minimumLength": .int(Int64(minimumLength)), "field": .string(field)])
        }
        guard length <= maximumLength else {
            throw KiiError(
                .passwordTooLong, "A password may be at most \(maximumLength) characters long.",
                context: ["maximumLength": .int(Int64(maximumLength)), "field": .string(field)])
        }
        switch account {
        case .user:
            guard text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
                throw KiiError.invalidInput(
                    "A user's password is printable ASCII characters (letters, digits, punctuation, space).",
                    field: field)
            }
        case .thing:
            guard text.unicodeScalars.allSatisfy(Self.isPrintable) else {
                throw KiiError.invalidInput("A thing's password is printable characters.", field: field)
            }
        }
        return Checked(text)
    }

    /// Not a control, format, separator-of-lines, private or unassigned code point.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: false
        default: true
        }
    }
}
