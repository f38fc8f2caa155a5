import TopicGateCore
import TopicGateStore

/// Disabling and enabling a user or thing (`PUT …/status` by the admin), the same for both: the
/// stored flag, then a disabled principal's devices kicked from the broker, and the change
/// audited.
struct PrincipalStatus: Sendable {
    let store: any UserStore & ThingStore
    let time: TimeSource
    let revocation: DeviceRevocation
    let audit: SecurityAudit

    /// Sets the status of `principal` (a user or a thing the caller has found) as `request` asks.
    func change(_ principal: Principal, _ request: StatusChangeRequest, caller: Caller) async throws {
        _ = try await store.setDisabled(appID: caller.appID, principal, disabled: request.disabled, at: time.now())
        if request.disabled { try await revocation.revoke(appID: caller.appID, .principal(principal)) }
        let kind: SecurityEvent.Kind =
            switch principal {
            case .thing: request.disabled ? .thingDisabled : .thingEnabled
            default: request.disabled ? .userDisabled : .userEnabled
            }
        try await audit.record(
            kind, appID: caller.appID, actor: caller.principal.description, subjectID: principal.principalID)
    }
}
