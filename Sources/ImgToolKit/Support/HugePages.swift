#if canImport(Glibc)
    import Glibc
#endif

/// Asks the kernel to back a large, freshly allocated buffer with transparent huge pages.
///
/// A decoder writes a 4096x4096 RGBA buffer (64 MiB) front to back; with 4 KiB pages that is
/// 16,384 page faults, a tenth of the decode. On kernels whose transparent huge pages are in
/// `madvise` mode (Debian's default), `madvise(MADV_HUGEPAGE)` makes it 32 faults of 2 MiB. It is
/// only a hint: nothing changes where huge pages are off or already always on, or on other
/// systems. Only the 2 MiB-aligned pages that lie wholly inside the buffer are advised, and the
/// buffer is about to be written whole, so no memory is wasted; a buffer of 4 MiB or more (a
/// 1920x1080 canvas, a 6 MB file) always holds at least one such page.
/// The corresponding C function is `madvise`.
func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
    #if canImport(Glibc)
        let hugePage: UInt = 2 << 20
        guard buffer.count >= 2 * Int(hugePage), let base = buffer.baseAddress else { return }
        let first = (UInt(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
        let end = (UInt(bitPattern: base) + UInt(buffer.count)) & ~(hugePage - 1)
        guard end > first, let start = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(start, Int(end - first), MADV_HUGEPAGE)
    #endif
}
