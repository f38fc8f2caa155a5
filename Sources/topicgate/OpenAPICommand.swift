import ArgumentParser
import TopicGateServer

/// `topicgate openapi`: prints the HTTP API's OpenAPI 3.1 document (the one `GET /openapi.json`
/// serves), e.g. to refresh the copy in the repository or to feed an API fuzzer; with
/// `--markdown`, the same route tables as the reference in `docs/api.md`.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi", abstract: "Print the HTTP API as an OpenAPI 3.1 document (or as Markdown).")

    @Flag(help: "Print the Markdown reference (docs/api.md) instead.") var markdown = false

    func run() throws {
        print(markdown ? APIReference.markdown() : try OpenAPIDocument.prettyPrinted(), terminator: "")
    }
}
