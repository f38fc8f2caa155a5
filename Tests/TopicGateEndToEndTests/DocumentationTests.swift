import Foundation
import ProcessSupport
import TestSupport
import Testing
import TopicGateServer

/// The documents a user reads say what the code does: the API reference is generated from the
/// route tables the router serves, the configuration page names every flag and environment variable the
/// commands' own help names (and no other), the README stays short and links every page, and
/// the local commands offer only the options they use.
@Suite("Documentation")
struct DocumentationTests {
    static let repository = ContainerImageTests.repository

    /// `topicgate <arguments>`'s standard output (and error), with its exit status; read and
    /// awaited off the few threads Swift's tasks share.
    static func topicgate(_ arguments: [String]) async throws -> (Int32, String) {
        try await BackupRestoreTests.topicgate(arguments)
    }

    static func matches(_ pattern: String, in text: String) throws -> Set<String> {
        let expression = try Regex(pattern)
        return Set(text.matches(of: expression).map { String(text[$0.range]) })
    }

    @Test("docs/api.md is the reference the route tables generate (topicgate openapi --markdown > docs/api.md)")
    func apiReferenceIsCurrent() async throws {
        let copy = try ContainerImageTests.file("docs/api.md")
        #expect(copy == APIReference.markdown())
        let (status, printed) = try await Self.topicgate(["openapi", "--markdown"])
        #expect(status == 0 && printed == copy)
    }

    /// The commands whose flags and variables docs/configuration.md lists.
    /// Every command a user can name: `topicgate` and, from each one's help, its subcommands.
    static func commands() async throws -> [[String]] {
        var found: [[String]] = []
        var waiting: [[String]] = [[]]
        while let command = waiting.popLast() {
            found.append(command)
            let (_, help) = try await Self.topicgate(command + ["--help"])
            guard let section = help.range(of: "SUBCOMMANDS:\n") else { continue }
            for line in help[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
                if line.isEmpty { break }
                // A subcommand's line starts with two spaces and its name; its help wraps deeper.
                guard line.hasPrefix("  "), !line.hasPrefix("   "),
                    let name = line.split(separator: " ", omittingEmptySubsequences: true).first
                else { continue }
                waiting.append(command + [String(name)])
            }
        }
        return found
    }

    @Test("docs/configuration.md names every flag and environment variable of the commands' help, and no other")
    func configurationIsComplete() async throws {
        let page = try ContainerImageTests.file("docs/configuration.md")
        var flags: Set<String> = []
        var variables: Set<String> = []
        let commands = try await Self.commands()
        #expect(commands.count > 30 && commands.contains(["emulate", "phone", "send"]), "\(commands)")
        for command in commands {
            let (status, help) = try await Self.topicgate(command + ["--help"])
            #expect(status == 0, "topicgate \(command.joined(separator: " ")) --help")
            flags.formUnion(try Self.matches("--[a-z][a-z0-9-]+", in: help).subtracting(["--help", "--version"]))
            variables.formUnion(try Self.matches("TOPICGATE_[A-Z0-9_]+", in: help))
        }
        #expect(flags.count > 80 && variables.count > 40)
        let missingFlags = flags.filter { !page.contains("`\($0)") }.sorted()
        #expect(missingFlags == [], "flags in --help but not in docs/configuration.md")
        let missingVariables = variables.filter { !page.contains($0) }.sorted()
        #expect(missingVariables == [], "variables in --help but not in docs/configuration.md")
        // And the page's tables name nothing the commands do not have.
        let tableFlags = try Self.matches("\\| `--[a-z][a-z0-9-]+", in: page).map { String($0.dropFirst(3)) }
        let unknown = Set(tableFlags).subtracting(flags).sorted()
        #expect(unknown == [], "flags in docs/configuration.md that no command has")
    }

