public import TopicGateCore

/// What changed among topics, as a store tells its gateway's topic cache (`TopicChangeSignal`).
public enum TopicChange: Sendable, Hashable {
    /// A topic created or deleted, or its ACL entries changed.
    case topic(AppID, TopicAddress)
    /// Anything: a user, group or thing deleted (its topics and every entry naming it), or
    /// changes this gateway cannot name (another process's commits on the same file, a change
    /// feed's unknown message).
    case all
}
