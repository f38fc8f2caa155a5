import Foundation

/// What the build made beside the running tests (the `topicgate` executable, the broker
/// plugin): found in the folder of the test binary itself, whatever the build's
/// configuration, triple or `--scratch-path`.
public enum BuildProducts {
    /// The build's bin folder: the one holding the test binary that runs now.
    public static let directory: URL = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On macOS the binary sits inside `X.xctest/Contents/MacOS/`.
        while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
        return folder
    }()

    /// The path of product `name` in the bin folder.
    public static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}
