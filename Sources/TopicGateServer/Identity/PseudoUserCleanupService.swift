import Logging
import ServiceLifecycle

/// Runs `PseudoUserCleanup` for every app on a schedule inside `serve` (when
/// `--pseudo-user-idle-days` is set): once shortly after start, then every `interval`.
struct PseudoUserCleanupService: Service {
    let cleanup: PseudoUserCleanup
    let idleDays: Int
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await pause(for: min(interval, .seconds(5)))
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
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
