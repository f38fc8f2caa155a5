public import TopicGateCore

/// Account links. A (provider, external ID) may be linked by several users, each with its own
/// secret (so that whoever links someone else's public external ID first never blocks them):
/// unique per app by (provider, external ID, user) and by (provider, external ID, secret).
/// Secrets are kept only as hashes. A user's links go with the user.
public protocol AccountLinkStore: Sendable {
    /// Inserts `link`; `LINK_ALREADY_EXISTS` when the user has linked the pair already, or
    /// another user linked it with the same secret.
    func insertLink(_ link: AccountLink) async throws
    /// The link of the pair with this secret (hash): what a link login finds.
    func link(appID: AppID, provider: String, externalID: String, secretHash: String) async throws -> AccountLink?
    /// The user's own link of the pair.
    func link(appID: AppID, provider: String, externalID: String, userID: UserID) async throws -> AccountLink?
    /// The links of `userID`, oldest first.
    func links(appID: AppID, userID: UserID) async throws -> [AccountLink]
    /// Replaces the secret hash of the user's link; false when it has no such link;
    /// `LINK_ALREADY_EXISTS` when another user linked the pair with that secret.
    func updateLinkSecret(
        appID: AppID, userID: UserID, provider: String, externalID: String, secretHash: String, at time: UnixMillis
    ) async throws -> Bool
    /// Records a login through the link at `time`.
    func recordLinkLogin(appID: AppID, provider: String, externalID: String, userID: UserID, at time: UnixMillis)
        async throws
    /// Deletes the user's link; false when it has no such link.
    func deleteLink(appID: AppID, userID: UserID, provider: String, externalID: String) async throws -> Bool
}
