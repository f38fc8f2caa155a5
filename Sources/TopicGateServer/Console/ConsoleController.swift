import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore

/// `GET /console`: the operator console, plain HTML, CSS and ES modules compiled into the
/// executable. Every page and module is served with a strict Content-Security-Policy (only
/// this origin's scripts, styles and API; no inline code, no frames), and the console does
/// everything through the admin HTTP API with a token it keeps in the tab's sessionStorage.
struct ConsoleController<Context: RequestContext>: RouteTable {
    static var tag: String { "Console" }

    static var routes: [APIRoute<Self>] {
        [
            .get("console", "The operator console (HTML)", on: .open, mediaType: "text/html", Self.page),
            .get(
                "console/{file}", "A file of the operator console (CSS, JavaScript)", on: .open,
                mediaType: "text/javascript", Self.file),
        ]
    }

    func page(_ request: Request, _ context: Context) async throws -> Response {
        ConsoleAssets.response(ConsoleAssets.files["index.html"]!)
    }

    func file(_ request: Request, _ context: Context) async throws -> Response {
        guard let asset = context.parameters.get("file").flatMap({ ConsoleAssets.files[$0] }) else {
            throw KiiError(.notFound, "The console has no such file.")
        }
        return ConsoleAssets.response(asset)
    }
}
