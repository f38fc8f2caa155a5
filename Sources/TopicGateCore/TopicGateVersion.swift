/// TopicGate's version, in one place: `topicgate --version`, the line `serve` starts with,
/// `/openapi.json`'s `info.version` and `GET /health` all read it, and CHANGELOG.md has a dated
/// entry for it (a test holds them together). Semantic Versioning.
public enum TopicGateVersion {
    public static let current = "0.10.0"
}
