import Logging
import Synchronization
import Testing

@testable import TopicGateServer

/// The gateway's log lines read as swift-log's stream handler writes them (operators' parsers
/// and `grep request.id=…` keep working), with the metadata formatted only for a line written.
@Suite("Gateway log lines")
struct GatewayLogHandlerTests {
    /// What swift-log's `StreamLogHandler` writes, kept.
    final class Captured: TextOutputStream, Sendable {
        private let text = Mutex("")
        var lines: String { text.withLock { $0 } }
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    @Test("A line with the logger's, the provider's and the call's metadata is swift-log's stream line, keys sorted")
    func sameAsStreamLines() {
        let provider = Logger.MetadataProvider { ["request.id": "r-1"] }
        let captured = Captured()
        var stream = Logger(label: "topicgate") { label in
            StreamLogHandler(label: label, stream: captured, metadataProvider: provider)
        }
        stream[metadataKey: "hb.request.id"] = "7"
        let metadata: Logger.Metadata = ["status": .stringConvertible(201), "path": "/x y"]
        stream.warning("Answered", metadata: metadata, source: "TopicGateServer")
        let streamLine = captured.lines
        // The same event, through the gateway's formatting with the stream line's own timestamp.
        let timestamp = String(streamLine.prefix { $0 != " " })
        let merged = metadata.merging(["hb.request.id": "7", "request.id": "r-1"]) { kept, _ in kept }
        let line = GatewayLogHandler.line(
            timestamp: timestamp, level: .warning, label: "topicgate", metadata: merged, source: "TopicGateServer",
            message: "Answered")
        #expect(line == streamLine)
        #expect(
            line.hasSuffix(
                " warning topicgate: hb.request.id=7 path=/x y request.id=r-1 status=201 [TopicGateServer] Answered\n"))
        // No metadata: no space before the colon's end, as the stream handler writes it.
        #expect(
            GatewayLogHandler.line(
                timestamp: "T", level: .info, label: "topicgate", metadata: [:], source: "S", message: "m")
                == "T info topicgate: [S] m\n")
    }

    @Test("The timestamp is local time to the second with its offset")
    func timestamp() {
        let stamp = GatewayLogHandler.timestamp()
        #expect(stamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}/) != nil)
    }
}
