import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ProcessSupport
import Synchronization
import TestSupport
import TopicGateCore

/// Headless Chromium driven as a person would use it, through chromedriver and the W3C
/// WebDriver protocol (JSON over HTTP): open a page, find elements by CSS selector, click,
/// type and press keys, read text, take screenshots. Element lookups wait (up to `patience`)
/// for the page's scripts to put the element there.
final class WebDriver: @unchecked Sendable {
    // @unchecked: used by one test at a time.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"
    /// WebDriver's key codes.
    static let tab = "\u{E004}"
    static let enter = "\u{E007}"

    let port: Int
    let process: ChildProcess
    let profile: String
    private(set) var session = ""
    var patience: Duration = .seconds(15)

    /// chromedriver on a free port, and one headless Chromium session of `width` × `height`
    /// with a profile under `folder`.
    static func started(folder: String, width: Int = 1280, height: Int = 900) async throws -> WebDriver {
        let driver = try WebDriver(folder: folder)
        try await driver.startSession(width: width, height: height)
        return driver
    }

    private init(folder: String) throws {
        port = FreePort.next()
        profile = folder + "/chromium-profile-\(UUID().uuidString)"
        process = try ChildProcess.spawn(
            executable: "/usr/bin/chromedriver", arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1"])
    }

    private func startSession(width: Int, height: Int) async throws {
        guard await TCPProbe.waitUntilAccepts(port: port, timeout: .seconds(20)) else {
            throw TestFailure("chromedriver did not listen on \(port)")
        }
        // Root in a container: no sandbox, no GPU, /tmp instead of a small /dev/shm.
        let arguments: [String] = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "--lang=en-US",
        ]
        let answer = try await command(
            .post, "/session",
            [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": "/usr/bin/chromium", "args": .array(arguments.map { .string($0) }),
                        ],
                    ]
                ]
            ])
        guard let id = answer.objectValue?["sessionId"]?.stringValue else {
            throw TestFailure("no WebDriver session: \(JSONWriter.string(answer))")
        }
        session = id
    }

    /// Ends the session and chromedriver, and removes the browser profile.
    func quit() async {
        if !session.isEmpty { _ = try? await command(.delete, "/session/\(session)", nil, timeout: .seconds(10)) }
        process.killNow()
        try? FileManager.default.removeItem(atPath: profile)
    }

    // MARK: Pages and elements

    func open(_ url: String) async throws {
        _ = try await command(.post, sessionPath("/url"), ["url": .string(url)])
    }

    /// The first element `selector` matches, once there is one.
    func element(_ selector: String) async throws -> String {
        let deadline = ContinuousClock.now + patience
        while true {
            if let found = try await elements(selector).first { return found }
            guard ContinuousClock.now < deadline else { throw TestFailure("no element matches \(selector)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Every element `selector` matches now (perhaps none).
    func elements(_ selector: String) async throws -> [String] {
        let found = try await command(
            .post, sessionPath("/elements"), ["using": "css selector", "value": .string(selector)])
        return (found.arrayValue ?? []).compactMap { $0.objectValue?[Self.elementKey]?.stringValue }
    }

    /// Scrolls the element to the middle of the window, as a person would to see it, and clicks it.
    func click(_ selector: String) async throws {
        let found = try await element(selector)
        _ = try await script(
            "arguments[0].scrollIntoView({block: 'center'}); return true;", [[Self.elementKey: .string(found)]])
        _ = try await command(.post, sessionPath("/element/\(found)/click"), [:])
    }

    /// Clears the field and types `text` into it, key by key.
    func type(_ selector: String, _ text: String) async throws {
        let field = try await element(selector)
        _ = try await command(.post, sessionPath("/element/\(field)/clear"), [:])
        _ = try await command(.post, sessionPath("/element/\(field)/value"), ["text": .string(text)])
    }

    /// Keys pressed on whatever has the focus (`WebDriver.tab`, `.enter`, or text).
    func press(_ keys: String) async throws {
        let strokes: [JSONValue] = keys.unicodeScalars.flatMap { scalar -> [JSONValue] in
            [
                ["type": "keyDown", "value": .string(String(scalar))],
                ["type": "keyUp", "value": .string(String(scalar))],
            ]
        }
        _ = try await command(
            .post, sessionPath("/actions"),
            ["actions": [["type": "key", "id": "keyboard", "actions": .array(strokes)]]])
    }

    /// The text the element shows.
    func text(_ selector: String) async throws -> String {
        _ = try await element(selector)
        return try await currentText(selector) ?? ""
    }

    /// The text of the first element `selector` matches now (nil when none does), found anew
    /// when the page replaced it between finding and reading, as a section that refreshes
    /// itself does.
    private func currentText(_ selector: String) async throws -> String? {
        for _ in 0..<10 {
            guard let found = try await elements(selector).first else { return nil }
            do {
                return try await command(.get, sessionPath("/element/\(found)/text"), nil).stringValue ?? ""
            } catch let failure as TestFailure where failure.description.contains("stale element") {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        throw TestFailure("\(selector) was replaced each time it was read")
    }

    /// The element's text once it contains `expected`; fails with what it showed otherwise.
    @discardableResult
    func waitForText(_ selector: String, containing expected: String) async throws -> String {
        let deadline = ContinuousClock.now + patience
        var shown = ""
        while ContinuousClock.now < deadline {
            if let text = try await currentText(selector) {
                shown = text
                if shown.contains(expected) { return shown }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("\(selector) never showed \"\(expected)\"; it showed \"\(shown)\"")
    }

    /// Runs `script` (a function body; `arguments[0]`… are `arguments`) in the page.
    func script(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command(
            .post, sessionPath("/execute/sync"), ["script": .string(script), "args": .array(arguments)])
    }

    /// The window's size, as a phone's or a desk's.
    func resize(width: Int, height: Int) async throws {
        _ = try await command(
            .post, sessionPath("/window/rect"), ["width": .int(Int64(width)), "height": .int(Int64(height))])
    }

    /// A PNG of the window's viewport, written to `path`.
    func screenshot(to path: String) async throws {
        let encoded = try await command(.get, sessionPath("/screenshot"), nil).stringValue ?? ""
        guard let png = Data(base64Encoded: encoded) else { throw TestFailure("no screenshot") }
        try png.write(to: URL(fileURLWithPath: path))
    }

    // MARK: The protocol

    private func sessionPath(_ rest: String) -> String { "/session/\(session)\(rest)" }

    /// One WebDriver command; its `value`, or a failure with WebDriver's error (also when it
    /// has no answer within `timeout`).
    private func command(
        _ method: HTTPRequest.Method, _ path: String, _ body: JSONValue?, timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        let request = TestClient.Request(
            path, method: method, headers: body == nil ? [:] : [.contentType: "application/json"],
            body: body.map { ByteBuffer(bytes: JSONWriter.bytes($0)) })
        let port = port
        // The first of the answer and the timeout resumes; a request that never ends is left behind.
        let response: TestClient.Response = try await withCheckedThrowingContinuation { continuation in
            let resumed = Mutex(false)
            let resume: @Sendable (Result<TestClient.Response, any Error>) -> Void = { result in
                guard
                    resumed.withLock({ done in
                        defer { done = true }
                        return !done
                    })
                else { return }
                continuation.resume(with: result)
            }
            Task {
                do {
                    resume(
                        .success(
                            // The client's own read limit is ours (its default, 15 s, is shorter than
                            // a loaded machine may take to load a page).
                            try await TestClient.withClient(
                                host: "127.0.0.1", port: port, configuration: .init(timeout: timeout)
                            ) { client in
                                try await client.execute(request)
                            }))
                } catch {
                    resume(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                resume(.failure(TestFailure("WebDriver \(method) \(path): no answer in \(timeout)")))
            }
        }
        let status = Int(response.head.status.code)
        let data = response.body.map { Array($0.readableBytesView) } ?? []
        let value = (try? JSONReader.object(Array(data)))?["value"] ?? .null
        guard status < 300 else {
            let error = value.objectValue
            throw TestFailure(
                "WebDriver \(method) \(path): \(error?["error"]?.stringValue ?? "HTTP \(status)") "
                    + (error?["message"]?.stringValue ?? ""))
        }
        return value
    }
}
