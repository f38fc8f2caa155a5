import TopicGateCore
import TopicGateStore

/// What users and things share as accounts: their passwords (new ones checked against their
/// rule, presented ones checked with lockouts), their tokens, the revocation of their devices,
/// the security audit trail, the sign-up rate limit, disabling, and the topic cache that a
/// deleted account's topics and ACL entries leave.
struct AccountServices: Sendable {
    /// Checks a new password against its rule and hashes it.
    let newPasswords: NewPasswords
    let passwords: PasswordCheck
    let tokens: TokenIssuer
    let time: TimeSource
    let revocation: DeviceRevocation
    let audit: SecurityAudit
    let abuse: AbuseGuard
    let status: PrincipalStatus

    /// Counts a sign-up from the caller's address against its limit (the admin's are not).
    func admitSignup(_ caller: Caller) async throws {
        if caller.principal != .admin { try await abuse.admitSignup(appID: caller.appID, address: caller.address) }
    }

    /// After new credentials (a new password, a new vendor thing ID): `principal`'s tokens are
    /// revoked but the caller's own when the principal calls, and its devices as `installations`
    /// selects them with that kept token.
    func revokeOldCredentials(
        of principal: Principal, caller: Caller,
        installations: (Principal, _ keeping: String?) -> InstallationSelection
    ) async throws {
        let keeping = caller.principal == principal ? caller.tokenHash : nil
        _ = try await tokens.store.revokeTokens(appID: caller.appID, principal: principal, keeping: keeping)
        try await revocation.revoke(appID: caller.appID, installations(principal, keeping))
    }
}
