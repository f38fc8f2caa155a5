import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// The operator console in headless Chromium against the real executable, used by keyboard and
/// mouse as an operator would: sign in with the printed client credentials, find a topic,
/// explain a denial, see who can read it, stage a grant, preview it (nothing changes), apply
/// it (the outsider's send goes through), revoke it (refused again), and read the audit trail
/// and the security audit. Each check also asks the API, so what the page shows is what holds.
/// Screenshots (desk and phone width) are kept after the run (`TestFolder.keepScreenshots`); their
/// paths are printed.
@Suite("Console: the operator console in a real browser")
struct ConsoleBrowserTests {
    @Test(
        "Sign in, find a topic, explain a denial, who can read it, stage, preview, apply and revoke a grant, watch a test push reach a phone, open a group"
    )
    func topicStory() async throws {
        let world = try await PushWorld.started(embedded: true)
        let shots = world.directory + "-console"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let ann = try await world.normalUser("ann")
        let bob = try await world.normalUser("bob")
        let eve = try await world.normalUser("eve")
        let groupID = try await world.group(owner: ann.token, members: [bob.id], name: "night-shift")
        let topic = "\(world.app)/groups/\(groupID)/topics/rota"
        try await world.call(.put, topic, token: ann.token).expect(.noContent)
        try await world.subscribe(topic, userID: bob.id, token: bob.token)
        // Bob's phone, connected over MQTT.
        let bobsPhone = try await world.install(token: bob.token)
        let phone = try await world.connectedDevice(bobsPhone)
        defer { phone.shutdown() }
        // A failed login, for the security audit.
        #expect(
            try await world.call(.post, "\(world.app)/oauth2/token", json: ["username": "eve", "password": "wrong"])
                .status == .badRequest)

        try await Self.withBrowser(world: world, shots: shots) { browser in
            try await Self.signIn(browser, to: world)
            try await browser.waitForText(".tiles", containing: "Users\n3")
            // Every control has a name a screen reader can say.
            let unnamed = try await browser.script(
                """
                return [...document.querySelectorAll('input, select, button, a')].filter((e) => !e.closest('[hidden]')
                  && !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim())).map((e) => e.outerHTML);
                """)
            #expect(unnamed == .array([]))
            // The admin token is in this tab's sessionStorage only.
            #expect(try await browser.script("return localStorage.length;") == 0)
            #expect(try await browser.script("return document.cookie;") == "")
            try await browser.screenshot(to: shots + "/overview.png")

            // Find the topic by its group's name, open it.
            try await browser.click("a[href='#/topics']")
            try await browser.type("#topic-search", "night")
            try await browser.press(WebDriver.enter)
            try await browser.waitForText("#topic-results", containing: "rota")
            try await browser.click("#topic-results a")
            try await browser.waitForText("#acl-matrix", containing: "GroupID:\(groupID)")

            // Why can't Eve send? Who can read it?
            try await browser.type("#explain-principal", "eve")
            try await browser.click("#explain-action option[value='SEND_MESSAGE_TO_TOPIC']")
            try await browser.click("#explain-principal ~ button, form:has(#explain-principal) button")
            let denial = try await browser.waitForText("#explain-result", containing: "Denied")
            #expect(denial.contains("no entry grants SEND_MESSAGE_TO_TOPIC to user:\(eve.id)"))
            let readers = try await browser.waitForText("#who-SUBSCRIBE_TO_TOPIC", containing: "bob")
            #expect(readers.contains("ann"))
            #expect(!readers.contains("eve"))
            // The whole answer on one tall page (the README's picture).
            try await browser.resize(width: 1200, height: 1500)
            _ = try await browser.script("window.scrollTo(0, 0); return true;")
            try await browser.screenshot(to: shots + "/topic-explain.png")
            try await browser.resize(width: 1280, height: 900)

            // Stage a grant for Eve and preview it: nothing changes yet.
            try await browser.type("#grant-subject", "eve")
            try await browser.click("#grant-action option[value='SEND_MESSAGE_TO_TOPIC']")
            try await browser.click("form:has(#grant-subject) button")
            try await browser.waitForText("#acl-batch", containing: "grant SEND_MESSAGE_TO_TOPIC to UserID:\(eve.id)")
            try await browser.click("#preview-batch")
            try await browser.waitForText("#batch-preview", containing: "+ SEND_MESSAGE_TO_TOPIC UserID:\(eve.id)")
            try await browser.screenshot(to: shots + "/topic-preview.png")
            #expect(try await world.send(topic, token: eve.token).status == .forbidden)

            // Apply: Eve's send goes through, and the explanation says why.
            try await browser.click("#apply-batch")
            try await browser.waitForText("#status", containing: "Applied 1 change")
            #expect(try await world.send(topic, token: eve.token).status == .created)
            try await browser.click("form:has(#explain-principal) button")
            let allowed = try await browser.waitForText("#explain-result", containing: "Allowed")
            #expect(allowed.contains("granted entry SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)"))
            try await browser.waitForText("#who-SEND_MESSAGE_TO_TOPIC", containing: "eve")
            try await browser.waitForText("#audit", containing: "grant")

            // Revoke it from the matrix: refused again.
            try await browser.click("button[aria-label='Stage revoke of SEND_MESSAGE_TO_TOPIC for UserID:\(eve.id)']")
            try await browser.click("#apply-batch")
            try await browser.waitForText("#status", containing: "Applied 1 change")
            #expect(try await world.send(topic, token: eve.token).status == .forbidden)
            // The explanation on the page is asked again: it no longer says allowed.
            let again = try await browser.waitForText("#explain-result", containing: "Denied")
            #expect(again.contains("no entry grants SEND_MESSAGE_TO_TOPIC to user:\(eve.id)"))
            let audit = try await browser.waitForText("#audit", containing: "revoke")
            #expect(audit.contains("admin"))
            // The creator's entries cannot be revoked: the matrix offers no button for them.
            #expect(
                try await browser.elements(
                    "button[aria-label='Stage revoke of SEND_MESSAGE_TO_TOPIC for UserID:\(ann.id)']"
                ).isEmpty)
            try await browser.screenshot(to: shots + "/topic.png")

