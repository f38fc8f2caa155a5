/// When a waiting call gives up on its acknowledgements: the network loop fails the waiters of
/// `messageIDs` still waiting at `at` (`MQTTClient.expireDueAcknowledgements`). One per call or
/// batch, kept while it waits; no timer task of its own.
struct AcknowledgementDeadline {
    let at: ContinuousClock.Instant
    let messageIDs: [Int32]
    /// What was awaited, for the timeout's message ("PUBACK for t").
    let what: String
}
