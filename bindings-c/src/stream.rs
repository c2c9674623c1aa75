//! [`HepStream`]: hep-core's stream (framer, decoder, validator, run) behind an opaque
//! handle. `hep_stream_feed` returns the frames each chunk completes as one [`HepBatch`];
//! `hep_stream_finish` the run's result as the JSON text of the core's `RunResult`, and
//! `hep_stream_finish_binary` in the batch layout.

use crate::boundary::guard;
use crate::buffers::{HepBatch, HepBytes, HepString, bytes, out, put};
use crate::errors::{Failure, HepError};
use crate::options::HepStreamOptions;
use hep_core::batch::FrameBatch;
use hep_core::batch::result::encode_result;
use hep_core::verdict::RunResult;
use hep_core::{Event, Stream};

/// A stream being read: bytes in, frames out. Not thread-safe: use one handle from one
/// thread at a time (separate handles are independent). Freed by `hep_stream_free`.
#[derive(Debug)]
pub struct HepStream {
    state: State,
}

#[derive(Debug)]
enum State {
    Reading(Box<Stream>),
    /// `finish` was called: its result, returned again by a later `finish`.
    Finished(Box<RunResult>),
}

impl HepStream {
    /// The result, judged for `exit_code` by the first call (later ones return it again).
    fn finish(&mut self, exit_code: Option<i32>) -> Result<&RunResult, Failure> {
        if let State::Reading(stream) = &mut self.state {
            let stream = std::mem::replace(stream, Box::new(Stream::new(Default::default())));
            self.state = State::Finished(Box::new(stream.finish(exit_code)));
        }
        match &self.state {
            State::Finished(result) => Ok(result),
            State::Reading(_) => Err(Failure::internal("the stream is still reading after finish".to_owned())),
        }
    }
}

/// The JSON text of `result` (as `hep watch --json` prints it).
pub(crate) fn result_json(result: &RunResult) -> Result<HepString, Failure> {
    serde_json::to_string(result).map(HepString::from).map_err(|e| Failure::internal(e.to_string()))
}

/// The handle behind `stream`, checked not NULL.
///
/// # Safety
///
/// A non-NULL `stream` comes from `hep_stream_new`, is not freed, and is not used by
/// another thread during the call.
unsafe fn handle<'a>(stream: *mut HepStream) -> Result<&'a mut HepStream, Failure> {
    // SAFETY: forwarded from this function's contract.
    unsafe { stream.as_mut() }.ok_or_else(|| Failure::argument("stream is NULL"))
}

/// Makes a stream reading with `options` (NULL: `hep_stream_options_default()`) into
/// `*stream_out`. Returns false (and an error in `*error_out`, when not NULL) if
/// `stream_out` is NULL.
///
/// # Safety
///
/// `options` is NULL or points to readable options; `stream_out` and `error_out` are NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_stream_new(
    options: *const HepStreamOptions,
    stream_out: *mut *mut HepStream,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(stream_out, "stream_out")?;
        // SAFETY: a non-NULL `options` points to options the caller filled.
        let options = unsafe { options.as_ref() }.copied().map(Into::into).unwrap_or_default();
        let stream = Box::new(HepStream { state: State::Reading(Box::new(Stream::new(options))) });
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, Box::into_raw(stream)) };
        Ok(())
    })
}

