import Foundation
import HTTPTypes
import Logging
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateServer

/// `/metrics`, request IDs: what an operator watches.
@Suite("Metrics and request IDs")
struct ObservabilityTests {
    /// The value of the sample line that starts with `prefix` (name and labels), if any.
    static func sample(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("Requests by route and status, decisions by action and result, outbox depth and command states")
    func metrics() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let outsider = try await client.pseudoUser()
            let group = try await client.group(owner: owner.token)
            let topic = "\(client.app)/groups/\(group)/topics/news"
            #expect(try await client.call(.put, topic, token: owner.token).status == .noContent)
            #expect(try await client.send(topic, token: owner.token).status == .created)
            #expect(try await client.send(topic, token: outsider.token).status == .forbidden)
            #expect(try await client.send(topic, token: outsider.token).status == .forbidden)

            let scraped = try await client.call(.get, "/metrics")
            #expect(scraped.status == .ok)
            #expect(scraped.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = scraped.text
            let route = "/api/apps/{appID}/groups/{group}/topics/{topic}/push/messages"
            #expect(
                Self.sample(text, #"topicgate_http_requests_total{route="\#(route)",method="POST",status="403"}"#) == 2)
            #expect(
                Self.sample(text, #"topicgate_http_requests_total{route="\#(route)",method="POST",status="201"}"#) == 1)
            #expect(
                Self.sample(text, #"topicgate_access_decisions_total{action="SEND_MESSAGE_TO_TOPIC",result="denied"}"#)
                    == 2)
            #expect(
                Self.sample(text, #"topicgate_access_decisions_total{action="SEND_MESSAGE_TO_TOPIC",result="allowed"}"#)
                    == 1)
            #expect(Self.sample(text, "topicgate_outbox_depth") == 0)
            #expect(Self.sample(text, #"topicgate_commands{state="SENDING"}"#) == 0)
            #expect(text.contains("topicgate_http_request_duration_seconds_bucket"))
            #expect(!text.contains(owner.token))
        }
    }

    @Test("/metrics carries no CORS headers, and with a metrics token only a scraper that presents it reads them")
    func metricsAreForTheScraper() async throws {
        let token = "scrape-0123456789abcdef"
        let server = try await TestServer.make(metricsToken: token)
        try await server.run { client in
            // A page of another origin gets nothing it may read, preflight or not, however it
            // spells the path.
            for path in ["/metrics", "/metrics/", "//metrics"] {
                let fromPage = try await client.call(
                    .get, path, token: token, headers: [.origin: "https://evil.example"])
                #expect(fromPage.status == .ok, "\(path)")
                #expect(fromPage.headers[.accessControlAllowOrigin] == nil, "\(path)")
            }
            let preflight = try await client.call(
                .options, "/metrics",
                headers: [.origin: "https://evil.example", .accessControlRequestMethod: "GET"])
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
            // Any other route still answers the page with CORS headers.
            let health = try await client.call(.get, "/health", headers: [.origin: "https://evil.example"])
            #expect(health.headers[.accessControlAllowOrigin] != nil)
            // No token, another scheme, a wrong token: 401, no figures.
            for refused in [
                try await client.call(.get, "/metrics"),
                try await client.call(.get, "/metrics", headers: [.authorization: "Basic \(token)"]),
                try await client.call(.get, "/metrics", token: token + "x"),
            ] {
                #expect(refused.status == .unauthorized)
                #expect(refused.errorCode == "UNAUTHORIZED")
                #expect(!refused.text.contains("topicgate_"))
            }
            #expect(try await client.call(.get, "/metrics", token: token).text.contains("topicgate_outbox_depth"))
        }
    }

    @Test("A line logged while a request is served carries its ID; one logged outside carries none")
    func requestIDInLogs() {
        #expect(RequestID.metadataProvider.get().isEmpty)
        RequestID.$current.withValue("trace-42") {
            #expect(RequestID.metadataProvider.get()["request.id"] == .string("trace-42"))
        }
    }

    @Test("Every response carries a request ID: the client's when it is sane, a new one otherwise")
    func requestIDs() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let given = try await client.call(
                .get, "/health", headers: [HTTPField.Name("X-Request-ID")!: "trace-42.a_b"])
            #expect(given.headers[HTTPField.Name("X-Request-ID")!] == "trace-42.a_b")
            let hostile = try await client.call(.get, "/health", headers: [HTTPField.Name("X-Request-ID")!: "a b\u{7}"])
            let generated = try #require(hostile.headers[HTTPField.Name("X-Request-ID")!])
            #expect(generated.count == 16 && generated != "a b\u{7}")
            let missing = try await client.call(.get, "\(client.app)/nothing-here")
            #expect(missing.headers[HTTPField.Name("X-Request-ID")!]?.count == 16)
        }
    }
}
