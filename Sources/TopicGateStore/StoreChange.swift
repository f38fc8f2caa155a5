public import TopicGateCore

/// A committed change that every gateway's caches must drop at once, not when they expire.
public enum StoreChange: Sendable, Hashable {
    /// A topic was created or deleted, or its ACL changed.
    case topic(AppID, TopicAddress)
    /// A user, group or thing was deleted, with its topics and every entry that named it.
    case principalDeleted(AppID)
    /// An app's credentials changed.
    case app(AppID)
    /// Something that decides who may do what changed (`WatchedChanges.access`): a token, a
    /// user or thing, a membership, an ownership, a subscription, a topic.
    case access
    /// Only who belongs to what or owns what changed (a membership, an ownership, a group, an
    /// end node, a trigger; `WatchedChanges.relations`) and maybe who listens where, so token
    /// holders and apps stand. A gateway that does not know it drops everything (`unknown`).
    case relations
    /// Only who listens where changed (a subscription, a topic; `WatchedChanges.listeners`), so
    /// principals and what they belong to or own stand. A gateway that does not know it drops
    /// everything (`unknown`).
    case listeners
    /// Which devices a push goes to changed (`WatchedChanges.installations`).
    case installations
    /// Changes may have been missed (the feed started or reconnected): drop everything.
    case unknown
    /// A gateway's sign of life on the feed: it proves the feed still carries notifications.
    case heartbeat

    /// The change as the text of one notification: `topic <app> <address>` (a gateway's own ACL
    /// change adds its mark: `topic <app> <address> <origin>`), `principal <app>`, `app <app>`,
    /// `access`, `relations`, `listeners`, `installations`.
    public var payload: String {
        switch self {
        case .topic(let app, let address): "topic \(app.rawValue) \(address)"
        case .principalDeleted(let app): "principal \(app.rawValue)"
        case .app(let app): "app \(app.rawValue)"
        case .access: "access"
        case .relations: "relations"
        case .listeners: "listeners"
        case .installations: "installations"
        case .unknown: "unknown"
        case .heartbeat: "heartbeat"
        }
    }

    /// Anything it does not understand is `.unknown` (so it drops too much, never too little).
    public init(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 3).map(String.init)
        switch (parts.first, parts.count) {
        case ("topic", 3), ("topic", 4):
            self = TopicAddress(parsing: parts[2]).map { .topic(AppID(parts[1]), $0) } ?? .unknown
        case ("principal", 2): self = .principalDeleted(AppID(parts[1]))
        case ("app", 2): self = .app(AppID(parts[1]))
        case ("heartbeat", 1): self = .heartbeat
        case ("access", 1): self = .access
        case ("relations", 1): self = .relations
        case ("listeners", 1): self = .listeners
        case ("installations", 1): self = .installations
        default: self = .unknown
        }
    }
}
