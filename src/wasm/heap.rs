//! The instance's memory grows ahead of need, in few large (doubling) steps. The allocator asks
//! the engine for new wasm pages 64 KiB at a time, and past 64 MiB of memory each `memory.grow`
//! costs V8 a full garbage collection (the grown memory is a new `ArrayBuffer` of the whole size,
//! counted as external memory), whose cost grows with the caller's heap: converting a history of a
//! million tiny messages grew the memory thousands of times, each time marking the history's
//! hundreds of MB of JS objects, so the time was quadratic in the history's length.
//!
//! Growing ahead goes through the allocator: an allocation of the wanted size, freed at once. The
//! freed block joins the free top of the heap (wasm memory is never given back), and the
//! allocations that follow are carved from it. [`grow_ahead`], called for every value converted
//! from JS, grows the memory by its size when it grew since its last look, so the number of grows
//! is logarithmic in the heap's size; [`headroom`], called when a compaction, a render or an
//! append starts, keeps at least as much free as is in use for the allocations of the core (which
//! knows nothing of wasm); [`reserve`] makes room before one large step (parsing a long JSON text).
//! Pages grown but never written cost no physical memory. A grow the instance cannot make (near
//! its 4 GiB) is made smaller or skipped: the allocator then grows by what it needs, as before.

use std::cell::Cell;

/// The bytes of a wasm page.
const PAGE: usize = 64 * 1024;
/// The smallest step worth growing ahead by.
const MIN_STEP: usize = 1 << 20;

/// About the bytes that `serde_json` values take per byte of the JSON text of small messages
/// (short strings and small objects, each its own allocation).
pub const VALUE_PER_BYTE: usize = 8;

thread_local! {
    /// The memory's size in pages after the last grow ahead (0: none yet).
    static SEEN: Cell<usize> = const { Cell::new(0) };
}

/// Grows the memory by its size when it grew since the last look (see the module comment).
pub fn grow_ahead() {
    if core::arch::wasm32::memory_size(0) > SEEN.with(Cell::get) {
        headroom();
    }
}

/// Before a call that may allocate much (a compaction, a render, an append): makes half the
/// memory's size free in one block, so that at least as much as is in use is free. Half, not all:
/// a free block as large as the whole memory can never exist while anything is in use, so asking
/// for it grew the memory by what was in use on every call, without bound (a session of a few
/// thousand short messages reached gigabytes of address space); asking for half grows it only
/// while less is free than is used, so it stays within about twice what is in use.
pub fn headroom() {
    reserve(core::arch::wasm32::memory_size(0) * PAGE / 2);
}

/// Makes `bytes` free on the heap in one step, growing the memory if no free block is that large
/// (or the most of it, down to 1 MiB, that the instance can still grow by).
pub fn reserve(bytes: usize) {
    let mut want = bytes;
    while want >= MIN_STEP {
        let mut block: Vec<u8> = Vec::new();
        if block.try_reserve_exact(want).is_ok() {
            break;
        }
        want /= 2;
    }
    SEEN.with(|seen| seen.set(core::arch::wasm32::memory_size(0)));
}
