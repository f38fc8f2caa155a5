import Logging
import TopicGateCore
import TopicGateStore

/// Writes the security audit trail, and logs each refusal at info with its reason.
struct SecurityAudit: Sendable {
    let store: any SecurityAuditStore
    let time: TimeSource
    let logger: Logger

    /// Kinds that are refusals (logged at info; the rest at debug).
    static let refusals: Set<SecurityEvent.Kind> = [
        .linkRefused, .linkLoginFailed, .linkLoginLocked, .loginFailed, .loginLocked,
    ]

    func record(
        _ kind: SecurityEvent.Kind, appID: AppID, actor: String, subjectID: String? = nil, account: String? = nil,
        address: String? = nil, detail: String = ""
    ) async throws {
        let event = SecurityEvent(
            at: time.now(), appID: appID, kind: kind, actor: actor, subjectID: subjectID, account: account,
            clientAddress: address, detail: detail)
        try await store.appendSecurityEvent(event)
        logger.log(
            level: Self.refusals.contains(kind) ? .info : .debug, "security event",
            metadata: [
                "request.id": .string(RequestID.current ?? "-"), "event": .string(kind.rawValue),
                "appID": .string(appID.rawValue), "actor": .string(actor),
                "subject": .string(subjectID ?? "-"), "address": .string(address ?? "-"), "reason": .string(detail),
            ])
    }
}
