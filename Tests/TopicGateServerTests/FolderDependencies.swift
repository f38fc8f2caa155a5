import Foundation

/// Which feature folders of `Sources/TopicGateServer` use which, derived from the code: a
/// folder uses another when one of its files names a type declared at the top level of a file
/// in the other (comments and string literals left out).
struct FolderDependencies {
    /// By folder: the folders it uses, each with the types that make it so.
    let uses: [String: [String: Set<String>]]

    init(sources: URL) throws {
        let files = try Self.swiftFiles(sources)
        var owner: [String: String] = [:]
        for (folder, text) in files {
            for match in text.matches(of: Self.declaration) {
                owner[String(match.1)] = owner[String(match.1)] ?? folder
            }
        }
        // Every folder, also one that uses none.
        var uses = Dictionary(uniqueKeysWithValues: Set(files.map(\.0)).map { ($0, [String: Set<String>]()) })
        for (folder, text) in files {
            // Simple word boundaries: Unicode's would keep `Secrets.groupID` one word.
            for match in Self.code(text).matches(of: /\b[A-Z][A-Za-z0-9]*\b/.wordBoundaryKind(.simple)) {
                let name = String(match.0)
                if let other = owner[name], other != folder {
                    uses[folder, default: [:]][other, default: []].insert(name)
                }
            }
        }
        self.uses = uses
    }

    /// A path of folders that comes back to its start, each using the next; nil when none does.
    var cycle: [String]? {
        var state: [String: Bool] = [:]  // false: on the path being walked; true: done
        var path: [String] = []
        func walk(_ folder: String) -> [String]? {
            state[folder] = false
            path.append(folder)
            for next in (uses[folder] ?? [:]).keys.sorted() {
                if state[next] == false { return Array(path[path.firstIndex(of: next)!...]) + [next] }
                if state[next] == nil, let found = walk(next) { return found }
            }
            path.removeLast()
            state[folder] = true
            return nil
        }
        for folder in uses.keys.sorted() where state[folder] == nil {
            if let found = walk(folder) { return found }
        }
        return nil
    }

    /// One line a folder, those used by fewer first: "- `Topics/` uses `Push/`, `Groups/`, …".
    var picture: [String] {
        func depth(_ folder: String, _ seen: Set<String> = []) -> Int {
            let used = (uses[folder] ?? [:]).keys.filter { !seen.contains($0) }
            return used.map { depth($0, seen.union([folder])) + 1 }.max() ?? 0
        }
        let ordered = uses.keys.sorted { (depth($0), $0) < (depth($1), $1) }
        return ordered.map { folder in
            let used = (uses[folder] ?? [:]).keys.sorted { (depth($0), $0) > (depth($1), $1) }
            return "- `\(folder)/`"
                + (used.isEmpty ? ": none" : " uses " + used.map { "`\($0)/`" }.joined(separator: ", "))
        }
    }

    /// A type, enum, protocol, actor or alias declared at a file's top level.
    private static var declaration: Regex<(Substring, Substring)> {
        /(?m)^(?:(?:public|internal|package|private|fileprivate|final|indirect|nonisolated) )*(?:struct|class|enum|protocol|actor|typealias) ([A-Z][A-Za-z0-9]*)/
    }

    /// The Swift files of each folder under `sources`, as (folder, text).
    private static func swiftFiles(_ sources: URL) throws -> [(String, String)] {
        var files: [(String, String)] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let root = sources.appendingPathComponent(folder)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
                continue
            }
            let names = FileManager.default.enumerator(atPath: root.path)?.allObjects.compactMap { $0 as? String } ?? []
            for name in names where name.hasSuffix(".swift") {
                files.append((folder, try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        return files
    }

    /// `text` without its comments and string literals.
    private static func code(_ text: String) -> String {
        text.replacing(/\/\/[^\n]*/, with: "").replacing(/"(?:[^"\\\n]|\\.)*"/, with: "\"\"")
    }
}
