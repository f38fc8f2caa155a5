/// A store shared by several gateways tells each of them what the others changed.
public protocol StoreChangeFeed: Sendable {
    /// Calls `handle` with each change any gateway commits, in commit order, until the task is
    /// cancelled: `.unknown` once listening begins and again after each reconnection, since
    /// changes made meanwhile are not replayed. A feed that carries nothing for `silence` (not
    /// even a heartbeat: see `sendHeartbeat`) is taken for dead and connected again; a silent
    /// connection (a firewall's or a load balancer's idle timeout) never fails by itself.
    func followChanges(silence: Duration, _ handle: @escaping @Sendable (StoreChange) -> Void) async

    /// Sends `.heartbeat` to every gateway following the feed, this one included.
    func sendHeartbeat() async throws
}
