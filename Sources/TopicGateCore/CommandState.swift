/// Where a Thing-IF command is, as Kii's server sets it: `SENDING` from the post until the thing
/// (or its gateway) reports results, whether or not a device has received it yet; `DONE` when
/// the thing reported every action succeeded, `INCOMPLETE` when any failed; `SEND_FAILED` when
/// it can never reach the thing: the thing (or its gateway) had no MQTT installation when the
/// command was sent, or its push was given up on (a dead letter). Kii's JavaScript SDK also
/// lists `DELIVERED`, which Kii's server never sets; neither does TopicGate (Android's and iOS's
/// SDKs cannot read it). When a broker took the command for a device is the command's
/// `publishedAt`, not its state.
public enum CommandState: String, Sendable, Hashable, CaseIterable {
    case sending = "SENDING"
    case sendFailed = "SEND_FAILED"
    case done = "DONE"
    case incomplete = "INCOMPLETE"
}