    @Test("docs/operations.md's backup example names the schema a backup of a new database has now")
    func backupExampleIsCurrent() async throws {
        let directory = TestFolder.url.appendingPathComponent("doc-backup-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await Self.topicgate(["apps", "create", "--data-dir", directory]).0 == 0)
        let (status, printed) = try await Self.topicgate([
            "backup", "--data-dir", directory, directory + "/copy.sqlite",
        ])
        #expect(status == 0, "\(printed)")
        let schema = try #require(try Self.matches("schema v[0-9]+-[a-z-]+", in: printed).first)
        let page = try ContainerImageTests.file("docs/operations.md")
        #expect(page.contains(schema + "."), "docs/operations.md does not show \(schema)")
    }

    @Test("Local commands offer only the store's options; serve offers the server's")
    func localCommandsOfferTheirOwnOptions() async throws {
        for command in [["apps", "reset-secret"], ["apps", "list"], ["apps", "create"], ["backup"], ["restore"]] {
            let (status, help) = try await Self.topicgate(command + ["--help"])
            #expect(status == 0)
            #expect(help.contains("--data-dir") && help.contains("--database"), "\(command)")
            for serverFlag in ["--port", "--host", "--broker", "--mqtt-port", "--bcrypt-cost", "--signup-limit"] {
                #expect(!help.contains(serverFlag + " "), "\(command) offers \(serverFlag)")
            }
        }
        let (_, serve) = try await Self.topicgate(["serve", "--help"])
        #expect(serve.contains("--port") && serve.contains("--data-dir") && serve.contains("--mqtt-wss-port"))
    }

    @Test("The README is short, links every page of docs/, and no document keeps a diary")
    func readmeAndDocs() throws {
        let readme = try ContainerImageTests.file("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 320)
        let pages = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("docs").path
        ).filter { $0.hasSuffix(".md") }
        for required in [
            "api.md", "configuration.md", "operations.md", "scaling.md", "kii-compatibility.md", "performance.md",
            "testing.md",
        ] {
            #expect(pages.contains(required), "docs/\(required)")
        }
        for page in pages { #expect(readme.contains("docs/\(page)"), "the README links docs/\(page)") }
        // Every relative link of every document points at a file that exists.
        let documents = ["README.md", "Sources/README.md", "broker-config/README.md"] + pages.map { "docs/" + $0 }
        // Numbered rounds of work, not MQTT's sessions (a device's first session is a fact).
        let diary = try Regex(
            "(?i)\\b(this|previous) session\\b|\\b(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                + "eleventh|twelfth|thirteenth|fourteenth) session\\b|what changed the figures|session note")
        for document in documents {
            let text = try ContainerImageTests.file(document)
            #expect(text.firstMatch(of: diary) == nil, "\(document) keeps a diary")
            let folder = URL(fileURLWithPath: document).deletingLastPathComponent().relativePath
            for link in try Self.matches("\\]\\([^)# ]+", in: text) where !link.contains(":") {
                let target = String(link.dropFirst(2))
                let path = Self.repository.appendingPathComponent(folder == "." ? target : folder + "/" + target).path
                #expect(FileManager.default.fileExists(atPath: path), "\(document) links \(target)")
            }
        }
    }

    @Test(
        "Every rule of docs/security.md has a row in docs/testing.md's promises table, and every test it names exists")
    func promisesAreTraceable() throws {
        let testing = try ContainerImageTests.file("docs/testing.md")
        let table = try #require(testing.range(of: "## Promises and the tests that show them")).upperBound
        let rows = testing[table...].split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| promise") }
        let promises = rows.compactMap {
            $0.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let security = try ContainerImageTests.file("docs/security.md")
        let sections = security.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        #expect(sections.count >= 8)
        for section in sections {
            #expect(promises.contains("security.md: \(section)"), "no row for security.md's '\(section)'")
        }
        #expect(promises.contains { $0.hasPrefix("push.md 2") } && promises.contains { $0.hasPrefix("push.md 3") })

        // Every named test: a function marked @Test in the suite's own file.
        var sources: [String: String] = [:]
        let tests = Self.repository.appendingPathComponent("Tests").path
        let enumerator = FileManager.default.enumerator(atPath: tests)
        while let name = enumerator?.nextObject() as? String {
            guard name.hasSuffix(".swift"), let text = try? String(contentsOfFile: tests + "/" + name, encoding: .utf8)
            else { continue }
            for match in text.matches(of: /\nstruct ([A-Za-z]+Tests)\b/) { sources[String(match.1)] = text }
        }
        var named = 0
        for row in rows {
            for match in row.matches(of: /`([A-Z][A-Za-z]+Tests)\.([a-zA-Z]+)`/) {
                named += 1
                let (suite, test) = (String(match.1), String(match.2))
                guard let text = sources[suite] else {
                    Issue.record("docs/testing.md names \(suite), which no test file declares")
                    continue
                }
                // The attribute, possibly over several lines, right before the function.
                let marked = text.contains(
                    try Regex("@Test(\\([^@]*?\\))?\\s*(\\n\\s*)?func \(test)\\("))
                #expect(marked, "docs/testing.md names \(suite).\(test), which is not a test of \(suite)")
            }
        }
        #expect(named >= 40)
    }
}
