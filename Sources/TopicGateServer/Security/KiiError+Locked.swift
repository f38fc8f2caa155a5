import TopicGateCore

extension KiiError {
    /// A locked login name or external ID, answered as Kii does (400, "The login name is
    /// locked"), with how long the lock lasts in `retryAfter` and `Retry-After`.
    static func loginLocked(retryAfter: Duration) -> KiiError {
        var error = KiiError.oauth(.invalidGrant, "The login name is locked")
        error.setRetryAfter(retryAfter)
        return error
    }
}
