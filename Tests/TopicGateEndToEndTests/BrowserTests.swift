import Foundation
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// A web app in a real browser (headless Chromium) on a second loopback origin, against the
/// real executable and its embedded broker: pseudo-user sign-up, token login, a group, a group
/// topic with an ACL change, subscribe, a refused send whose 403 the page reads, a push over
/// MQTT over WebSockets, delete. The page reports each step; the test reads the report and
/// keeps the page's screenshot after the run (`TestFolder.keepScreenshots`; its path is printed).
@Suite("Browser: a web app on another origin")
struct BrowserTests {
    static let pageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Browser")

    @Test("Every step of the web app succeeds in headless Chromium, the push arriving over WebSockets")
    func webApp() async throws {
        let world = try await PushWorld.started(embedded: true)
        let site = world.directory + "-site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Self.pageFolder.appendingPathComponent("kii-web-app.html").path, toPath: site + "/index.html")
        let appKey = try world.server.printedValue("appKey")
        let configuration = JSONWriter.string([
            "api": .string("http://127.0.0.1:\(world.server.port)"), "app": .string(world.appID),
            "appKey": .string(appKey),
        ])
        try "window.TOPICGATE = \(configuration);".write(toFile: site + "/config.js", atomically: true, encoding: .utf8)

        // The page's own origin: another port of another loopback name than the API's.
        let pagePort = FreePort.next()
        let pageServer = try Self.spawn(
            "/usr/bin/python3", [Self.pageFolder.appendingPathComponent("page_server.py").path, "\(pagePort)", site])
        defer { pageServer.send(SIGTERM) }
        var ready = false
        for _ in 0..<100 where !ready {
            ready = TCPProbe.accepts(port: pagePort)
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(ready)
        // Headless Chromium on the page, as a person would open it; it runs until killed.
        let browser = try Self.spawn(
            "/usr/bin/chromium", Self.chromium(site: site) + ["http://localhost:\(pagePort)/index.html"])
        defer { browser.send(SIGTERM) }

        // The page posts its results when it is done.
        let resultsPath = site + "/results.json"
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: resultsPath) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        browser.send(SIGTERM)
        let posted = try JSONReader.object(Array(try Data(contentsOf: URL(fileURLWithPath: resultsPath))))
        let results = posted["steps"]?.objectValue ?? [:]
        let steps = [
            "pseudo-user sign-up", "token login", "group", "group topic with an ACL change", "subscribe",
            "refused send",
            "MQTT endpoint", "push over MQTT over WebSockets", "delete",
        ]
        for step in steps {
            let outcome = results[step]?.objectValue
            #expect(outcome?["ok"] == .bool(true), "\(step): \(outcome?["detail"]?.stringValue ?? "missing")")
        }
        #expect(results["unexpected error"] == nil, "\(results["unexpected error"] ?? .null)")

        // A screenshot of the page as it ended (its DOM without scripts, so that it stays put).
        let html = (posted["html"]?.stringValue ?? "")
            .replacingOccurrences(of: "<script[^>]*>[\\s\\S]*?</script>", with: "", options: .regularExpression)
        try ("<!doctype html>" + html).write(toFile: site + "/report.html", atomically: true, encoding: .utf8)
        let screenshot = site + "/screenshot.png"
        let camera = try Self.spawn(
            "/usr/bin/chromium",
            Self.chromium(site: site) + [
                "--window-size=900,520", "--screenshot=\(screenshot)", "http://localhost:\(pagePort)/report.html",
            ])
        for _ in 0..<300 where camera.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(FileManager.default.fileExists(atPath: screenshot), "no screenshot at \(screenshot)")
        print("Browser test screenshot: \(TestFolder.keepScreenshots(from: site, as: "browser"))/screenshot.png")
        // Chromium's profiles are tens of megabytes; the page, its report and the screenshot stay.
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
        where entry.hasPrefix("profile-") {
            try? FileManager.default.removeItem(atPath: site + "/" + entry)
        }
        try await world.stop()
    }

    /// Headless Chromium as root in a container: no sandbox, no GPU, a profile of its own.
    static func chromium(site: String) -> [String] {
        [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(site)/profile-\(UUID().uuidString)",
        ]
    }

    static func spawn(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess.spawn(executable: executable, arguments: arguments)
    }
}
