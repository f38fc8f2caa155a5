import Foundation
import MQTTBridge
import Synchronization

/// Everything a client receives, collected in the background, so that a test can wait for
/// messages and show that nothing else arrived before a marker (cancelling a read of an
/// `AsyncStream` would end the stream; this never does).
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

    /// Waits for the message carrying `marker` (sent after whatever the test wants to show
    /// did not arrive) and returns what came after the first `start` messages and before it;
    /// nil when the marker never came. The gateway publishes over one connection in the order
    /// it accepted messages, so anything sent before the marker would have arrived before it.
    public func before(marker: String, since start: Int = 0, timeout: Duration = .seconds(10)) async -> [MQTTMessage]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let messages = all
            if let index = messages.firstIndex(where: { $0.text.contains(marker) }) {
                return Array(messages[min(start, index)..<index])
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
