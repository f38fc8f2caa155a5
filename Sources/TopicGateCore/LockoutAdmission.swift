/// Whether one more secret check of a lockout key may start now.
public enum LockoutAdmission: Sendable, Hashable {
    /// It may: even if it and every check in flight failed, the key would not pass its lock.
    case admitted
    /// The key is locked, or its failures reached the lock and a check is in flight.
    case locked
    /// Not now: the checks in flight would reach the lock if they all failed. They end within a
    /// hash's time; the caller waits for them rather than refusing a person who may be right.
    case busy
}
