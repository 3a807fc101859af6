// Package hugeheap makes the first 128 MiB of toolgate's Go heap eligible for
// transparent huge pages: main calls Reserve as it starts, once it knows
// the command will run long enough to reuse the reservation (not for a
// hook, which decides one call without collecting, nor before handing the
// command to another binary).
//
// Why: on the virtual machines toolgate was measured on, a first touch of a
// 4 KiB page of fresh anonymous memory costs about 13 µs (a hypervisor
// exit), a 2 MiB huge page about 0.3 µs per 4 KiB, and a stream of calls
// grows the heap to tens of MiB (over the corpus's 3,818 distinct calls
// the reservation makes a stream 0.65x as long, though it costs a start
// about 3.5 ms). The Go runtime no longer
// asks for huge pages for the heap itself (Go 1.21.1 and later), and with
// the common kernel setting transparent_hugepage=madvise the heap is then
// never backed by them.
//
// How: one large allocation makes the runtime map heap address space it has
// never used (so it is not zeroed, not touched); madvise(MADV_HUGEPAGE) marks
// that range, from the start of its 64 MiB heap arena, and the allocation is
// dropped. Later allocations that land in the range fault in 2 MiB at a time.
// Resident memory grows in 2 MiB steps where the heap is sparse; virtual size
// grows by the reservation.
//
// Reserve does nothing when TOOLGATE_HUGEPAGES is "0" or "off", when the kernel's
// transparent_hugepage mode is not "madvise" ("always" already covers the
// heap; "never" forbids it), under strict overcommit (overcommit_memory 2)
// or an address-space limit (ulimit -v), where mapping the reservation could
// fail and the runtime would stop the process, or outside Linux. Failures are ignored: this
// changes speed, never behaviour. Heap mapped after the reservation (a
// process that grows past 128 MiB) gets ordinary pages. Not covered: the
// binary's text, goroutine stacks and the runtime's own metadata.
package hugeheap
