internal import CMosquitto
import Foundation
import Glibc

/// The client's own network loop, on a thread of its own, instead of libmosquitto's
/// `mosquitto_loop_start`: libmosquitto's loop waits with select(), which cannot watch a
/// descriptor numbered 1024 or more, so a gateway holding a thousand HTTP connections could
/// not reconnect to its broker. This one waits with poll() on the broker socket and a
/// `WakeSignal`, and drives libmosquitto with `mosquitto_loop_read`, `mosquitto_loop_write` and
/// `mosquitto_loop_misc` (the client is marked threaded, so calls from other threads queue
/// their packets and signal the loop).
///
/// Only this thread connects and reconnects (first at once, then after the reconnect delay,
/// doubling up to its maximum), so a `connect()` never races with a reconnect. It ends when
/// `shutdown()` asks, within one poll: nothing is joined that could wait for ever.
extension MQTTClient {
    /// The loop's view of what the client wants.
    enum LoopIntent {
        /// Be connected (reconnect after a loss).
        case connect
        /// Stay disconnected (before `connect()`, after `disconnect()` or a refusal).
        case idle
        /// Disconnect and end the thread.
        case stop
    }

    func runNetworkLoop() {
        let minimum = Double(max(1, configuration.reconnectDelay.min))
        let maximum = Double(max(configuration.reconnectDelay.min, configuration.reconnectDelay.max))
        var delay = 0.0  // the first attempt goes at once
        var everConnected = false
        while true {
            let intent = loopIntent
            if intent == .stop { break }
            let socket = mosquitto_socket(handle)
            if socket < 0 {
                guard intent == .connect else {
                    waitForWake(seconds: 1)
                    continue
                }
                if delay > 0 {
                    waitForWake(seconds: delay)
                    if loopIntent != .connect { continue }
                }
                let rc =
                    everConnected
                    ? mosquitto_reconnect(handle)
                    : mosquitto_connect(
                        handle, configuration.host, Int32(configuration.port), Int32(configuration.keepAlive))
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    everConnected = true
                    delay = 0
                } else {
                    delay = delay == 0 ? minimum : min(delay * 2, maximum)
                }
                continue
            }
            let events = Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0)
            var descriptors = [
                pollfd(fd: socket, events: events, revents: 0),
                pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, 1000)
            if descriptors[1].revents != 0 { wake.drain() }
            var rc = MOSQ_ERR_SUCCESS.rawValue
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { rc = mosquitto_loop_read(handle, 1) }
            if rc == MOSQ_ERR_SUCCESS.rawValue, mosquitto_want_write(handle) { rc = mosquitto_loop_write(handle, 1) }
            if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(handle) }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                // Lost (libmosquitto closed the socket and reported the disconnect); a socket it
                // kept is closed here, so that the next turn reconnects after the delay.
                if mosquitto_socket(handle) >= 0 { _ = mosquitto_disconnect(handle) }
                delay = delay == 0 ? minimum : delay
            } else if isConnected {
                delay = 0
            }
        }
        // Say goodbye if still connected: the DISCONNECT goes out, then the socket closes.
        if mosquitto_socket(handle) >= 0 {
            _ = mosquitto_disconnect(handle)
            _ = mosquitto_loop_write(handle, 1)
        }
        loopEnded.signal()
    }

    /// Waits up to `seconds`, or until the client signals.
    private func waitForWake(seconds: Double) {
        var descriptor = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, Int32(seconds * 1000)) > 0 { wake.drain() }
    }
}
