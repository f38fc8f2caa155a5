public import TopicGateCore

/// What operators ask of the whole app rather than of one object: how much it holds, which
/// topics and principals match a search, and every topic with its entries.
public protocol OperatorStore: Sendable {
    func appCounts(appID: AppID) async throws -> AppCounts
    /// Topics of every scope whose name, scope ID or creator ID contains `text` (in any case),
    /// also those whose scope or creator is a user with a matching login name, a group with a
    /// matching name or a thing with a matching vendor thing ID; by scope, then name, at most
    /// `limit`.
    func searchTopics(appID: AppID, containing text: String, limit: Int) async throws -> [Topic]
    /// Users whose ID, login name, email address, phone number or display name contains
    /// `text`, groups by ID or name, things by ID or vendor thing ID (in any case); at most
    /// `limit` of each kind, users first.
    func searchPrincipals(appID: AppID, containing text: String, limit: Int) async throws -> [PrincipalMatch]
    /// The app's topics with their entries, oldest first, at most `limit` (to ask what one
    /// principal may do everywhere).
    func topicsWithEntries(appID: AppID, limit: Int) async throws -> [(Topic, [ACLEntry])]
}

extension OperatorStore {
    /// `text` as a `LIKE` pattern that matches it anywhere, with `%`, `_` and `\` taken
    /// literally (the statements say `ESCAPE '\'`).
    static func containsPattern(_ text: String) -> String {
        var pattern = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}