            // A test push, watched to Bob's phone: acknowledged while it is connected; it has it.
            let received = ReceivedMessages(phone)
            try await browser.type("#test-message", "Hello Bob 42")
            try await browser.click("#send-test-push")
            let trace = try await browser.waitForText("#test-push-summary", containing: "1 acknowledged")
            #expect(trace.contains("0 pending"))
            #expect(try await browser.text("#test-push").contains("bob"))
            // (Eve's send while she was allowed came before it.)
            let pushed = await received.wait(for: 2)
            #expect(pushed.contains { String(decoding: $0.payload, as: UTF8.self).contains("Hello Bob 42") })
            _ = try await browser.script("document.getElementById('test-push').scrollIntoView(); return true;")
            try await browser.screenshot(to: shots + "/test-push.png")

            // At phone width the page fits: nothing wider than the window but the tables' own scroll.
            try await browser.resize(width: 390, height: 1400)
            // The elements that stick out, outermost first (none when the page fits).
            let overflow = try await browser.script(
                """
                const width = document.documentElement.clientWidth;
                return [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > width + 1
                  && !e.closest('.table-wrap')).slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className);
                """)
            #expect(overflow == .array([]))
            try await browser.screenshot(to: shots + "/topic-phone.png")
            try await browser.resize(width: 1280, height: 900)

