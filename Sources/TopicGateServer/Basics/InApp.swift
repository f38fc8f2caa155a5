import TopicGateCore

/// A key for what the gateway keeps in memory: a name within one app (a user, a principal,
/// a thing reference, a topic address, a command ID). Names of different apps never meet.
struct InApp<Name: Hashable & Sendable>: Hashable, Sendable {
    let appID: AppID
    let name: Name

    init(_ appID: AppID, _ name: Name) {
        self.appID = appID
        self.name = name
    }
}
