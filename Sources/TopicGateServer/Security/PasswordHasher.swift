import HummingbirdBcrypt
import NIOPosix
public import TopicGateCore

/// bcrypt for user and thing passwords, run on NIO's thread pool so that a hash (tens of
/// milliseconds at cost 10) never blocks an event loop.
public struct PasswordHasher: Sendable {
    public let cost: UInt8
    /// A hash of no real password, verified when the account does not exist, so that a login
    /// for an unknown name takes as long as one with a wrong password.
    let decoyHash: String

    public init(cost: UInt8) {
        self.cost = cost
        self.decoyHash = Bcrypt.hash("topicgate-decoy-password", cost: cost)
    }

    /// Only a password that passed its rule is hashed (`NewPasswords.hash` checks and calls this).
    public func hash(_ password: PasswordRule.Checked) async throws -> String {
        let cost = cost
        let input = Self.bcryptInput(password.text)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    /// True when `password` matches `hash`; with a nil hash, spends the same time and is false.
    public func verify(_ password: String, hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let input = Self.bcryptInput(password)
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(input, hash: target) }
        return hash != nil && matches
    }

    /// What bcrypt is given for `password`: bcrypt reads at most 72 bytes, and a thing's password
    /// may be 200 characters, so a longer one is given as its SHA-256 (hex) behind a control
    /// character no accepted password contains (an input that starts with it is digested too,
    /// so a digest cannot be presented as a password).
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 || password.hasPrefix(digestMark) else { return password }
        return digestMark + Secrets.sha256(password)
    }

    static let digestMark = "\u{1}"
}
