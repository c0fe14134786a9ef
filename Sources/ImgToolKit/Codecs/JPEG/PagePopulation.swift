#if canImport(Glibc)
    import Glibc
#endif

/// Has the kernel map and zero fresh memory on a second thread, ahead of the thread that fills it.
///
/// A fresh buffer costs the kernel a page fault and a zeroed page wherever it is first written:
/// for a 4096x4096 decode (64 MiB of RGBA) about 8 ms of system time, for the 96 MiB of
/// coefficients libjpeg's encoder keeps of a 4:4:4 image (optimized Huffman tables take two
/// passes over them) 24,000 faults and about 60 ms. Done on another processor while the
/// decoder or encoder works, that time leaves the critical path. `madvise(MADV_POPULATE_WRITE)`
/// (Linux 5.14 and later) maps pages as a write would, without changing any byte, so it may run
/// while the other thread writes the same memory; on an older kernel it is refused and nothing
/// happens.
enum PagePopulation {
    /// Least bytes worth a thread (a 2048x2048 RGBA image: about 2 ms of faults, against 0.1 ms
    /// to start a thread).
    static let threshold = 16 << 20

    /// How much is mapped per call: one transparent huge page.
    static let step = 2 << 20

    /// Maps the pages of `buffers`, which are filled front to back at the same pace (one image's
    /// rows, or the components of one image's coefficients): step by step through all of them
    /// together, each cut into as many pieces as the largest has steps.
    /// The corresponding C function is `madvise`.
    static func populate(_ buffers: [UnsafeMutableRawBufferPointer]) {
        #if canImport(Glibc)
            let populateWrite: Int32 = 23  // MADV_POPULATE_WRITE in <linux/mman.h>
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            guard page > 0, let largest = buffers.map(\.count).max(), largest > 0 else { return }
            let pieces = (largest + step - 1) / step
            for piece in 0..<pieces {
                for buffer in buffers {
                    guard let base = buffer.baseAddress, buffer.count > 0 else { continue }
                    // Page-aligned bounds; the part of the first page before `base` belongs to
                    // the same allocation (its header) and is mapped already.
                    let origin = Int(bitPattern: base) & ~(page - 1)
                    let end = Int(bitPattern: base) + buffer.count
                    func bound(_ piece: Int) -> Int { origin + (((end - origin) * piece / pieces) & ~(page - 1)) }
                    let from = bound(piece)
                    let to = piece == pieces - 1 ? end : bound(piece + 1)
                    guard to > from, let start = UnsafeMutableRawPointer(bitPattern: from) else { continue }
                    if madvise(start, to - from, populateWrite) != 0 { return }
                }
            }
        #endif
    }
}

/// Memory handed to a ``PagePopulation`` thread.
///
/// `@unchecked Sendable`: the buffers belong to the caller of ``forkJoin(_:alongside:)``, which
/// returns only after the thread has finished, and the thread changes no byte of them.
struct PagesToPopulate: @unchecked Sendable {
    let buffers: [UnsafeMutableRawBufferPointer]
}
