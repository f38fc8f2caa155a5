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

    func record(_ sequence: Int, at instant: ContinuousClock.Instant) {
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
        if let sequence = Self.sequence(in: payload) { record(sequence, at: instant) }
    }

    var count: Int { total.load(ordering: .relaxed) }

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

    /// The number after `"seq":` in a JSON payload, read without parsing the rest.
    static func sequence(in payload: some Collection<UInt8>) -> Int? {
        let bytes = Array(payload)
        let key = Array(#""seq":"#.utf8)
        guard bytes.count > key.count else { return nil }
        var index = 0
        while index + key.count <= bytes.count {
            if bytes[index] == key[0] && Array(bytes[index..<(index + key.count)]) == key {
                var position = index + key.count
                while position < bytes.count && bytes[position] == 0x20 { position += 1 }
                var value = 0
                var digits = 0
                while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                    value = value * 10 + Int(bytes[position] - 0x30)
                    position += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            index += 1
        }
        return nil
    }
}
