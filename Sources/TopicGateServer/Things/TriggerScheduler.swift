import Logging
import ServiceLifecycle
import TopicGateCore
import TopicGateStore

/// Fires the timed triggers (SCHEDULE, SCHEDULE_ONCE) of every app when they fall due, every
/// `interval`. Every gateway of a fleet runs it; a due time fires once, by the gateway whose
/// write moves the trigger to its next due time first (`TriggerFiring.Condition.due`).
///
/// A due time missed while no gateway ran (all were down) fires once when one starts again, and
/// the trigger is then next due after that moment: a SCHEDULE every minute down for an hour
/// sends one command on start, not sixty. A SCHEDULE_ONCE fires once and is then due never.
struct TriggerScheduler: Service {
    let triggers: TriggerService
    let store: any TriggerStore
    let time: TimeSource
    let logger: Logger
    var interval: Duration = .milliseconds(500)

    static let batch = 100

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                while try await fireDue() == Self.batch {}
            } catch {
                logger.error("Timed triggers not fired", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// Fires what is due now; how many were due.
    func fireDue() async throws -> Int {
        let now = time.now()
        let due = try await store.dueTriggers(now: now, limit: Self.batch)
        for trigger in due {
            guard let at = trigger.nextDueAt else { continue }
            let next: UnixMillis? =
                if case .schedule(let cron) = trigger.predicate.rule { cron.next(after: max(now, at)) } else { nil }
            do {
                try await triggers.fire(trigger, .due(at: at, next: next), at: now)
            } catch {
                logger.error(
                    "A timed trigger did not fire", metadata: ["triggerID": "\(trigger.id)", "error": "\(error)"])
            }
        }
        return due.count
    }
}
