/// Where a Thing-IF command is: `SENDING` until the broker acknowledged it for one of the
/// thing's installations, then `DELIVERED`; `DONE` when the thing reported every action
/// succeeded, `INCOMPLETE` when any failed. (`SEND_FAILED` exists in Android's SDK; TopicGate
/// never gives up on a send, so it never uses it.)
public enum CommandState: String, Sendable, Hashable, CaseIterable {
    case sending = "SENDING"
    case delivered = "DELIVERED"
    case done = "DONE"
    case incomplete = "INCOMPLETE"
    case sendFailed = "SEND_FAILED"
}