/// Feeds `len` bytes at `data` (any split: inside a line, inside a UTF-8 character) and
/// writes the frames they complete to `*batch_out` (free it with `hep_batch_free`, also
/// when empty). Violations and skipped lines are not errors: they are in the result of
/// `hep_stream_finish`. Returns false with an error when the stream halts (strict mode, a
/// refused protocol version): `*batch_out` then holds the frames before the halt, and later
/// feeds return nothing. After `hep_stream_finish`, feeding returns an empty batch.
///
/// # Safety
///
/// `stream` is NULL or a live handle from `hep_stream_new`, not used by another thread
/// during the call; `data` is NULL or points to `len` readable bytes; the out arguments are
/// NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_stream_feed(
    stream: *mut HepStream,
    data: *const u8,
    len: usize,
    batch_out: *mut HepBatch,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(batch_out, "batch_out")?;
        // SAFETY: `place` is the caller's out argument, checked not NULL; an empty batch
        // is written first so that every return leaves one to free.
        unsafe { put(place, HepBatch::EMPTY) };
        // SAFETY: the caller passes a live stream, used by this thread only.
        let handle = unsafe { handle(stream) }?;
        // SAFETY: `data` points to `len` bytes, as this function's contract says.
        let data = unsafe { bytes(data, len, "data") }?;
        let State::Reading(stream) = &mut handle.state else { return Ok(()) };
        let mut batch = FrameBatch::for_input(data.len());
        let (mut frames, mut halt) = (0, None);
        stream.feed_borrowed(data, |event| match event {
            Event::Frame(received) => {
                batch.push_borrowed(&received);
                frames += 1;
            }
            Event::Halted(e) => halt = Some(Failure::from(e)),
            Event::Violation(_) | Event::Skipped(_) => {}
        });
        // SAFETY: as above.
        unsafe { put(place, HepBatch::new(batch, frames)) };
        halt.map_or(Ok(()), Err)
    })
}

/// Ends the stream: a partial last line is reported as skipped (`truncated`), and the run
/// is judged for the harness's exit code (`exit_code`, if `has_exit_code`; else unknown).
/// Writes the result to `*result_out`: the JSON text of hep-core's `RunResult` (`verdict`,
/// `reasons`, `conforms`, `run`, `violations`, `skipped`, ...; as `hep watch --json`
/// prints it). Free it with `hep_string_free`. A second call returns the same result.
///
/// # Safety
///
/// `stream` is NULL or a live handle from `hep_stream_new`, not used by another thread
/// during the call; `data` is NULL or points to `len` readable bytes; the out arguments are
/// NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_stream_finish(
    stream: *mut HepStream,
    exit_code: i32,
    has_exit_code: bool,
    result_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(result_out, "result_out")?;
        // SAFETY: the caller passes a live stream, used by this thread only.
        let handle = unsafe { handle(stream) }?;
        let json = result_json(handle.finish(has_exit_code.then_some(exit_code))?)?;
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, json) };
        Ok(())
    })
}

/// `hep_stream_finish` writing the result to `*result_out` in the layout of hep-core's
/// `batch::result` (little-endian integers, length-prefixed UTF-8; see `docs/c.md`) instead
/// of JSON: what a binding reads without a JSON parser. Free it with `hep_bytes_free`. The
/// first of the two finish calls judges the run; later ones return the same result.
///
/// # Safety
///
/// As `hep_stream_finish`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_stream_finish_binary(
    stream: *mut HepStream,
    exit_code: i32,
    has_exit_code: bool,
    result_out: *mut HepBytes,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(result_out, "result_out")?;
        // SAFETY: `place` is the caller's out argument, checked not NULL; nothing is written
        // first so that every return leaves bytes to free.
        unsafe { put(place, HepBytes::NONE) };
        // SAFETY: the caller passes a live stream, used by this thread only.
        let handle = unsafe { handle(stream) }?;
        let bytes = encode_result(handle.finish(has_exit_code.then_some(exit_code))?);
        // SAFETY: as above.
        unsafe { put(place, HepBytes::from(bytes)) };
        Ok(())
    })
}

