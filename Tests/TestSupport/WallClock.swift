import Foundation
public import TopicGateCore

extension UnixSeconds {
    /// This moment on the wall clock, as MQTT credentials count it.
    public static var wallClock: UnixSeconds { UnixSeconds(Int64(Date().timeIntervalSince1970)) }
}
