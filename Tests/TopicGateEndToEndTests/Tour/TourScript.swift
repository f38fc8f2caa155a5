import Foundation

/// A tour as its reader meets it: the shell blocks of a Markdown page, in order, each split
/// into the commands a reader types and the answer the page shows after each one.
///
/// The page's conventions, which `TourTests` hold it to:
/// - a command ends at a line without a trailing `\`; a `# …` after it on its last line, or
///   comment lines right below it (up to a blank line), show what it answers;
/// - a curl's answer starts with its status (`# 201 {…}`, `# 200  X-MQTT-TTL: 2592000`),
///   then any headers, then its JSON body; `…` stands for what the page leaves out;
/// - a `topicgate` command's answer is the lines it prints;
/// - a `json` or plain block right after a shell block shows what the block's last background
///   program (`mosquitto_sub`, `topicgate emulate thing`) prints.
struct TourScript {
    struct Step {
        /// The command as typed, its continuation lines joined.
        var command: String
        /// The comment lines that show its answer, without their `#`.
        var shown: [String]
        /// Where the page has it, for failure messages.
        var line: Int

        var isCurl: Bool { command.hasPrefix("curl ") }
        var isTopicGate: Bool { command.hasPrefix(".build/debug/topicgate ") }
        /// Only what prints an answer has one; comments below anything else are prose.
        var takesAnswer: Bool { isCurl || isTopicGate }
    }

    struct Block {
        var steps: [Step]
        /// A `json` or plain block right after this one: what its last background program prints.
        var printed: (language: String, text: String)?
    }

    var blocks: [Block]

    /// The shell blocks of `markdown`, from the line `from` (a heading) up to the next heading of
    /// the same level, or all of them.
    init(markdown: String, from heading: String? = nil) {
        var lines = markdown.components(separatedBy: "\n").enumerated().map { ($0.offset + 1, $0.element) }
        if let heading, let start = lines.firstIndex(where: { $0.1 == heading }) {
            let level = heading.prefix(while: { $0 == "#" }) + " "
            let rest = lines[(start + 1)...]
            let end = rest.firstIndex(where: { $0.1.hasPrefix(level) }) ?? lines.endIndex
            lines = Array(lines[start..<end])
        }
        var blocks: [Block] = []
        var fence: (language: String, lines: [(Int, String)])?
        var headingSinceShell = true
        for (number, line) in lines {
            if line.hasPrefix("```") {
                if let open = fence {
                    if open.language == "sh" {
                        blocks.append(Block(steps: Self.steps(open.lines), printed: nil))
                        headingSinceShell = false
                    } else if !headingSinceShell, !blocks.isEmpty, blocks[blocks.count - 1].printed == nil {
                        blocks[blocks.count - 1].printed = (open.language, open.lines.map(\.1).joined(separator: "\n"))
                    }
                    fence = nil
                } else {
                    fence = (String(line.dropFirst(3)), [])
                }
                continue
            }
            if fence != nil {
                fence?.lines.append((number, line))
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                // Prose may stand between a shell block and the output it shows; a heading may not.
                if line.hasPrefix("#") { headingSinceShell = true }
            }
        }
        self.blocks = blocks
    }

    /// The steps of one shell block.
    static func steps(_ lines: [(Int, String)]) -> [Step] {
        var steps: [Step] = []
        var pending: (line: Int, text: String)?
        var answering = false
        for (number, line) in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending == nil {
                if trimmed.isEmpty {
                    answering = false
                    continue
                }
                if trimmed.hasPrefix("#") {
                    if answering { steps[steps.count - 1].shown.append(String(trimmed.dropFirst()).trimmed) }
                    continue
                }
            }
            let (code, comment) = Self.splitComment(line)
            var text = code.trimmingCharacters(in: .whitespaces)
            let continues = text.hasSuffix("\\")
            if continues { text = String(text.dropLast()).trimmingCharacters(in: .whitespaces) }
            pending = (pending?.line ?? number, [pending?.text, text].compactMap { $0 }.joined(separator: " "))
            if continues { continue }
            if let done = pending {
                let step = Step(command: done.text, shown: comment.map { [$0] } ?? [], line: done.line)
                steps.append(step)
                answering = step.takesAnswer
            }
            pending = nil
        }
        return steps
    }

    /// `line` cut at a `#` that starts a comment: after a space, outside quotes.
    static func splitComment(_ line: String) -> (code: String, comment: String?) {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous == " " {
                return (String(line[..<index]), String(line[line.index(after: index)...]).trimmed)
            }
            previous = character
        }
        return (line, nil)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
