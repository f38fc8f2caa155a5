import TopicGateCore

/// Where every new password is checked and hashed (a registration, a pseudo user's upgrade, a
/// change, a new thing): the rule of its kind of account, then bcrypt. `PasswordHasher` hashes
/// only a password a rule passed, so no path sets one past its rule.
struct NewPasswords: Sendable {
    let hasher: PasswordHasher
    let user: PasswordRule
    let thing: PasswordRule

    /// The hash to store for `text` as a new password of `account`; Kii's error when the rule
    /// refuses it.
    func hash(_ text: String, for account: PasswordRule.Account, field: String = "password") async throws -> String {
        let rule = account == .user ? user : thing
        return try await hasher.hash(try rule.check(text, field: field))
    }
}
