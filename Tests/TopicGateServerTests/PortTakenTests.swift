import ProcessSupport
import Testing

@testable import TopicGateServer

/// `make run` on a machine where Debian's own Mosquitto service holds 1883: one sentence that
/// names it and gives both ways out.
@Suite("Embedded broker: a port another program holds")
struct PortTakenTests {
    @Test("The system's Mosquitto service is named, with the other port and the systemctl line that stops it")
    func systemMosquitto() {
        let text = EmbeddedBroker.portTaken(
            1883, host: "127.0.0.1", holder: PortHolder(pid: 712, name: "mosquitto", unit: "mosquitto.service"))
        #expect(
            text
                == "Port 1883 on 127.0.0.1 is already in use by mosquitto (pid 712, systemd's mosquitto.service): give "
                + "the embedded broker another port (make run ARGS=\"--mqtt-port 1884\", or topicgate serve "
                + "--mqtt-port 1884), or stop it (sudo systemctl disable --now mosquitto).")
        #expect(EmbeddedBroker.portTaken(1883, host: "127.0.0.1", holder: nil).contains("by another program"))
    }

    @Test("The listening socket is found in /proc/net/tcp by its port and LISTEN state only")
    func procTable() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:075B 00000000:0000 0A 00000000:00000000 00:00000000 00000000   104        0 31337 1 0
               1: 0100007F:075B 0100007F:D431 01 00000000:00000000 00:00000000 00000000   104        0 31338 1 0
               2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0
            """
        #expect(PortHolder.listeningInodes(table: table, port: 1883) == ["31337"])
        #expect(PortHolder.listeningInodes(table: table, port: 8080) == ["4242"])
        #expect(PortHolder.listeningInodes(table: table, port: 1884) == [])
    }
}
