/// Who waits for an acknowledgement: one call, or one publication of a batch.
enum AcknowledgementWaiter: Sendable {
    case one(CheckedContinuation<[Int32], any Error>)
    case batch(AcknowledgementBatch, index: Int)

    func acknowledged(granted: [Int32]) {
        switch self {
        case .one(let waiter): waiter.resume(returning: granted)
        case .batch(let batch, let index): batch.settle(index, acknowledged: true)
        }
    }

    func failed(_ error: MQTTError) {
        switch self {
        case .one(let waiter): waiter.resume(throwing: error)
        case .batch(let batch, let index): batch.settle(index, acknowledged: false)
        }
    }
}
