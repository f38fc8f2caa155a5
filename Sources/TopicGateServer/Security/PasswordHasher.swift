import HummingbirdBcrypt
import NIOPosix

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

    public func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// True when `password` matches `hash`; with a nil hash, spends the same time and is false.
    public func verify(_ password: String, hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: target) }
        return hash != nil && matches
    }
}
