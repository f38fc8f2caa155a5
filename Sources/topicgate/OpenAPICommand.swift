import ArgumentParser
import TopicGateServer

/// `topicgate openapi`: prints the HTTP API's OpenAPI 3.1 document (the one `GET /openapi.json`
/// serves), e.g. to refresh the copy in the repository or to feed an API fuzzer.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi", abstract: "Print the HTTP API as an OpenAPI 3.1 document.")

    func run() throws {
        print(try OpenAPIDocument.prettyPrinted(), terminator: "")
    }
}
