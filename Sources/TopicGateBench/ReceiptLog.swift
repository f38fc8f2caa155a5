import Synchronization

/// What devices received, by sequence number: how many copies and when the first and the last
/// arrived. Written from event loop threads, read by the scenario.
final class ReceiptLog: Sendable {
    struct Receipt: Sendable {
        var count: Int
        var first: ContinuousClock.Instant
        var last: ContinuousClock.Instant
    }

    private let receipts = Mutex<[Int: Receipt]>([:])
    private let total = Atomic<Int>(0)
    private let largest = Atomic<Int>(0)

    /// `size`: the payload's bytes, when known (`largestPayload`).
    func record(_ sequence: Int, at instant: ContinuousClock.Instant, size: Int = 0) {
        _ = largest.max(size, ordering: .relaxed)
        receipts.withLock { receipts in
            if var receipt = receipts[sequence] {
                receipt.count += 1
                receipt.last = instant
                receipts[sequence] = receipt
            } else {
                receipts[sequence] = Receipt(count: 1, first: instant, last: instant)
            }
        }
        total.add(1, ordering: .relaxed)
    }

    /// Records the payload's `"seq"` number, if it has one.
    func record(payload: some Collection<UInt8>, at instant: ContinuousClock.Instant) {
        if let sequence = BenchPayload.sequence(in: payload) { record(sequence, at: instant) }
    }

    var count: Int { total.load(ordering: .relaxed) }

    /// The largest payload recorded with its size, in bytes.
    var largestPayload: Int { largest.load(ordering: .relaxed) }

    func receipt(_ sequence: Int) -> Receipt? { receipts.withLock { $0[sequence] } }

    func reset() {
        receipts.withLock { $0 = [:] }
        total.store(0, ordering: .relaxed)
    }

    /// Waits until `count` copies in all arrived (or `timeout` passed); true if they did.
    func wait(forTotal count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while self.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// Waits until `sequence` arrived `copies` times (or `timeout` passed).
    func wait(for sequence: Int, copies: Int, timeout: Duration = .seconds(60)) async -> Receipt? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let receipt = receipt(sequence), receipt.count >= copies { return receipt }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}
