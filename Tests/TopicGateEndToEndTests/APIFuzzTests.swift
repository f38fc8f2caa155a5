import Foundation
import HTTPTypes
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// Schemathesis (a property-based API fuzzer from PyPI; `make test` installs it into
/// `.build/fuzz-venv`) against a real `topicgate serve` with a real Mosquitto, driven by the
/// server's own OpenAPI document: every operation, as a user and as the admin, with a fixed
/// seed. No response may be a 5xx, none may hang, and every error must be a Kii error body.
/// `make fuzz` runs it longer (`TOPICGATE_FUZZ_EXAMPLES`).
@Suite("API fuzzing", .serialized)
struct APIFuzzTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL
    static var schemathesis: String {
        ProcessInfo.processInfo.environment["TOPICGATE_SCHEMATHESIS"]
            ?? repository.appendingPathComponent(".build/fuzz-venv/bin/schemathesis").path
    }
    static var examplesPerOperation: Int {
        ProcessInfo.processInfo.environment["TOPICGATE_FUZZ_EXAMPLES"].flatMap(Int.init) ?? 45
    }
    static let seed = 20_261_124

    @Test("Thousands of generated requests across every route: no 5xx, no hang, every error in the Kii shape")
    func fuzz() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.schemathesis) else {
            throw TestFailure(
                "schemathesis is not installed at \(Self.schemathesis): run `make fuzz-deps` (make test does)")
        }
        let world = try await PushWorld.started(arguments: [
            "--signup-limit", "off", "--signup-limit-per-app", "off", "--login-failure-limit", "off",
            "--login-failure-limit-per-app", "off", "--state-limit", "off",
        ])
        let directory = TestFolder.url.appendingPathComponent("tg-fuzz-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await world.stopping {
            // Real values the generator may pick for path parameters, so that requests reach
            // past "not found" into the handlers.
            let user = try await world.pseudoUser()
            let owner = try await world.pseudoUser()
            let admin = try await world.adminToken()
            let group = try await world.group(owner: owner.token, members: [user.id])
            let topic = try await world.groupTopic(owner: owner.token, members: [user.id], name: "fuzz")
            let thing = try await world.onboardThing("fuzz-lamp", owner: owner)
            let installation = try await world.install(token: user.token)
            _ = topic
            let known: [String: [String]] = [
                "appID": [world.appID],
                "user": ["me", user.id, owner.id],
                "group": [group],
                "thing": [thing.id, "VENDOR_THING_ID:fuzz-lamp"],
                "target": ["thing:\(thing.id)"],
                "topic": ["fuzz", "news"],
                "installation": [installation.installationID],
                "subscriber": [user.id, thing.id],
                "member": [user.id],
                "owner": ["user:\(owner.id)", "group:\(group)"],
                "action": ["SUBSCRIBE_TO_TOPIC", "SEND_MESSAGE_TO_TOPIC"],
                "subject": ["UserID:\(user.id)", "GroupID:\(group)", "UserID:ANY_AUTHENTICATED_USER"],
            ]
            // The fixed corpus: requests that once broke servers like this one, replayed first.
            for entry in Self.corpus(app: world.app, thingIF: "/thing-if/apps/\(world.appID)", thing: thing.id) {
                for token in [nil, user.token, admin] as [String?] {
                    let reply = try await world.call(
                        entry.method, entry.path, token: token, contentType: entry.contentType, body: entry.body)
                    #expect(reply.status.code < 500, "\(entry.method) \(entry.path)")
                    if reply.status.code >= 400, entry.method != .head {
                        #expect(
                            reply.object["errorCode"]?.stringValue != nil, "\(entry.method) \(entry.path): no errorCode"
                        )
                        #expect(
                            reply.object["message"]?.stringValue != nil, "\(entry.method) \(entry.path): no message")
                    }
                }
            }

            let schemaPath = directory + "/openapi.json"
            try Data(JSONWriter.bytes(Self.schema(knownValues: known))).write(to: URL(fileURLWithPath: schemaPath))

            var requests = 0
            for (name, token) in [("user", user.token), ("admin", admin)] {
                let har = directory + "/\(name).har"
                let (status, output) = try await Self.run(
                    [
                        "run", schemaPath, "--url", "http://127.0.0.1:\(world.server.port)",
                        "--checks", "not_a_server_error", "--max-examples", String(Self.examplesPerOperation),
                        "--seed", String(Self.seed), "--phases", "fuzzing", "--workers", "2",
                        "--request-timeout", "10", "--generation-database", "none", "--suppress-health-check", "all",
                        "--header", "Authorization: Bearer \(token)", "--report", "har", "--report-har-path", har,
                        "--no-color", "--output-truncate", "true",
                    ], log: directory + "/\(name).log")
                let entries = try Self.entries(har)
                requests += entries.count
                let serverErrors = entries.filter { $0.status >= 500 }
                #expect(serverErrors.isEmpty, "\(name): \(serverErrors.prefix(5).map(\.summary))")
                let unshaped = entries.filter { !$0.isKiiShaped }
                #expect(unshaped.isEmpty, "\(name): errors not in the Kii shape: \(unshaped.prefix(5).map(\.summary))")
                #expect(status == 0, "schemathesis (\(name)) failed:\n\(Self.errorsSection(output))")
            }
            #expect(requests >= 10_000, "only \(requests) requests were generated")
            // The server is still there and healthy.
            #expect(try await world.call(.get, "/ready").status == .ok)
            print("API fuzzing: \(requests) requests, 0 server errors, every error a Kii error body")
        }
    }

    /// One request of the fixed corpus.
    struct CorpusEntry {
        let method: HTTPRequest.Method
        let path: String
        var contentType: String? = "application/json"
        var body: String?
    }

    /// Hand-picked bad requests: broken and hostile JSON, wrong types, huge and negative
    /// numbers, odd path segments, NUL and non-ASCII characters, wrong media types.
    static func corpus(app: String, thingIF: String, thing: String) -> [CorpusEntry] {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        return [
            CorpusEntry(method: .post, path: app + "/users", body: "{"),
            CorpusEntry(method: .post, path: app + "/users", body: deep),
            CorpusEntry(method: .post, path: app + "/users", body: #"{"loginName":123,"password":["x"]}"#),
            CorpusEntry(
                method: .post, path: app + "/users", body: #"{"loginName":"a\u0000b","password":"password123"}"#),
            CorpusEntry(method: .post, path: app + "/users", contentType: "text/plain", body: "hello"),
            CorpusEntry(
                method: .post, path: "/api/oauth2/token", body: #"{"username":"x","password":"y","expiresAt":1e400}"#),
            CorpusEntry(
                method: .post, path: app + "/oauth2/token",
                body: #"{"grant_type":"client_credentials","client_id":null}"#),
            CorpusEntry(method: .get, path: app + "/users/%00"),
            CorpusEntry(method: .get, path: app + "/users/..%2F..%2Fetc"),
            CorpusEntry(method: .get, path: app + "/users/LOGIN_NAME:" + String(repeating: "%C3%A9", count: 300)),
            CorpusEntry(method: .put, path: app + "/topics/" + String(repeating: "t", count: 65)),
            CorpusEntry(method: .post, path: app + "/topics/news/push/messages", body: #"{"data":{"a":{"b":1}}}"#),
            CorpusEntry(
                method: .post, path: app + "/topics/news/push/messages", body: #"{"data":{"sender":"forged"}}"#),
            CorpusEntry(
                method: .get, path: thingIF + "/targets/thing:\(thing)/states/history?from=-1&to=99999999999999999999"),
            CorpusEntry(method: .get, path: thingIF + "/targets/thing:\(thing)/commands?bestEffortLimit=-5"),
            CorpusEntry(method: .put, path: thingIF + "/targets/thing:\(thing)/states", body: "[]"),
            CorpusEntry(
                method: .post, path: thingIF + "/targets/THING:\(thing)/commands",
                body: #"{"actions":"x","issuer":7}"#),
            CorpusEntry(
                method: .post, path: app + "/installations", body: #"{"deviceType":"MQTT","development":"maybe"}"#),
            CorpusEntry(method: .get, path: app + "/security-audit?limit=99999999999999999999&paginationKey=-1"),
            CorpusEntry(method: .patch, path: app + "/users/me", body: "{}"),
        ]
    }

    /// The server's document with `knownValues` offered for its path parameters (as examples
    /// and as one of the alternatives the generator picks from).
    static func schema(knownValues: [String: [String]]) -> JSONValue {
        guard case .object(var document) = OpenAPIDocument.servedJSON, case .object(var paths)? = document["paths"]
        else {
            return OpenAPIDocument.servedJSON
        }
        for (path, item) in paths {
            guard case .object(var operations) = item else { continue }
            for (method, operation) in operations {
                guard case .object(var object) = operation, case .array(let parameters)? = object["parameters"] else {
                    continue
                }
                object["parameters"] = .array(
                    parameters.map { parameter in
                        guard case .object(var fields) = parameter, fields["in"] == "path",
                            let name = fields["name"]?.stringValue, let values = knownValues[name]
                        else { return parameter }
                        fields["schema"] = [
                            "anyOf": [["enum": .array(values.map { .string($0) })], ["type": "string"]]
                        ]
                        fields["example"] = .string(values[0])
                        return .object(fields)
                    })
                operations[method] = .object(object)
            }
            paths[path] = .object(operations)
        }
        document["paths"] = .object(paths)
        return .object(document)
    }

    /// The part of schemathesis's output that says what went wrong (its ERRORS and FAILURES
    /// sections), else its last lines.
    static func errorsSection(_ output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("= ERRORS =") || $0.contains("= FAILURES =") }) else {
            return String(output.suffix(3000))
        }
        let end =
            lines[(start + 1)...].firstIndex(where: { $0.contains("= WARNINGS =") || $0.contains("= SUMMARY =") })
            ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// One request and its response, from the HAR report.
    struct Entry {
        let method: String
        let url: String
        let status: Int
        let body: String

        var summary: String { "\(method) \(url) → \(status) \(body.prefix(200))" }

        /// A 4xx or 5xx with a body must carry `errorCode` and `message` (HEAD has no body).
        var isKiiShaped: Bool {
            guard status >= 400, !body.isEmpty, method != "HEAD" else { return true }
            guard let object = try? JSONReader.object(Array(body.utf8)) else { return false }
            return object["errorCode"]?.stringValue != nil && object["message"]?.stringValue != nil
        }
    }

    static func entries(_ harPath: String) throws -> [Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: harPath))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let log = root["log"] as? [String: Any], let entries = log["entries"] as? [[String: Any]]
        else { throw TestFailure("unreadable HAR report \(harPath)") }
        return entries.map { entry in
            let request = entry["request"] as? [String: Any] ?? [:]
            let response = entry["response"] as? [String: Any] ?? [:]
            let content = response["content"] as? [String: Any] ?? [:]
            var body = content["text"] as? String ?? ""
            if content["encoding"] as? String == "base64", let decoded = Data(base64Encoded: body) {
                body = String(decoding: decoded, as: UTF8.self)
            }
            return Entry(
                method: request["method"] as? String ?? "?", url: request["url"] as? String ?? "?",
                status: response["status"] as? Int ?? 0, body: body)
        }
    }

    /// Runs schemathesis with its output in `log` (no pipe to fill up), and returns its exit
    /// status and the output.
    static func run(_ arguments: [String], log: String) async throws -> (Int32, String) {
        // Off the cooperative pool: the run takes minutes.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(arguments, log: log) })
            }
        }
    }

    static func runBlocking(_ arguments: [String], log: String) throws -> (Int32, String) {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? output.close() }
        var environment = ProcessInfo.processInfo.environment
        environment["SCHEMATHESIS_TELEMETRY"] = "false"
        let process = try ChildProcess.spawn(
            executable: schemathesis, arguments: arguments, environment: environment,
            output: output.fileDescriptor, error: output.fileDescriptor,
            // Beside its log: schemathesis keeps a cache folder in its working directory.
            workingDirectory: URL(fileURLWithPath: log).deletingLastPathComponent().path)
        let status = process.waitBlocking()
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}
