#![doc = include_str!("../README.md")]

pub mod args;
#[cfg(feature = "batch")]
pub mod batch;
mod borrowed;
pub mod boundary;
pub mod bounds;
mod decode;
pub mod encode;
mod encode_json;
mod error;
mod event;
mod fast_decode;
mod frame;
mod json;
pub mod lines;
mod reader;
pub mod run;
pub mod sanitize;
mod scan;
pub mod schema;
mod stream;
pub mod supervise;
pub mod validate;
pub mod verdict;
mod violation;
pub mod writer;

pub use args::{Args, parse_args};
pub use borrowed::FrameRef;
pub use bounds::ArgsMode;
pub use decode::decode;
pub use encode::encode;
pub use encode_json::encode_json;
pub use error::{Error, ErrorKind, Result};
pub use event::{Event, EventRef, Received, ReceivedRef};
pub use frame::*;
pub use json::MAX_DEPTH;
pub use reader::Reader;
pub use stream::{Stream, StreamOptions};
pub use validate::Validator;
pub use verdict::{RunResult, Verdict};
pub use violation::{Severity, Violation, ViolationCode};
pub use writer::{Emitter, Writer};

/// The protocol version this library speaks, as written in `hep_header.hep`.
pub const PROTOCOL_VERSION: &str = "v1";
