import Foundation

/// A new empty folder under the system's temporary folder, `imgtool-<label>-<UUID>`, for one test.
public func makeTemporaryFolder(_ label: String = "test") throws -> String {
    let path = NSTemporaryDirectory() + "imgtool-\(label)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes `bytes` to a file named `name` in a new temporary folder and returns its path.
public func makeTemporaryFile(_ bytes: [UInt8], name: String) throws -> String {
    let path = try makeTemporaryFolder("file") + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}
