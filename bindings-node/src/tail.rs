//! `NativeTail`: the last bytes of a stream (a child's stderr), bounded: the core's [`Tail`]
//! behind `lib/tail.js`.

use crate::boundary::guard;
use hep_core::supervise::Tail;
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// The last bytes of a stream (a child's stderr), bounded.
#[napi]
pub struct NativeTail(Tail);

#[napi]
impl NativeTail {
    /// An empty tail keeping at most `cap` bytes.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, cap: f64) -> napi::Result<Self> {
        // `cap` is a non-negative integer (checked by lib/tail.js); `as` saturates.
        guard(&env, || Ok(Self(Tail::new(cap as usize))))
    }

    /// Appends `chunk`, forgetting the oldest bytes beyond the cap.
    #[napi(catch_unwind)]
    pub fn push(&mut self, env: Env, chunk: &[u8]) -> napi::Result<()> {
        guard(&env, || {
            self.0.push(chunk);
            Ok(())
        })
    }

    /// The kept bytes as text (invalid UTF-8 as U+FFFD).
    #[napi(catch_unwind)]
    pub fn text(&self, env: Env) -> napi::Result<String> {
        guard(&env, || Ok(self.0.text()))
    }

    /// Bytes forgotten so far.
    #[napi(getter, catch_unwind)]
    pub fn dropped(&self, env: Env) -> napi::Result<f64> {
        guard(&env, || Ok(self.0.dropped() as f64))
    }
}
