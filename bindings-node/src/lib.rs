//! The native half of the npm package `hep`: hep-core through napi-rs.
//!
//! Conversions and error mapping only. The protocol (parsing, validation, encoding, bounds,
//! verdicts) is hep-core; the public API, argument checks and Node I/O are the package's
//! JavaScript (`lib/*.js`), which loads this addon through `lib/native.js`. Nothing here is
//! public API: the names are the package's internal contract. Each module has the name of
//! the `lib/` module it serves.
//!
//! The hot path crosses the boundary once per chunk: [`stream::NativeStream::feed`] hands back
//! every frame the chunk completes as one [`batch`] (a string pool and a column of numbers)
//! that `lib/batch.js` turns into plain objects.

mod batch;
pub mod boundary;
pub mod bounds;
pub mod constants;
mod errors;
pub mod frames;
pub mod sanitize;
pub mod signals;
pub mod stream;
pub mod supervise;
pub mod tail;
mod text;
pub mod writer;

/// The addon's Rust allocations (frames' strings, lines, batches) come from mimalloc: a line
/// of the writer takes several small short-lived allocations, and glibc's allocator made the
/// writer a tenth slower (measured on the bench corpus).
///
/// The crate's own unit tests keep the system allocator, so that valgrind (`make memcheck`)
/// sees their heap blocks: it cannot see inside mimalloc's pages.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
