import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The container files as Docker and docker-compose would read them: no Docker engine runs on
/// these machines, so the image is never built here; what can drift is checked instead. The
/// Dockerfile installs the Makefile's packages, builds in a stage that resolves dependencies
/// before the sources arrive, runs as a non-root user with a health check; docker-compose.yml
/// is valid for docker-compose and runs that image, building nothing at start.
@Suite("Container image and compose file")
struct ContainerImageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL

    static func file(_ name: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(name), encoding: .utf8)
    }

    /// A Makefile variable's packages, `$(OTHER)` references expanded.
    static func makefilePackages(_ variable: String) throws -> Set<String> {
        let makefile = try file("Makefile")
        guard let line = makefile.split(separator: "\n").first(where: { $0.hasPrefix(variable + " :=") }) else {
            throw TestFailure("no \(variable) in the Makefile")
        }
        var packages: Set<String> = []
        for word in line.dropFirst(variable.count + 3).split(separator: " ") {
            if word.hasPrefix("$(") {
                packages.formUnion(try makefilePackages(String(word.dropFirst(2).dropLast())))
            } else {
                packages.insert(String(word))
            }
        }
        return packages
    }

    /// One stage of the Dockerfile: its base image, name and instructions (continuation lines
    /// joined).
    struct Stage {
        let base: String
        let name: String
        var instructions: [String] = []

        /// The packages its `apt-get install` lines name.
        var aptPackages: Set<String> {
            var packages: Set<String> = []
            for instruction in instructions
            where instruction.hasPrefix("RUN") && instruction.contains("apt-get install") {
                let words = instruction.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                guard let install = words.firstIndex(of: "install") else { continue }
                for word in words[(install + 1)...] {
                    if word == "&&" { break }
                    if !word.hasPrefix("-") { packages.insert(word) }
                }
            }
            return packages
        }
    }

    static func stages() throws -> [Stage] {
        var stages: [Stage] = []
        var pending = ""
        for raw in try file("Dockerfile").split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || (line.isEmpty && pending.isEmpty) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let instruction = pending + line
            pending = ""
            if instruction.isEmpty { continue }
            let words = instruction.split(separator: " ").map(String.init)
            if words.first == "FROM" {
                guard words.count == 4, words[2].uppercased() == "AS" else {
                    throw TestFailure("an unnamed stage: \(instruction)")
                }
                stages.append(Stage(base: words[1], name: words[3]))
            } else if !stages.isEmpty {
                stages[stages.count - 1].instructions.append(instruction)
            }
        }
        return stages
    }

    /// The `lib…` packages an installed package depends on, as dpkg records them.
    static func libraryDependencies(of package: String) async throws -> Set<String> {
        let (status, text) = try await run("/usr/bin/dpkg-query", ["-W", "-f=${Depends}", package])
        #expect(status == 0, "dpkg-query \(package) (make deps installs it)")
        return Set(
            text.split(separator: ",").compactMap { alternative in
                alternative.split(separator: "|").first?.trimmingCharacters(in: .whitespaces)
                    .split(separator: " ").first.map(String.init)
            }.filter { $0.hasPrefix("lib") && !$0.hasSuffix("-dev") })
    }

    @Test("The Dockerfile's stages install the Makefile's packages, and the runtime has what they link to")
    func packagesMatchTheMakefile() async throws {
        let stages = try Self.stages()
        #expect(stages.map(\.name) == ["build", "runtime"])
        let build = try #require(stages.first)
        let runtime = try #require(stages.last)
        #expect(build.base.hasPrefix("swift:"), "the official Swift image builds")
        #expect(runtime.base.hasPrefix("debian:") && runtime.base.hasSuffix("-slim"))
        let buildPackages = try Self.makefilePackages("BUILD_APT_PACKAGES")
        #expect(build.aptPackages == buildPackages, "the build stage installs BUILD_APT_PACKAGES, no more")
        #expect(try Self.makefilePackages("APT_PACKAGES").isSuperset(of: buildPackages))
        let runtimePackages = runtime.aptPackages
        #expect(runtimePackages.isSuperset(of: try Self.makefilePackages("RUN_APT_PACKAGES")))
        #expect(runtimePackages.allSatisfy { !$0.hasSuffix("-dev") }, "no headers in the runtime image")
        for package in buildPackages {
            let missing = try await Self.libraryDependencies(of: package).subtracting(runtimePackages)
            #expect(missing.isEmpty, "\(package) links against \(missing.sorted()), which the runtime stage lacks")
        }
    }

    @Test(
        "The broker plugin links no Swift runtime: each library it needs comes from a package the runtime stage installs"
    )
    func pluginRuntimeClosure() async throws {
        let plugin = BrokerProcess.pluginPath
        let (status, dynamic) = try await Self.run("/usr/bin/readelf", ["-d", plugin])
        #expect(status == 0, "\(dynamic)")
        let needed = try Regex(#"\(NEEDED\)\s+Shared library: \[([^\]]+)\]"#)
        let libraries = dynamic.matches(of: needed).map { String($0.output[1].substring ?? "") }
        #expect(!libraries.isEmpty)
        #expect(!libraries.contains { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") }, "\(libraries)")
        #expect(!dynamic.contains("/swift/"), "a run path into the Swift toolchain: \(dynamic)")
        // Each library's package (dpkg -S), and the runtime stage installs it or Debian's slim
        // image has it (libc6, libgcc-s1).
        let runtime = try #require(try Self.stages().last).aptPackages.union(["libc6", "libgcc-s1"])
        for library in libraries {
            let (found, owner) = try await Self.run("/usr/bin/dpkg", ["-S", "*/" + library])
            #expect(found == 0, "no package holds \(library)")
            let packages = Set(
                owner.split(separator: "\n").compactMap { $0.split(separator: ":").first.map(String.init) })
            #expect(!packages.isDisjoint(with: runtime), "\(library) comes from \(packages.sorted()), not installed")
        }
    }

    /// The libraries an ELF file names as NEEDED (readelf -d).
    static func neededLibraries(of file: String) async throws -> [String] {
        let (status, dynamic) = try await run("/usr/bin/readelf", ["-d", file])
        #expect(status == 0, "\(dynamic)")
        let needed = try Regex(#"\(NEEDED\)\s+Shared library: \[([^\]]+)\]"#)
        return dynamic.matches(of: needed).map { String($0.output[1].substring ?? "") }
    }

    /// The Debian packages of the system libraries `binary` needs itself or through the Swift
    /// runtime it loads, which the image links in statically (so those needs become the
    /// binary's own).
    static func systemLibraryPackages(of binary: String) async throws -> Set<String> {
        let (status, text) = try await run("/usr/bin/ldd", [binary])
        #expect(status == 0, "\(text)")
        var paths: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 3, words[1] == "=>", words[2].hasPrefix("/") {
                paths[String(words[0])] = String(words[2])
            }
        }
        var libraries: Set<String> = []
        var waiting = [binary]
        var seen: Set<String> = []
        while let file = waiting.popLast() {
            guard seen.insert(file).inserted else { continue }
            for library in try await neededLibraries(of: file) {
                if let path = paths[library], path.contains("/swift/") {
                    waiting.append(path)
                } else if !library.hasPrefix("libswift") && !library.hasPrefix("libFoundation") {
                    libraries.insert(library)
                }
            }
        }
        var packages: Set<String> = []
        for library in libraries {
            let (found, owner) = try await run("/usr/bin/dpkg", ["-S", "*/" + library])
            #expect(found == 0, "no package holds \(library)")
            for entry in owner.split(separator: "\n") {
                if let package = entry.split(separator: ":").first { packages.insert(String(package)) }
            }
        }
        return packages
    }

    @Test(
        "Every library the gateway and the plugin load comes with the runtime stage's packages, and each package there is needed"
    )
    func runtimeClosure() async throws {
        let needed = try await Self.systemLibraryPackages(of: ServerProcess.executable.path)
            .union(try await Self.systemLibraryPackages(of: BrokerProcess.pluginPath))
        #expect(needed.contains("libcurl4") && needed.contains("libsqlite3-0"), "\(needed.sorted())")
        // Each named in the runtime stage, or in Debian's slim image already.
        let runtime = try #require(try Self.stages().last).aptPackages
        let missing = needed.subtracting(runtime).subtracting(["libc6", "libgcc-s1"])
        #expect(missing.isEmpty, "not named in the runtime stage: \(missing.sorted())")
        // Nothing there by accident: each package is a library loaded, or a program the image runs.
        let programs: Set<String> = ["mosquitto", "mosquitto-clients", "ca-certificates", "tzdata", "curl"]
        let unexplained = runtime.subtracting(needed).subtracting(programs)
        #expect(unexplained.isEmpty, "installed for no reason: \(unexplained.sorted())")
    }

    @Test("Dependencies resolve in a layer before the sources; the image runs unprivileged with a health check")
    func buildShape() throws {
        let stages = try Self.stages()
        let build = try #require(stages.first).instructions
        let resolve = try #require(build.firstIndex { $0.contains("swift package resolve") })
        let manifest = try #require(build.firstIndex { $0.hasPrefix("COPY Package.swift") })
        let sources = try #require(build.firstIndex { $0.hasPrefix("COPY Sources") })
        #expect(manifest < resolve && resolve < sources)
        let runtime = try #require(stages.last).instructions
        let user = try #require(runtime.last { $0.hasPrefix("USER ") })
        #expect(!["USER root", "USER 0"].contains(user))
        #expect(runtime.contains { $0.hasPrefix("HEALTHCHECK") && $0.contains("/ready") })
        let ignored = try Self.file(".dockerignore")
        #expect(ignored.contains(".build/") && ignored.contains(".git/"))
    }

    /// Runs the docker-compose that `make compose-deps` installs; its exit status and output.
    static func compose(_ arguments: [String]) async throws -> (Int32, String) {
        let executable = repository.appendingPathComponent(".build/compose-venv/bin/docker-compose").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestFailure("\(executable) is missing: run make compose-deps (make test does)")
        }
        return try await run(executable, ["--project-directory", repository.path] + arguments)
    }

    /// Runs `executable`; its exit status and output, read and awaited off the few threads
    /// Swift's tasks share (a blocked one would starve every other suite).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: executable, arguments: arguments, output: output.fileHandleForWriting.fileDescriptor,
            error: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = await ServerProcess.readToEnd(output.fileHandleForReading)
        return (await process.exit(), text)
    }

    @Test("docker-compose accepts the file, with and without the fleet, and every TopicGate service runs the image")
    func composeFile() async throws {
        for profile in [[], ["--profile", "fleet"]] {
            let (status, output) = try await Self.compose(profile + ["config"])
            #expect(status == 0, "docker-compose \(profile) config: \(output)")
            // Every service of TopicGate's runs the one image; only the database and the load
            // balancer are someone else's.
            let images = output.split(separator: "\n").filter { $0.hasPrefix("    image: ") }.map {
                String($0.dropFirst("    image: ".count))
            }
            #expect(Set(images).isSubset(of: ["topicgate:local", "postgres:16", "nginx:1.27"]), "\(images)")
            #expect(images.contains("topicgate:local"))
        }
        let compose = try Self.file("docker-compose.yml")
        #expect(!compose.contains("swift build"), "no service builds Swift when it starts")
        #expect(!compose.contains("start_period: 15m"))
    }
}
