import TopicGateCore
import TopicGateStore

/// Removes pseudo users nobody has used for a while: a pseudo user's token is its only
/// identity, so one unused for `idleDays` days almost always belongs to an app that was
/// deleted or reinstalled. Never a normal user, never one seen within the window, never one
/// with an account link (that one can come back on a new device). Each goes with its tokens,
/// installations (kicked from the broker), subscriptions, topics and ownerships.
struct PseudoUserCleanup: Sendable {
    let store: any UserStore
    let time: TimeSource
    let revocation: DeviceRevocation
    let audit: SecurityAudit

    /// At most this many users per run, so one run never holds the database for long.
    static let batchLimit = 1_000

    /// What a run found (and, unless `dryRun`, removed).
    struct Report: Encodable, Sendable {
        struct IdleUser: Encodable, Sendable {
            let userID: String
            let createdAt: UnixMillis
            let lastSeenAt: UnixMillis
        }

        let idleDays: Int
        let cutoff: UnixMillis
        let dryRun: Bool
        let users: [IdleUser]
        let count: Int

        init(idleDays: Int, cutoff: UnixMillis, dryRun: Bool, users: [User]) {
            self.idleDays = idleDays
            self.cutoff = cutoff
            self.dryRun = dryRun
            self.users = users.map {
                IdleUser(userID: $0.id.rawValue, createdAt: $0.createdAt, lastSeenAt: $0.lastSeenAt)
            }
            count = users.count
        }
    }

    /// Finds the pseudo users of `appID` (or of every app) idle for `idleDays` and, unless
    /// `dryRun`, removes them.
    func run(appID: AppID?, idleDays: Int, dryRun: Bool, actor: String) async throws -> Report {
        guard idleDays >= 1 else { throw KiiError.invalidInput("'idleDays' must be at least 1.", field: "idleDays") }
        let cutoff = time.now() - .days(idleDays)
        let idle = try await store.idlePseudoUsers(appID: appID, lastSeenBefore: cutoff, limit: Self.batchLimit)
        guard !dryRun else { return Report(idleDays: idleDays, cutoff: cutoff, dryRun: true, users: idle) }
        var removed: [User] = []
        for user in idle {
            // The store deletes it only if it is still idle, pseudo and unlinked in the same
            // write: one upgraded, linked or seen since the query stays, devices and all.
            guard try await store.deleteIdlePseudoUser(appID: user.appID, id: user.id, lastSeenBefore: cutoff)
            else { continue }
            try await revocation.revoke(appID: user.appID, .principal(.user(user.id)))
            try await audit.record(
                .pseudoUserRemoved, appID: user.appID, actor: actor, subjectID: user.id.rawValue,
                detail: "idle since \(user.lastSeenAt), \(idleDays) days or more")
            removed.append(user)
        }
        return Report(idleDays: idleDays, cutoff: cutoff, dryRun: false, users: removed)
    }
}
