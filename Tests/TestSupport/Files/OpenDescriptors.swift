import Foundation

/// The process's open descriptors, from `/proc/self/fd`.
public enum OpenDescriptors {
    /// How many of them are open on files under `directory` (deleted ones included). Counting only a test's own
    /// files keeps the count exact while other suites open and close descriptors of their own in parallel.
    public static func count(under directory: String) -> Int {
        let prefix = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path + "/"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.count { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else {
                return false
            }
            return target.hasPrefix(prefix)
        }
    }
}
