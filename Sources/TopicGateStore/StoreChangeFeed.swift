/// A store shared by several gateways tells each of them what the others changed.
public protocol StoreChangeFeed: Sendable {
    /// Calls `handle` with each change any gateway commits, in commit order, until the task is
    /// cancelled: `.unknown` once listening begins and again after each reconnection, since
    /// changes made meanwhile are not replayed.
    func followChanges(_ handle: @escaping @Sendable (StoreChange) -> Void) async
}