            // Bob's page: his group, the topics he may use; disable him (his token is refused), enable him.
            try await browser.click("a[href='#/principals']")
            try await browser.type("#principal-search", "bob")
            try await browser.press(WebDriver.enter)
            try await browser.waitForText("#principal-results", containing: "user:\(bob.id)")
            try await browser.click("#principal-results a")
            try await browser.waitForText("#main", containing: "night-shift")
            try await browser.waitForText("#may-subscribe", containing: "group/\(groupID)/rota")
            #expect(try await browser.text("#may-send").contains("group/\(groupID)/rota"))
            // His phone is online; its installation is deleted (as the app would on sign-out): the
            // broker kicks it, and the page shows it offline, deleted, without a reload.
            try await browser.waitForText("#devices", containing: "online")
            try await world.call(.delete, "\(world.app)/installations/\(bobsPhone.installationID)", token: bob.token)
                .expect(.noContent)
            let gone = try await browser.waitForText("#devices", containing: "offline, last seen")
            #expect(gone.contains("deleted"))
            _ = try await browser.script("document.getElementById('devices').scrollIntoView(); return true;")
            try await browser.screenshot(to: shots + "/devices.png")
            #expect(try await eventually { !phone.isConnected })
            try await browser.click("#toggle-disabled")
            try await browser.waitForText("#principal-status", containing: "Disabled")
            #expect(try await world.call(.get, "\(world.app)/users/me", token: bob.token).status != .ok)
            try await browser.screenshot(to: shots + "/principal.png")
            try await browser.click("#toggle-disabled")
            try await browser.waitForText("#principal-status", containing: "Enabled")
            #expect(try await world.call(.get, "\(world.app)/users/me", token: bob.token).status == .ok)

            // His group's page: its owner and members, and the topic whose ACL names it.
            try await browser.click("a[href='#/principal?p=group%3A\(groupID)']")
            let members = try await browser.waitForText("#main", containing: "Members: 2")
            #expect(members.contains("ann") && members.contains("owner"))
            #expect(try await browser.text("#scope-topics").contains("rota"))
            try await browser.screenshot(to: shots + "/group.png")

            // The security audit shows the failed login, filterable.
            try await browser.click("a[href='#/security']")
            try await browser.waitForText("#main", containing: "Security audit")
            try await browser.type("#events-filter", "eve")
            let events = try await browser.waitForText("#main section", containing: "1 of")
            #expect(events.lowercased().contains("login"))
            try await browser.screenshot(to: shots + "/security.png")

