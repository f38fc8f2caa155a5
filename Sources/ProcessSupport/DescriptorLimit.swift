#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which children such as the
/// embedded Mosquitto inherit: every held MQTT connection is one descriptor of the broker.
public enum DescriptorLimit {
    /// The most a process may ask for without privileges it does not have: the kernel's
    /// `fs.nr_open` for a privileged process, else the hard limit.
    public static let wanted = 1_048_576

    /// The current soft limit.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to at least `atLeast` (or as far as the hard limit goes), raising
    /// the hard limit too where the process may (root, or `CAP_SYS_RESOURCE`); never lowers
    /// either. Returns the soft limit in force afterwards.
    @discardableResult
    public static func raise(atLeast wanted: Int = wanted) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let target = rlim_t(wanted)
        if limit.rlim_cur >= target { return Int(clamping: limit.rlim_cur) }
        if limit.rlim_max < target {
            var raised = limit
            raised.rlim_max = target
            raised.rlim_cur = target
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return wanted }
        }
        limit.rlim_cur = min(target, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return current
    }
}
