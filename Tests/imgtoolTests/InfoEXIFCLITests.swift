import Foundation
import TestSupport
import Testing

/// `info`: the EXIF summary in text and JSON, the file size, and one JSON line per input when some fail.
@Suite("imgtool info: EXIF and failed inputs", .timeLimit(.minutes(5)))
struct InfoEXIFCLITests {
    static let fixtures = ColorCLITests.fixtures

    @Test("info --json: one line per input in order, a failed one with its error; exit status 1")
    func oneLinePerInput() throws {
        let folder = try makeTemporaryFolder("info-lines")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/bad.png"))
        let gps = Self.fixtures + "/gps-exif.jpg"
        let run = try CLIRunner.run(["info", "--json", gps, "missing.png", "bad.png", gps], in: folder)
        #expect(run.status == 1)
        #expect(run.lines.count == 4, "\(run.stdout)")
        let objects = try run.lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["file"] as? String } == [gps, "missing.png", "bad.png", gps])
        #expect(objects[1]["error"] as? String == "missing.png: no such file")
        #expect((objects[2]["error"] as? String)?.hasPrefix("bad.png: not a PNG, GIF, JPEG") == true)
        #expect(objects[0]["error"] == nil && objects[3]["error"] == nil)
        #expect(objects[0]["file_size"] as? Int == 1179)
        #expect(run.stderr.split(separator: "\n").count == 2, "each failure is named on stderr too: \(run.stderr)")
    }

    @Test("info --json's exif object: the fields, null when absent, GPS only where the file has it")
    func exifObject() throws {
        let run = try CLIRunner.run(["info", "--json", Self.fixtures + "/gps-exif.jpg", Self.fixtures + "/p3.jpg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.lines[0].contains(
                #""exif":{"date_taken":null,"date_taken_offset":null,"exposure_bias_ev":null,"exposure_time":null,"exposure_time_s":null,"f_number":null,"focal_length_35mm":null,"focal_length_mm":null,"gps_altitude_m":null,"gps_latitude":48.8566667,"gps_longitude":2.3508333,"iso":null,"lens_make":null,"lens_model":null,"make":"imgtool","model":null,"orientation":6,"resolution_unit":null,"x_resolution":null,"y_resolution":null}"#
            ), "\(run.lines[0])")
        #expect(run.lines[1].contains(#""exif":null"#), "p3.jpg has no EXIF")
        let text = try CLIRunner.run(["info", Self.fixtures + "/gps-exif.jpg"])
        #expect(text.lines.last == "  exif: imgtool, GPS 48.8566667, 2.3508333", "\(text.stdout)")
    }

    @Test("A batch info job with a failing input reports every input's object beside the error")
    func batchInfo() throws {
        let folder = try makeTemporaryFolder("info-batch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = BatchCLITests.line("i", ["info", Self.fixtures + "/gps-exif.jpg", "missing.png"])
        try Data(job.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try CLIRunner.run(["batch", "jobs.ndjson"], in: folder)
        #expect(run.status == 1)
        let report = try #require(BatchCLITests.reports(run.stdout)["i"])
        #expect(report["status"] as? String == "failed")
        #expect(report["error"] as? String == "missing.png: no such file")
        let objects = try #require(report["info"] as? [[String: Any]])
        #expect(objects.count == 2)
        #expect((objects[0]["exif"] as? [String: Any])?["make"] as? String == "imgtool")
        #expect(objects[1]["error"] as? String == "missing.png: no such file")
    }
}
