import Synchronization
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateServer

/// The outbox's group commit in the push core: concurrent sends share a write, the next write
/// does not wait for the last batch's publication, and a caller returns only once its message
/// was written and published.
@Suite("Group writes")
struct GroupWritesTests {
    /// What the writes and publications did, in order.
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        func contains(_ line: String) -> Bool { all.contains(line) }
    }

    struct Refused: Error {}

    static func message(_ name: String) -> OutboxMessage {
        OutboxMessage(
            id: PushMessageID(name), appID: AppID("app"), payload: Array(name.utf8),
            recipients: [.user(UserID("u-\(name)"))], acceptedAt: UnixMillis(0))
    }

    static func names(_ batch: [OutboxMessage]) -> String { batch.map(\.id.rawValue).joined(separator: ",") }

    /// How long a step may take: under the whole suite's load a task of this test waits seconds
    /// for a thread (5 s were not enough on a fresh clone); only a broken order waits for ever.
    static let patience: Duration = .seconds(120)

    /// Group writes whose publication of a batch holding `held` waits for `gate`; `write` refuses
    /// a batch holding `refused`.
    static func writes(log: Log, gate: Gate, held: String = "a", refused: String? = nil)
        -> (GroupWrites, GroupWrites.Write, GroupWrites.Publish)
    {
        let write: GroupWrites.Write = { batch in
            if let refused, batch.contains(where: { $0.id.rawValue == refused }) {
                log.append("refused \(names(batch))")
                throw Refused()
            }
            log.append("wrote \(names(batch))")
        }
        let publish: GroupWrites.Publish = { batch in
            log.append("publishing \(names(batch))")
            if batch.contains(where: { $0.id.rawValue == held }) { await gate.wait() }
            log.append("published \(names(batch))")
        }
        return (GroupWrites(), write, publish)
    }

    @Test("The next batch is written while the last one is still being published; a send returns once published")
    func nextWriteWhilePublishing() async throws {
        let (log, gate) = (Log(), Gate())
        let (writes, write, publish) = Self.writes(log: log, gate: gate)
        let returned = Log()
        let a = Task {
            try await writes.add(Self.message("a"), writingWith: write, thenPublishing: publish)
            returned.append("a")
        }
        #expect(try await eventually(timeout: Self.patience) { log.contains("publishing a") }, "a is being published")
        let b = Task {
            try await writes.add(Self.message("b"), writingWith: write, thenPublishing: publish)
            returned.append("b")
        }
        // b's disk write does not wait for a's publication.
        #expect(
            try await eventually(timeout: Self.patience) { log.contains("wrote b") },
            "b is written while a is being published")
        #expect(try await eventually(timeout: Self.patience) { returned.contains("b") }, "b returns once published")
        #expect(log.contains("published b"))
        #expect(!log.contains("published a"))
        #expect(!returned.contains("a"), "a's sender is answered only once a is published")
        gate.open()
        try await a.value
        try await b.value
        #expect(returned.all.sorted() == ["a", "b"])
        let lines = log.all
        let (wroteA, publishingA) = (lines.firstIndex(of: "wrote a")!, lines.firstIndex(of: "publishing a")!)
        #expect(wroteA < publishingA, "a message is published only once written")
    }

    @Test("A refused send fails alone and is not published; the others of its batch are")
    func refusedFailsAlone() async throws {
        let (log, gate) = (Log(), Gate())
        let (writes, write, publish) = Self.writes(log: log, gate: gate, held: "first", refused: "bad")
        // While the first is held in its publication, the next two are written (together or
        // one by one, as they arrive).
        let first = Task { try await writes.add(Self.message("first"), writingWith: write, thenPublishing: publish) }
        #expect(
            try await eventually(timeout: Self.patience) { log.contains("publishing first") },
            "first is being published")
        let returned = Log()
        let good = Task {
            try await writes.add(Self.message("good"), writingWith: write, thenPublishing: publish)
            returned.append("good")
        }
        let bad = Task {
            defer { returned.append("bad") }
            try await writes.add(Self.message("bad"), writingWith: write, thenPublishing: publish)
        }
        #expect(
            try await eventually(timeout: Self.patience) { returned.all.count == 2 },
            "good and bad are answered while first is held")
        gate.open()
        try await good.value
        await #expect(throws: Refused.self) { try await bad.value }
        try await first.value
        let lines = log.all
        #expect(!lines.contains { $0.hasPrefix("publishing") && $0.contains("bad") }, "a refused send is not published")
        #expect(lines.contains { $0.hasPrefix("published") && $0.contains("good") })
        #expect(lines.contains("refused bad"), "the refused message was tried alone")
    }
}