/// Frees `stream`. NULL is accepted. `stream` must come from `hep_stream_new` and not be
/// used afterwards.
///
/// # Safety
///
/// `stream` is NULL or a handle from `hep_stream_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_stream_free(stream: *mut HepStream) {
    crate::boundary::guard_void(|| {
        if !stream.is_null() {
            // SAFETY: a non-NULL `stream` was made by `Box::into_raw` in `hep_stream_new`
            // and is freed once, as this function's contract says.
            drop(unsafe { Box::from_raw(stream) });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::HepErrorKind;
    use std::ptr::{null, null_mut};

    const RUN: &str = "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.0\",\"session\":\"s\"}\n\
                       {\"type\":\"agent_start\",\"turn_id\":1}\n";

    fn new_stream() -> *mut HepStream {
        let mut stream = null_mut();
        // SAFETY: valid out arguments.
        assert!(unsafe { hep_stream_new(null(), &mut stream, null_mut()) });
        stream
    }

    fn feed(stream: *mut HepStream, data: &[u8]) -> (bool, HepBatch, Option<Box<HepError>>) {
        let mut batch = HepBatch::EMPTY;
        let mut error = null_mut();
        // SAFETY: a live stream and valid buffers.
        let ok = unsafe { hep_stream_feed(stream, data.as_ptr(), data.len(), &mut batch, &mut error) };
        // SAFETY: a non-NULL error was boxed by the library.
        (ok, batch, (!error.is_null()).then(|| unsafe { Box::from_raw(error) }))
    }

    #[test]
    fn chunks_give_batches_and_finish_gives_the_result() {
        let stream = new_stream();
        let (split, rest) = RUN.as_bytes().split_at(20);
        let (ok, batch, _) = feed(stream, split);
        assert!(ok && batch.data.is_null() && batch.frames == 0);
        let (ok, batch, _) = feed(stream, rest);
        assert!(ok);
        assert_eq!(batch.frames, 2);
        assert_eq!(batch.bytes().first(), Some(&1));
        let mut result = HepString::NONE;
        // SAFETY: a live stream, valid out arguments.
        assert!(unsafe { hep_stream_finish(stream, 0, true, &mut result, null_mut()) });
        assert!(result.as_str().is_some_and(|json| json.starts_with("{\"verdict\":")));
        let mut again = HepString::NONE;
        // SAFETY: as above.
        assert!(unsafe { hep_stream_finish(stream, 1, true, &mut again, null_mut()) });
        assert_eq!(again.as_str(), result.as_str());
        let mut binary = HepBytes::NONE;
        // SAFETY: as above; the result judged by the first call, for exit code 0.
        assert!(unsafe { hep_stream_finish_binary(stream, 1, true, &mut binary, null_mut()) });
        assert!(binary.bytes().starts_with(b"\x0a\0\0\0incomplete"));
        assert!(binary.bytes().windows(5).any(|w| w == [1, 0, 0, 0, 0]), "exit code Some(0)");
        let (ok, batch, _) = feed(stream, RUN.as_bytes());
        assert!(ok && batch.frames == 0);
        // SAFETY: made by `new_stream`, freed once.
        unsafe { hep_stream_free(stream) };
    }

    #[test]
    fn a_halt_returns_the_frames_before_it_and_the_error() {
        let mut options = crate::options::hep_stream_options_default();
        options.strict = true;
        let mut stream = null_mut();
        // SAFETY: valid arguments.
        assert!(unsafe { hep_stream_new(&options, &mut stream, null_mut()) });
        let (ok, batch, error) = feed(stream, format!("{RUN}{{oops\n").as_bytes());
        assert!(!ok);
        assert_eq!(batch.frames, 2);
        let error = error.map(|e| (e.kind, e.line));
        assert_eq!(error, Some((HepErrorKind::Syntax, 3)));
        // SAFETY: made by `hep_stream_new`, freed once.
        unsafe { hep_stream_free(stream) };
    }

    #[test]
    fn null_arguments_are_errors() {
        let (ok, _, error) = feed(null_mut(), b"x");
        assert!(!ok);
        assert_eq!(error.map(|e| e.kind), Some(HepErrorKind::InvalidArgument));
        let stream = new_stream();
        let (mut batch, mut error) = (HepBatch::EMPTY, null_mut());
        // SAFETY: NULL data with a length is refused before it is read.
        let ok = unsafe { hep_stream_feed(stream, null(), 3, &mut batch, &mut error) };
        assert!(!ok);
        // SAFETY: boxed by the library.
        let error = unsafe { Box::from_raw(error) };
        assert_eq!(error.message.as_str(), Some("data is NULL with length 3"));
        // SAFETY: `result_out` NULL is refused.
        assert!(!unsafe { hep_stream_finish(stream, 0, false, null_mut(), null_mut()) });
        // SAFETY: as above.
        assert!(!unsafe { hep_stream_finish_binary(stream, 0, false, null_mut(), null_mut()) });
        // SAFETY: made by `new_stream`, freed once; NULL is accepted.
        unsafe {
            hep_stream_free(stream);
            hep_stream_free(null_mut());
        }
    }
}
