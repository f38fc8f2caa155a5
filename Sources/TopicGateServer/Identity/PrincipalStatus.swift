import TopicGateCore
import TopicGateStore

/// Disabling and enabling a user or thing (`PUT …/status` by the admin), the same for both: the
/// body's flag, then, once the store has the new status, a disabled principal's devices kicked
/// from the broker and the change audited.
struct PrincipalStatus: Sendable {
    let revocation: DeviceRevocation
    let audit: SecurityAudit

    /// What follows a stored status change of `principal` (a user or a thing).
    func changed(_ principal: Principal, _ request: StatusChangeRequest, caller: Caller) async throws {
        let disabled = request.disabled
        if disabled { try await revocation.revoke(appID: caller.appID, .principal(principal)) }
        let kind: SecurityEvent.Kind =
            switch principal {
            case .thing: disabled ? .thingDisabled : .thingEnabled
            default: disabled ? .userDisabled : .userEnabled
            }
        try await audit.record(
            kind, appID: caller.appID, actor: caller.principal.description, subjectID: principal.principalID)
    }
}
