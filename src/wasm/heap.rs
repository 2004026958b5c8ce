//! The instance's memory grows ahead of need, in few large (doubling) steps: when and by how much
//! is the core's ([`crate::core::heap_growth`]); this file reads the memory's size for it.

use crate::core::heap_growth as growth;
pub use crate::core::heap_growth::VALUE_PER_BYTE;

/// The memory's size in wasm pages.
fn pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

/// Grows the memory by its size when it grew since the last look ([`growth::grow_ahead`]).
pub fn grow_ahead() {
    growth::grow_ahead(pages);
}

/// Before a call that may allocate much: half the memory's size free ([`growth::headroom`]).
pub fn headroom() {
    growth::headroom(pages);
}

/// Makes `bytes` free on the heap in one step ([`growth::reserve`]).
pub fn reserve(bytes: usize) {
    growth::reserve(bytes, pages);
}
