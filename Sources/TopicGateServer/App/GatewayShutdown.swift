public import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// How `topicgate serve` stops. SIGINT (an operator at a terminal) stops it at once, gracefully:
/// requests in flight are answered, the services stop in reverse order. SIGTERM (systemd,
/// Docker, Kubernetes, a rolling restart) first drains for `drainTime`: the gateway goes on
/// serving while `/ready` answers 503, so that a load balancer checking `/ready` stops sending
/// it requests; then it stops as on SIGINT. A second signal during the drain stops it at once.
public enum GatewayShutdown {
    public static func run(
        _ application: some ApplicationProtocol, drain: GatewayDrain, drainTime: Duration, logger: Logger
    ) async throws {
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
                var drainTask: Task<Void, Never>?
                for await signal in signals {
                    if signal == .sigterm, drainTime > .zero, drainTask == nil {
                        drain.begin()
                        logger.notice(
                            "SIGTERM: draining before the stop; /ready answers 503", metadata: ["for": "\(drainTime)"])
                        drainTask = Task {
                            try? await Task.sleep(for: drainTime)
                            await group.triggerGracefulShutdown()
                        }
                        continue
                    }
                    drainTask?.cancel()
                    await group.triggerGracefulShutdown()
                    return
                }
            }
            // The group ends (stopped, or failed): the signal watcher goes with it.
            try await tasks.next()
            tasks.cancelAll()
        }
    }
}
