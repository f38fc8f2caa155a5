import Foundation
import NIOCore
import NIOPosix
import ProcessSupport
import Synchronization

/// `topicgate bench-hold`: one process of the connections scenario that connects and holds a
/// share of its devices (a process may hold no more descriptors than its hard limit, 20 000 on
/// some machines). Speaks lines on standard input and output:
///
/// - in: `d HOST PORT SOURCE CLIENTID USERNAME PASSWORD TOPIC` per device (`-` for none), then `go`;
/// - out: `connected COUNT` once every device is connected (or `error TEXT`);
/// - in: `subscribe`; out: `held COUNT` once every device subscribed to its topic (or
///   `error TEXT`), then `r SEQ NANOSECONDS` for each publication a device receives (its `"seq"`,
///   and `CLOCK_MONOTONIC` at arrival);
/// - in: `close`; out: `closed` once every device disconnected.
public enum DeviceHolder {
    /// Devices connecting at once, per holder.
    static let workers = 32

    struct Device {
        let host: String
        let port: Int
        let source: SocketAddress?
        let clientID: String
        let username: String?
        let password: String?
        let topic: String

        init?(line: Substring) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 8, fields[0] == "d", let port = Int(fields[2]) else { return nil }
            func optional(_ field: String) -> String? { field == "-" ? nil : field }
            host = fields[1]
            self.port = port
            source = optional(fields[3]).flatMap { try? SocketAddress(ipAddress: $0, port: 0) }
            clientID = fields[4]
            username = optional(fields[5])
            password = optional(fields[6])
            topic = fields[7]
        }

        var line: String {
            let source = source?.ipAddress ?? "-"
            return "d \(host) \(port) \(source) \(clientID) \(username ?? "-") \(password ?? "-") \(topic)"
        }

        init(
            host: String, port: Int, source: SocketAddress?, clientID: String, username: String?, password: String?,
            topic: String
        ) {
            self.host = host
            self.port = port
            self.source = source
            self.clientID = clientID
            self.username = username
            self.password = password
            self.topic = topic
        }
    }

    public static func run() async throws {
        DescriptorLimit.raise()
        var devices: [Device] = []
        while let line = readLine(), line != "go" {
            if let device = Device(line: line[...]) { devices.append(device) }
        }
        let output = Output()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let held = Mutex<[BenchDevice?]>(Array(repeating: nil, count: devices.count))
        do {
            let list = devices
            try await concurrently(workers: workers, items: list.count) { _, index in
                let device = list[index]
                let client = BenchDevice { payload, _ in
                    let arrived = MonotonicTime.nanoseconds()
                    if let sequence = BenchPayload.sequence(in: payload.readableBytesView) {
                        output.write("r \(sequence) \(arrived) \(payload.readableBytes)")
                    }
                }
                try await client.connect(
                    group: group, host: device.host, port: device.port, clientID: device.clientID,
                    username: device.username, password: device.password, localAddress: device.source)
                held.withLock { $0[index] = client }
            }
            output.write("connected \(list.count)")
            while let line = readLine(), line != "subscribe" {}
            let clients = held.withLock { $0 }
            try await concurrently(workers: workers, items: list.count) { _, index in
                try await clients[index]?.subscribe(list[index].topic)
            }
            output.write("held \(list.count)")
        } catch {
            output.write("error \(error)".replacingOccurrences(of: "\n", with: " "))
        }
        while let line = readLine(), line != "close" {}
        let clients = held.withLock { $0.compactMap { $0 } }
        try? await concurrently(workers: workers, items: clients.count) { _, index in await clients[index].close() }
        output.write("closed")
        try? await group.shutdownGracefully()
    }

    /// Standard output, one whole line at a time from any thread.
    final class Output: Sendable {
        private let lock = Mutex(())

        func write(_ line: String) {
            lock.withLock { _ in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        }
    }
}
