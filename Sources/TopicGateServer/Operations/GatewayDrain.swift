import Synchronization

/// Whether the gateway is draining: it got SIGTERM and serves on for `--drain-time` while
/// `/ready` answers 503 (`"status":"draining"`), so that a load balancer's health check takes
/// it out of rotation before it stops accepting connections.
public final class GatewayDrain: Sendable {
    private let draining = Atomic(false)

    public init() {}

    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    func begin() { draining.store(true, ordering: .relaxed) }
}
