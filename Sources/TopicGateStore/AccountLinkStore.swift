public import TopicGateCore

/// Account links, unique per app by (provider, external ID); secrets kept only as hashes.
/// A user's links go with the user.
public protocol AccountLinkStore: Sendable {
    /// Inserts `link`; `LINK_ALREADY_EXISTS` when the (provider, external ID) is taken.
    func insertLink(_ link: AccountLink) async throws
    func link(appID: AppID, provider: String, externalID: String) async throws -> AccountLink?
    /// The links of `userID`, oldest first.
    func links(appID: AppID, userID: UserID) async throws -> [AccountLink]
    /// Replaces the secret hash of the user's link; false when it has no such link.
    func updateLinkSecret(
        appID: AppID, userID: UserID, provider: String, externalID: String, secretHash: String, at time: Int64
    ) async throws -> Bool
    /// Records a login through the link at `time`.
    func recordLinkLogin(appID: AppID, provider: String, externalID: String, at time: Int64) async throws
    /// Deletes the user's link; false when it has no such link.
    func deleteLink(appID: AppID, userID: UserID, provider: String, externalID: String) async throws -> Bool
}