            // Signing out forgets the token, and ends it on the server.
            let stored = try await browser.script("return sessionStorage.getItem(sessionStorage.key(0));")
            let token = try #require(
                stored.stringValue.flatMap { try? JSONReader.object(Array($0.utf8)) }?["token"]?.stringValue)
            try await world.call(.get, "\(world.app)/overview", token: token).expect(.ok)
            try await browser.click("#sign-out")
            _ = try await browser.element("#sign-in:not([hidden])")
            #expect(try await browser.script("return sessionStorage.length;") == 0)
            #expect(
                try await eventually {
                    try await world.call(.get, "\(world.app)/overview", token: token).errorCode == "WRONG_TOKEN"
                })
        }
        print("Console screenshots: \(TestFolder.keepScreenshots(from: shots, as: "console"))")
    }

    @Test("A crafted link whose scope or name holds '..' is refused before any request is made with it")
    func craftedTopicLinkIsRefused() async throws {
        let world = try await PushWorld.started()
        let shots = world.directory + "-console-crafted"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        // The app-scope topic the crafted link would reach once `group/..` is resolved away.
        let admin = try await world.adminToken()
        try await world.call(.put, "\(world.app)/topics/news", token: admin).expect(.noContent)
        let console = "http://127.0.0.1:\(world.server.port)/console"
        try await Self.withBrowser(world: world, shots: shots) { browser in
            try await Self.signIn(browser, to: world)
            for crafted in [
                "scope=group/..&name=news", "scope=group/.&name=news", "scope=app&name=..",
                "scope=bucket/x&name=news", "scope=group/a/b&name=news",
            ] {
                try await browser.open(console + "#/topic?" + crafted)
                let refusal = try await browser.waitForText("#topic-refused", containing: "Not a topic")
                #expect(refusal.contains("\"..\""), "\(crafted)")
                // Nothing of the app-scope topic is shown, so nothing can be changed or sent there.
                #expect(try await browser.elements("#acl-matrix").isEmpty, "\(crafted)")
            }
            try await browser.screenshot(to: shots + "/crafted-link.png")
            try await browser.open(console + "#/principal?p=user:..")
            try await browser.waitForText("#principal-refused", containing: "Not a principal")
        }
    }

    @Test("A gateway's page lists its end nodes with the connection it reported; an end node's page names its gateway")
    func gatewayPages() async throws {
        let world = try await PushWorld.started()
        let shots = world.directory + "-console-gateway"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let ann = try await world.pseudoUser()
        let hub = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: ann.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": "living-room-hub", "thingPassword": "gatewaypass", "layoutPosition": "GATEWAY",
                "owner": .string("user:\(ann.id)"),
            ]
        ).expect(.ok)
        let hubID = try hub.require("thingID")
        var nodes: [String] = []
        for name in ["ceiling-lamp", "window-sensor"] {
            nodes.append(
                try await world.call(
                    .post, "/thing-if/apps/\(world.appID)/onboardings", token: ann.token,
                    contentType: "application/vnd.kii.OnboardingEndNodeWithGatewayThingID+json",
                    json: [
                        "gatewayThingID": .string(hubID), "endNodeVendorThingID": .string(name),
                        "endNodePassword": "endnodepass", "owner": .string("user:\(ann.id)"),
                    ]
                ).expect(.ok).require("endNodeThingID"))
        }
        try await world.call(
            .put, "/thing-if/apps/\(world.appID)/things/\(hubID)/end-nodes/\(nodes[0])/connection",
            token: try hub.require("accessToken"), contentType: "application/json", json: ["online": true]
        ).expect(.noContent)
        let console = "http://127.0.0.1:\(world.server.port)/console"
        try await Self.withBrowser(world: world, shots: shots) { browser in
            try await Self.signIn(browser, to: world)
            try await browser.open(console + "#/principal?p=thing:\(hubID)")
            let listed = try await browser.waitForText("#end-nodes", containing: "window-sensor")
            #expect(listed.contains("ceiling-lamp") && listed.contains("online") && listed.contains("not reported"))
            #expect(try await browser.text("#main").contains("End nodes: 2"))
            _ = try await browser.script("document.getElementById('end-nodes').scrollIntoView(); return true;")
            try await browser.screenshot(to: shots + "/gateway.png")
            try await browser.click("#end-nodes a[href='#/principal?p=thing%3A\(nodes[0])']")
            let gateway = try await browser.waitForText("#end-node-of", containing: hubID)
            #expect(gateway.contains("online"))
            try await browser.screenshot(to: shots + "/end-node.png")
        }
        print("Console screenshots: \(TestFolder.keepScreenshots(from: shots, as: "console-gateway"))")
    }

    /// Runs `body` with a browser on `world`, then quits the browser and stops `world`, whether
    /// it threw or not (a screenshot of the failure is kept with `shots`' others).
    static func withBrowser(world: PushWorld, shots: String, _ body: (WebDriver) async throws -> Void) async throws {
        let browser = try await WebDriver.started(folder: shots)
        do {
            try await body(browser)
        } catch {
            try? await browser.screenshot(to: shots + "/failure.png")
            let name = "failed-" + URL(fileURLWithPath: shots).lastPathComponent
            print("Console screenshots of the failure: \(TestFolder.keepScreenshots(from: shots, as: name))")
            await browser.quit()
            try await world.stop()
            throw error
        }
        await browser.quit()
        try await world.stop()
    }

    /// Opens the console of `world`'s gateway and signs in with the keyboard alone (the app ID
    /// field has the focus), with the credentials its first start printed.
    static func signIn(_ browser: WebDriver, to world: PushWorld) async throws {
        let credentials = try world.server.adminCredentials()
        try await browser.open("http://127.0.0.1:\(world.server.port)/console")
        _ = try await browser.element("#sign-in:not([hidden])")
        try await browser.press(
            world.appID + WebDriver.tab + credentials.clientID + WebDriver.tab + credentials.clientSecret
                + WebDriver.enter)
        try await browser.waitForText("#main", containing: "This app")
    }
}
