//! When and by how much the wasm instance's memory grows ahead of need, in few large (doubling)
//! steps; the binding (`wasm::heap`) only reads the memory's size in pages and calls these. The
//! allocator asks the engine for new wasm pages 64 KiB at a time, and past 64 MiB of memory each
//! `memory.grow` costs V8 a full garbage collection (the grown memory is a new `ArrayBuffer` of the
//! whole size, counted as external memory), whose cost grows with the caller's heap: converting a
//! history of a million tiny messages grew the memory thousands of times, each time marking the
//! history's hundreds of MB of JS objects, so the time was quadratic in the history's length.
//!
//! Growing ahead goes through the allocator: an allocation of the wanted size, freed at once. The
//! freed block joins the free top of the heap (wasm memory is never given back), and the
//! allocations that follow are carved from it. [`grow_ahead`], called for every value converted
//! from JS, grows the memory by its size when it grew since its last look, so the number of grows
//! is logarithmic in the heap's size; [`headroom`], called when a compaction, a render or an
//! append starts, keeps at least as much free as is in use for the allocations of the core (whose
//! other modules know nothing of wasm); [`reserve`] makes room before one large step (parsing a
//! long JSON text). Pages grown but never written cost no physical memory. A grow the instance
//! cannot make (near its 4 GiB) is made smaller or skipped: the allocator then grows by what it
//! needs, as before.

use std::cell::Cell;

/// The bytes of a wasm page.
pub const PAGE: usize = 64 * 1024;
/// The smallest step worth growing ahead by.
const MIN_STEP: usize = 1 << 20;

/// About the bytes that `serde_json` values take per byte of the JSON text of small messages
/// (short strings and small objects, each its own allocation).
pub const VALUE_PER_BYTE: usize = 8;

thread_local! {
    /// The memory's size in pages after the last grow ahead (0: none yet).
    static SEEN: Cell<usize> = const { Cell::new(0) };
}

/// Grows the memory by its size when it grew since the last look (see the module comment);
/// `pages` reads the memory's size in wasm pages.
pub fn grow_ahead(pages: impl Fn() -> usize) {
    if pages() > SEEN.with(Cell::get) {
        headroom(pages);
    }
}

/// Before a call that may allocate much (a compaction, a render, an append): makes half the
/// memory's size free in one block, so that at least as much as is in use is free. Half, not all:
/// a free block as large as the whole memory can never exist while anything is in use, so asking
/// for it grew the memory by what was in use on every call, without bound (a session of a few
/// thousand short messages reached gigabytes of address space); asking for half grows it only
/// while less is free than is used, so it stays within about twice what is in use.
pub fn headroom(pages: impl Fn() -> usize) {
    let bytes = pages() * PAGE / 2;
    reserve(bytes, pages);
}

/// Makes `bytes` free on the heap in one step, growing the memory if no free block is that large
/// (or the most of it, down to 1 MiB, that the instance can still grow by).
pub fn reserve(bytes: usize, pages: impl Fn() -> usize) {
    free_block(bytes, |want| {
        Vec::<u8>::new().try_reserve_exact(want).is_ok()
    });
    SEEN.with(|seen| seen.set(pages()));
}

/// Asks `allocate` for `bytes`, then for half as much while it fails, down to [`MIN_STEP`]: the
/// size it gave, `None` when it gave none (or `bytes` was below the step).
fn free_block(bytes: usize, mut allocate: impl FnMut(usize) -> bool) -> Option<usize> {
    let mut want = bytes;
    while want >= MIN_STEP {
        if allocate(want) {
            return Some(want);
        }
        want /= 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_block_is_asked_for_in_halves_down_to_the_step() {
        let mut asked = Vec::new();
        let given = free_block(16 << 20, |want| {
            asked.push(want);
            want <= 3 << 20
        });
        assert_eq!(given, Some(2 << 20));
        assert_eq!(asked, [16 << 20, 8 << 20, 4 << 20, 2 << 20]);
        let mut tries = 0;
        assert_eq!(
            free_block(4 << 20, |_| {
                tries += 1;
                false
            }),
            None
        );
        assert_eq!(tries, 3, "4, 2 and 1 MiB; never below the step");
        assert_eq!(free_block(MIN_STEP - 1, |_| true), None);
    }

    #[test]
    fn the_memory_grows_ahead_only_when_it_grew_since_the_last_look() {
        let reads = Cell::new(0);
        let pages = || {
            reads.set(reads.get() + 1);
            4
        };
        grow_ahead(pages);
        assert_eq!(SEEN.with(Cell::get), 4, "the first look records the size");
        let before = reads.get();
        grow_ahead(pages);
        assert_eq!(reads.get(), before + 1, "same size: one read, no reserve");
        grow_ahead(|| 6);
        assert_eq!(
            SEEN.with(Cell::get),
            6,
            "a larger memory is grown ahead again"
        );
        reserve(0, || 9);
        assert_eq!(
            SEEN.with(Cell::get),
            9,
            "a reserve records the size after it"
        );
    }
}
