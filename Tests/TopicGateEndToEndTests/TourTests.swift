import Foundation
import Glibc
import TestSupport
import Testing

/// The tours run as written: each shell block of the README's tour and of docs/tour.md, in
/// order, typed into bash against a fresh `topicgate serve` (its ports and IDs in place of the
/// page's), every answer checked against the one the page shows.
@Suite("The tours run as written")
struct TourTests {
    @Test("README.md's short tour, then docs/tour.md, on one server as a reader would")
    func tours() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-tour-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = ServerProcess(dataDirectory: directory + "/data")
        try await server.start()
        do {
            for (page, heading) in [("README.md", "## A short tour"), ("docs/tour.md", nil)] {
                let script = TourScript(markdown: try ContainerImageTests.file(page), from: heading)
                #expect(script.blocks.count > 1, "no shell blocks found in \(page)")
                // The page's own values, learnt anew; the reader's programs of the page before
                // stopped (as with Ctrl-C), its files kept.
                let runner = try TourRunner(page: page, server: server, directory: directory)
                try await runner.run(script)
                runner.stopBackground()
            }
        } catch {
            try await server.stop(signal: SIGTERM)
            // Kept for a look: the shell's variables, each program's output.
            throw TestFailure("\(error) (the reader's directory: \(directory))")
        }
        try await server.stop(signal: SIGTERM)
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test("the page's conventions: commands, their answers, and what a background program prints")
    func reading() throws {
        let page = """
            ```sh
            TOKEN=Wj_ItT…            # the _accessToken above
            curl -s -X POST $API/x \\
              -d '{"a":"#1"}'   # 201 {"id":"7…"}
            curl -s -i $API/y
            # 200  X-MQTT-TTL: 2592000
            # {"mqttTopic":"abc",
            #  "n":[1,…]}
            # (a note)

            # In a second terminal
            mosquitto_sub -t x
            ```

            It prints:

            ```json
            {"msg":"hello",…}
            ```
            """
        let script = TourScript(markdown: page)
        let steps = try #require(script.blocks.first).steps
        #expect(
            steps.map(\.command) == [
                "TOKEN=Wj_ItT…", ##"curl -s -X POST $API/x -d '{"a":"#1"}'"##, "curl -s -i $API/y",
                "mosquitto_sub -t x",
            ])
        #expect(steps[1].shown == [#"201 {"id":"7…"}"#])
        let answer = try ShownAnswer(steps[2].shown)
        #expect(answer.status == 200 && answer.headers.map(\.name) == ["X-MQTT-TTL"])
        #expect(
            answer.body
                == .object(
                    [
                        .init(key: "mqttTopic", value: .string("abc")),
                        .init(key: "n", value: .array([.number("1")], open: true)),
                    ],
                    open: false))
        #expect(script.blocks[0].printed?.language == "json")

        var values = TourValues(texts: ["d255f8dd": "a1b2c3d4"], numbers: ["1883": "40001"])
        #expect(
            values.match(
                try ShownJSON.parse(#"{"userID":"9b5…","appID":"d255f8dd",…}"#),
                ["userID": "u-1", "appID": "a1b2c3d4", "x": 1]) == nil)
        #expect(values.substituted("USER=9b5…; mosquitto_sub -p 1883") == "USER=u-1; mosquitto_sub -p 40001")
        #expect(
            values.match(try ShownJSON.parse(#"{"sender":"9b5…"}"#), ["sender": "u-2"]) != nil,
            "a learnt value must stay")
        #expect(
            values.match(try ShownJSON.parse(#"{"userID":"other…"}"#), ["userID": "u-1"]) != nil,
            "two names for one value")
        #expect(values.match(try ShownJSON.parse(#"{"appID":"2a5e55c0"}"#), ["appID": "a1b2c3d4"]) != nil)
        #expect(values.match(try ShownJSON.parse(#"{"a":1}"#), ["a": 1, "b": 2]) != nil, "a closed object shows all")
        #expect(TourValues.fits("user:u-1 lacks SEND", pattern: "user:… lacks SEND"))
        #expect(!TourValues.fits("user:u-1 lacks SUBSCRIBE", pattern: "user:… lacks SEND"))
        let line = values.linePattern("command olxdv52dmtv14q29ud1fcvvqy sent to lamp-1 as user:75b2a574-…; waiting")
        #expect(
            "command abcdefghijklmnopqrstuvwxy sent to lamp-1 as user:0f-9; waiting".range(
                of: line, options: .regularExpression) != nil)
    }
}
