import TopicGateCore

/// Who made a request, in which app, and with which token.
struct Caller: Sendable {
    let app: App
    let principal: Principal
    /// SHA-256 of the bearer token used, if any.
    let tokenHash: String?
    /// The client address the request came from (see `ClientAddress`), for per-address
    /// limits and the audit trail.
    var address: String? = nil
    /// For a token a gateway minted for its end node: that gateway (`AccessToken.relay`).
    var relay: ThingID? = nil

    var appID: AppID { app.id }

    /// `UNAUTHORIZED`: this caller may not do `what`.
    func denied(_ what: String) -> KiiError {
        KiiError.accessDenied("The caller may not \(what).", appID: app.id, principal: principal)
    }

    /// The user making the request; anyone else is refused.
    func requireUser(to what: String) throws(KiiError) -> UserID {
        guard let id = principal.userID else { throw denied(what) }
        return id
    }

    /// Refuses everyone but the app's admin.
    func requireAdmin(to what: String) throws(KiiError) {
        guard principal == .admin else { throw denied(what) }
    }

    /// Refuses anonymous callers.
    func requireAuthenticated(to what: String) throws(KiiError) {
        if principal == .anonymous { throw denied(what) }
    }
}
