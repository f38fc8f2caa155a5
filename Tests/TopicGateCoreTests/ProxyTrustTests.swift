import Testing
import TopicGateCore

@Suite("Trusted proxies")
struct ProxyTrustTests {
    @Test("Only listed proxies (addresses and IPv4 ranges) may name the client; nobody's by default")
    func listedProxies() throws {
        let trust = try #require(ProxyTrust(parsing: "172.28.0.10, 10.0.0.0/8,::1"))
        #expect(trust.trusts(peer: "172.28.0.10"))
        #expect(trust.trusts(peer: "10.200.3.4"))
        #expect(trust.trusts(peer: "::1"))
        #expect(!trust.trusts(peer: "172.28.0.11"))
        #expect(!trust.trusts(peer: "11.0.0.1"))
        #expect(!trust.trusts(peer: nil))
        #expect(!ProxyTrust.nobody.trusts(peer: "172.28.0.10"))
        #expect(ProxyTrust.anyPeer.trusts(peer: "203.0.113.9"))
        #expect(ProxyTrust(parsing: "0.0.0.0/0")?.trusts(peer: "203.0.113.9") == true)
    }

    @Test(
        "Lists that are not addresses or ranges are refused",
        arguments: ["", "proxy.example.com", "10.0.0.0/33", "1.2.3", "300.1.1.1", "10.0.0.1/x"])
    func refused(_ text: String) {
        #expect(ProxyTrust(parsing: text) == nil)
    }
}
