import Foundation
import ProcessSupport
import Synchronization

/// The bench's side of a `topicgate bench-hold` child (see `DeviceHolder`): hands it its
/// devices, tells it when to connect and when to close, and records the publications its devices
/// receive in `receipts`.
final class HolderProcess: @unchecked Sendable {
    // @unchecked: `process` and `input` are set in `init` and then only used by the scenario,
    // one call at a time; what the reader thread learns goes through `state`.
    private let process: ChildProcess
    private let input: FileHandle
    private let state = Mutex(State())

    struct State {
        var connected: Int?
        var held: Int?
        var error: String?
        var closed = false
        var ended = false
    }

    init(executable: String, devices: [DeviceHolder.Device], receipts: ReceiptLog, logPath: String) throws {
        let standardInput = Pipe()
        let standardOutput = Pipe()
        FileManager.default.createFile(atPath: logPath, contents: nil)
        guard let log = FileHandle(forWritingAtPath: logPath) else {
            throw BenchError("cannot write the holder's log at \(logPath)")
        }
        defer { try? log.close() }
        process = try ChildProcess.spawn(
            executable: executable, arguments: ["bench-hold"], input: standardInput.fileHandleForReading.fileDescriptor,
            output: standardOutput.fileHandleForWriting.fileDescriptor, error: log.fileDescriptor)
        // The child has its own copies of these ends.
        try standardInput.fileHandleForReading.close()
        try standardOutput.fileHandleForWriting.close()
        input = standardInput.fileHandleForWriting
        let reading = standardOutput.fileHandleForReading
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let end = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...end)
                    handle(line, receipts: receipts)
                }
            }
            state.withLock { $0.ended = true }
        }.start()
        input.write(Data((devices.map(\.line).joined(separator: "\n") + "\n").utf8))
    }

    private func handle(_ line: String, receipts: ReceiptLog) {
        let fields = line.split(separator: " ", maxSplits: 3)
        switch fields.first {
        case "r":
            // r <sequence> <arrived, monotonic ns> <payload bytes>
            if fields.count == 4, let sequence = Int(fields[1]), let arrived = Int64(fields[2]),
                let size = Int(fields[3])
            {
                receipts.record(sequence, at: MonotonicTime.instant(ofNanoseconds: arrived), size: size)
            }
        case "connected":
            state.withLock { $0.connected = fields.count > 1 ? Int(fields[1]) : 0 }
        case "held":
            state.withLock { $0.held = fields.count > 1 ? Int(fields[1]) : 0 }
        case "error":
            state.withLock { $0.error = String(line.dropFirst(6)) }
        case "closed":
            state.withLock { $0.closed = true }
        default:
            break
        }
    }

    /// Starts connecting.
    func go() { input.write(Data("go\n".utf8)) }

    /// Starts subscribing (once connected).
    func subscribe() { input.write(Data("subscribe\n".utf8)) }

    /// Waits until every device is connected; throws what the holder reported, or when it ended.
    func connected(timeout: Duration) async throws -> Int {
        try await wait(for: "connected", timeout: timeout) { $0.connected }
    }

    /// Waits until every device is subscribed too.
    func held(timeout: Duration) async throws -> Int {
        try await wait(for: "subscribed", timeout: timeout) { $0.held }
    }

    private func wait(for what: String, timeout: Duration, _ count: (State) -> Int?) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = state.withLock { $0 }
            if let error = now.error { throw BenchError("a device holder: \(error)") }
            if let count = count(now) { return count }
            if now.ended { throw BenchError("a device holder ended before its devices were \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw BenchError("a device holder's devices were not \(what) within \(timeout)")
    }

    /// Disconnects its devices and waits for it to end.
    func close() async {
        input.write(Data("close\n".utf8))
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, !state.withLock({ $0.ended }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        process.send(SIGTERM)
        _ = await process.exit(within: .seconds(10))
        try? input.close()
    }
}
