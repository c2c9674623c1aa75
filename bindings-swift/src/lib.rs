//! `Hep` for Swift: hep-core through uniffi. Conversions and error mapping only; the
//! protocol lives in hep-core, the I/O and the idiomatic API in the Swift package
//! (`Sources/Hep`).
//!
//! The frame records are hep-core's own types, declared to uniffi as remote types
//! (`frames`), so a single frame crosses the FFI without a Rust-side copy. The frames a
//! `feed` completes cross as one `FrameBatch` (`batch`), which the Swift side reads in place.
//! The supervision policy of a child process is hep-core's state machine (`supervise`).

uniffi::setup_scaffolding!("hep");

pub mod batch;
pub mod errors;
pub mod frames;
mod guard;
pub mod limits;
pub mod result;
pub mod stream;
pub mod supervise;
pub mod support;
pub mod writer;

pub use batch::FrameBatch;
pub use errors::{CoreError, HepError, Violation};
pub use result::{RunResult, Turn};
pub use stream::{CoreStream, decode_line, encode_frame};
pub use supervise::{CoreEventBatch, CoreSupervisor};
pub use support::{LivenessAction, SupervisionPolicy};
pub use writer::CoreWriter;
