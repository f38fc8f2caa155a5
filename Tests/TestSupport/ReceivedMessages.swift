import Foundation
import MQTTBridge
import Synchronization

/// Everything a client receives, collected in the background, so that a test can wait for
/// messages and also state that nothing arrived (cancelling a read of an `AsyncStream` would
/// end the stream; this never does).
public final class ReceivedMessages: Sendable {
    private final class Inbox: Sendable {
        let messages = Mutex<[MQTTMessage]>([])
    }

    private let inbox = Inbox()
    private let task: Task<Void, Never>

    public init(_ client: MQTTClient) {
        let inbox = self.inbox
        let messages = client.messages
        task = Task {
            for await message in messages { inbox.messages.withLock { $0.append(message) } }
        }
    }

    deinit { task.cancel() }

    public var all: [MQTTMessage] { inbox.messages.withLock { $0 } }
    public var count: Int { inbox.messages.withLock { $0.count } }

    /// Waits until at least `count` messages arrived (or `timeout` passed); returns them all.
    @discardableResult
    public func wait(for count: Int, timeout: Duration = .seconds(10)) async -> [MQTTMessage] {
        let deadline = ContinuousClock.now + timeout
        while self.count < count && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return all
    }

    /// Waits `duration` and returns what arrived meanwhile (to show that nothing did).
    public func quiet(for duration: Duration) async -> [MQTTMessage] {
        let before = count
        try? await Task.sleep(for: duration)
        return Array(all.dropFirst(before))
    }
}
