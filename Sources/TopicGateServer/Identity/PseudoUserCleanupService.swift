import Logging
import ServiceLifecycle
import TopicGateCore
import TopicGateStore

/// Runs `PseudoUserCleanup` for every app on a schedule inside `serve` (when
/// `--pseudo-user-idle-days` is set): once shortly after start, then every `interval`. Of the
/// gateways sharing a database, the one holding the job's lease runs it; the others wait for
/// the lease to run out (their holder died).
struct PseudoUserCleanupService: Service {
    let cleanup: PseudoUserCleanup
    let idleDays: Int
    let interval: Duration
    let leases: any JobLeaseStore
    let gatewayID: String
    let time: TimeSource
    let logger: Logger

    func run() async throws {
        try? await pause(for: min(interval, .seconds(5)))
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                // Held a little longer than the interval: the holder renews it before it ends.
                let now = time.now()
                guard
                    try await leases.takeJobLease(
                        "pseudo-user-cleanup", gateway: gatewayID, now: now,
                        until: now + interval + .seconds(60))
                else {
                    try? await pause(for: interval)
                    continue
                }
                let report = try await cleanup.run(
                    appID: nil, idleDays: idleDays, dryRun: false, actor: "scheduled-cleanup")
                if !report.users.isEmpty {
                    logger.info(
                        "removed idle pseudo users",
                        metadata: ["count": "\(report.users.count)", "idleDays": "\(idleDays)"])
                }
                // A full batch means more are waiting: go on at once.
                if report.users.count >= PseudoUserCleanup.batchLimit { continue }
            } catch {
                logger.error("idle pseudo user cleanup failed", metadata: ["error": "\(error)"])
            }
            try? await pause(for: interval)
        }
    }

    /// Sleeps for `duration`, returning early when the service is asked to stop.
    func pause(for duration: Duration) async throws {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }
}
