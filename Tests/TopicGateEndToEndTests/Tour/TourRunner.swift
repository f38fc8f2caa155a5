import Foundation
import ProcessSupport
import TestSupport

/// Types a tour into a shell, step by step, against a fresh `topicgate serve`, and checks
/// each answer against the one the page shows. The first difference ends the tour: later
/// steps use what earlier ones answered.
final class TourRunner {
    let page: String
    let server: ServerProcess
    /// The reader's working directory (the phone emulator keeps its profile there).
    let directory: String
    /// The shell's exported variables between steps (`export -p`).
    let statePath: String
    var values: TourValues
    private var background: [(process: ChildProcess, outputPath: String)] = []

    init(page: String, server: ServerProcess, directory: String) throws {
        self.page = page
        self.server = server
        self.directory = directory
        statePath = directory + "/.tour-state"
        let (clientID, clientSecret) = try server.adminCredentials()
        values = TourValues(
            texts: [
                "d255f8dd": server.appID, "<clientID>": clientID, "<clientSecret>": clientSecret,
                ".build/debug/topicgate": ServerProcess.executable.path,
            ],
            numbers: ["8080": "\(server.port)", "1883": "\(server.mqttPort)", "12470": "\(server.webSocketPort)"])
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory,
            "LANG": "C.UTF-8", "TOPICGATE_URL": "http://127.0.0.1:\(server.port)",
        ]
        let state = environment.map { "declare -x \($0.key)=\(Self.quoted($0.value))" }.sorted()
        try (state.joined(separator: "\n") + "\n").write(toFile: statePath, atomically: true, encoding: .utf8)
    }

    deinit { stopBackground() }

    /// Stops the programs the page left running in its other terminals.
    func stopBackground() {
        for program in background where program.process.isRunning {
            program.process.send(SIGTERM)
            _ = program.process.waitBlocking()
        }
    }

    /// Runs every block of `script` in order.
    func run(_ script: TourScript) async throws {
        for block in script.blocks {
            for step in block.steps { try await run(step) }
            if let printed = block.printed { try await check(printed) }
        }
    }

    func run(_ step: TourScript.Step) async throws {
        let command = values.substituted(step.command)
        let place = "\(page):\(step.line)"
        if command == "make run" { return }  // the server is this test's
        if step.isCurl, !command.contains("|") {
            return try await curl(step, command: command, place: place)
        }
        if command.hasPrefix("mosquitto_sub ") {
            // -d: the device is known to be subscribed before the page's next step sends.
            let output = try startBackground(command + " -d")
            return try await waitFor(["Subscribed \\(mid"], in: output, place: place, command: command)
        }
        if step.isTopicGate, step.command.contains(" emulate thing ") || step.command.contains(" emulate phone listen")
        {
            let output = try startBackground(command)
            return try await waitFor(step.shown.map(values.linePattern), in: output, place: place, command: command)
        }
        let (status, output) = try await shell(command)
        guard status == 0 else { throw TestFailure("\(place): `\(command)` exited \(status):\n\(output)") }
        if step.isTopicGate {
            for line in step.shown where !line.hasPrefix("(") {
                let pattern = values.linePattern(line)
                guard
                    Self.lines(of: output).contains(where: { $0.range(of: pattern, options: .regularExpression) != nil }
                    )
                else { throw TestFailure("\(place): `\(command)` printed no line like \"\(line)\":\n\(output)") }
            }
        }
    }

    /// A curl as typed, with its status, headers and body caught beside what it prints.
    private func curl(_ step: TourScript.Step, command: String, place: String) async throws {
        let shown = try ShownAnswer(step.shown)
        let flags = command.split(separator: " ").filter { $0.hasPrefix("-") && !$0.hasPrefix("--") }
        let printsHeaders = flags.contains { $0.contains("i") || $0.contains("I") }
        if !shown.headers.isEmpty, !printsHeaders {
            throw TestFailure(
                "\(place): the page shows \(shown.headers.map(\.name)), which `curl` without -i does not print")
        }
        let headersPath = directory + "/.tour-headers"
        let bodyPath = directory + "/.tour-body"
        let caught = "curl -m 30 -D \(headersPath) -o \(bodyPath) -w '%{http_code}' " + command.dropFirst(5)
        let (exit, printed) = try await shell(caught)
        var body = (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? ""
        if body.hasPrefix("HTTP/"), let end = body.range(of: "\r\n\r\n", options: .backwards) {
            body = String(body[end.upperBound...])  // -i: the headers are in the body's file too
        }
        let answer = "\(printed) \(body)"
        guard exit == 0, let status = Int(printed.suffix(3)) else {
            throw TestFailure("\(place): `\(command)` failed (\(exit)): \(printed)")
        }
        if let expected = shown.status {
            guard status == expected else {
                throw TestFailure("\(place): `\(command)` answered \(answer); the page shows \(expected)")
            }
        } else if !(200..<300).contains(status) {
            throw TestFailure("\(place): `\(command)` answered \(answer); the page shows no failure")
        }
        if let expected = shown.body {
            let actual = try? JSONSerialization.jsonObject(with: Data(body.utf8), options: .fragmentsAllowed)
            if let failure = values.match(expected, actual) {
                throw TestFailure("\(place): `\(command)` answered \(answer): \(failure)")
            }
        }
        let headers = Self.headers((try? String(contentsOfFile: headersPath, encoding: .utf8)) ?? "")
        for (name, value) in shown.headers {
            let actual = headers[name.lowercased()]
            guard let actual, TourValues.fits(actual, pattern: values.substituted(value)) else {
                throw TestFailure(
                    "\(place): `\(command)` answered \(name): \(actual ?? "(none)"); the page shows \(value)")
            }
        }
    }

    /// What the last background program printed, against the page's block below the steps.
    private func check(_ printed: (language: String, text: String)) async throws {
        guard let program = background.last else {
            throw TestFailure("\(page): a block shows output, but no program runs in the background")
        }
        if printed.language == "json" {
            let shown = try ShownJSON.parse(printed.text.replacingOccurrences(of: "\n", with: ""))
            let deadline = ContinuousClock.now + .seconds(30)
            var last = "nothing"
            while ContinuousClock.now < deadline {
                for line in Self.lines(of: Self.read(program.outputPath)) where line.hasPrefix("{") {
                    var trial = values
                    let actual = try? JSONSerialization.jsonObject(with: Data(line.utf8))
                    guard let failure = trial.match(shown, actual) else {
                        values = trial
                        return
                    }
                    last = failure
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure(
                "\(page): the device printed no payload like the page's (\(last)):\n\(Self.read(program.outputPath))")
        }
        let lines = printed.text.split(separator: "\n").map { String($0).trimmed }.filter { !$0.isEmpty }
        try await waitFor(lines.map(values.linePattern), in: program.outputPath, place: page, command: "the program")
    }

    /// Waits (a bound, not a pace) until each pattern matches a line of the file's text.
    private func waitFor(_ patterns: [String], in path: String, place: String, command: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let lines = Self.lines(of: Self.read(path))
            if patterns.allSatisfy({ pattern in
                lines.contains { $0.range(of: pattern, options: .regularExpression) != nil }
            }) {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure(
            "\(place): `\(command)` did not print lines like \(patterns) within 60 s:\n\(Self.read(path))")
    }

    /// Runs `command` in bash with the variables of the steps before, and keeps the ones it sets.
    private func shell(_ command: String) async throws -> (Int32, String) {
        let outputPath = directory + "/.tour-output"
        let script = """
            set -a
            . \(statePath)
            \(command)
            __status=$?
            set +a
            export -p > \(statePath)
            exit $__status
            """
        let process = try spawn(script, outputPath: outputPath)
        guard let status = await process.exit(within: .seconds(90)) else {
            process.killNow()
            throw TestFailure("\(page): `\(command)` did not end within 90 s:\n\(Self.read(outputPath))")
        }
        return (status, Self.read(outputPath))
    }

    /// Starts `command` as the page's second terminal would; returns where its output goes.
    private func startBackground(_ command: String) throws -> String {
        let outputPath = directory + "/.tour-background-\(background.count)"
        // Line-buffered, as on the reader's terminal: mosquitto_sub buffers its -d lines in a file.
        let process = try spawn("set -a\n. \(statePath)\nexec stdbuf -oL \(command)", outputPath: outputPath)
        background.append((process, outputPath))
        return outputPath
    }

    private func spawn(_ script: String, outputPath: String) throws -> ChildProcess {
        let descriptor = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(outputPath)") }
        defer { close(descriptor) }
        return try ChildProcess.spawn(
            executable: "/bin/bash", arguments: ["-c", script], environment: [:], output: descriptor,
            error: descriptor, workingDirectory: directory)
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func lines(of text: String) -> [String] {
        text.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The last response's headers (after any `100 Continue`), names in lower case.
    static func headers(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n") {
            if line.hasPrefix("HTTP/") { headers = [:] }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return headers
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
