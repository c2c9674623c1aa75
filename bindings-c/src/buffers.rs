//! Memory across the ABI: [`HepText`] (UTF-8 text lent by the caller), [`HepString`] (text the
//! library hands out, freed by [`hep_string_free`]), [`HepBatch`] (a chunk's frames,
//! freed by [`hep_batch_free`]) and [`HepBytes`] (a judged run in the batch layout, freed by
//! [`hep_bytes_free`]); and the checks every pointer argument goes through.

use crate::boundary::guard_void;
use crate::errors::Failure;
use std::ffi::c_char;

/// UTF-8 text lent by the caller for the length of a call: `ptr` to `len` bytes (no NUL
/// needed). `ptr` may be NULL only when `len` is 0 (the empty text).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HepText {
    /// The first byte.
    pub ptr: *const c_char,
    /// The number of bytes.
    pub len: usize,
}

impl HepText {
    /// The text, checked: a NULL pointer with a length, or bytes that are not UTF-8, is an
    /// `invalid_argument` error naming the argument `name`.
    ///
    /// # Safety
    ///
    /// A non-NULL `ptr` points to `len` readable bytes that stay unchanged during the call.
    pub(crate) unsafe fn as_str<'a>(self, name: &str) -> Result<&'a str, Failure> {
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { bytes(self.ptr.cast(), self.len, name) }?;
        std::str::from_utf8(bytes)
            .map_err(|e| Failure::argument(format!("{name} is not UTF-8 (at byte {})", e.valid_up_to())))
    }
}

/// The bytes at `ptr`, checked: NULL with a non-zero `len` is an `invalid_argument` error
/// naming the argument `name`; NULL with 0 is the empty slice.
///
/// # Safety
///
/// A non-NULL `ptr` points to `len` readable bytes that stay unchanged during the call.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize, name: &str) -> Result<&'a [u8], Failure> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(Failure::argument(format!("{name} is NULL with length {len}"))) };
    }
    // SAFETY: `ptr` is not NULL and, by this function's contract, points to `len` bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `out`, checked not NULL: an `invalid_argument` error naming the argument `name`.
pub(crate) fn out<T>(out: *mut T, name: &str) -> Result<*mut T, Failure> {
    if out.is_null() { Err(Failure::argument(format!("{name} is NULL"))) } else { Ok(out) }
}

/// Writes `value` to `place` (checked not NULL by [`out`]).
///
/// # Safety
///
/// `place` is valid for one write of a `T` (what the caller passed for the out argument).
pub(crate) unsafe fn put<T>(place: *mut T, value: T) {
    // SAFETY: forwarded from this function's contract.
    unsafe { place.write(value) };
}

/// Text the library hands out: `len` bytes of UTF-8 at `ptr`, followed by a NUL (not
/// counted; the text itself may hold NUL bytes, so use `len`). `ptr` is NULL for "nothing"
/// (a writer call that writes no line). Freed by [`hep_string_free`] (or with the
/// [`HepError`](crate::HepError) holding it).
#[repr(C)]
#[derive(Debug)]
pub struct HepString {
    /// The first byte, or NULL for nothing.
    pub ptr: *mut c_char,
    /// The number of bytes, without the trailing NUL.
    pub len: usize,
}

impl HepString {
    /// Nothing: a NULL pointer, length 0.
    pub(crate) const NONE: Self = Self { ptr: std::ptr::null_mut(), len: 0 };

    /// The text, if any (for the tests).
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> Option<&str> {
        if self.ptr.is_null() {
            return None;
        }
        // SAFETY: a non-NULL `ptr` holds `len` bytes of the `String` it was made from.
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) };
        std::str::from_utf8(bytes).ok()
    }
}

impl From<String> for HepString {
    fn from(text: String) -> Self {
        let len = text.len();
        let mut bytes = text.into_bytes();
        bytes.push(0);
        let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<c_char>();
        Self { ptr, len }
    }
}

impl Drop for HepString {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.ptr.cast::<u8>(), self.len + 1);
            // SAFETY: a non-NULL `ptr` is the boxed slice of `len + 1` bytes made by `from`,
            // freed once (the caller hands each string back once).
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

/// Frees `string`'s bytes. A NULL `ptr` is accepted (nothing to free). `string` must come
/// from this library, be freed once, and not be used afterwards.
///
/// # Safety
///
/// `string` is NULL-`ptr` or a string from this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_string_free(string: HepString) {
    guard_void(|| drop(string));
}

/// The frames of one fed chunk, each with its line number and line: `len` bytes at `data`,
/// in the layout of hep-core's `batch` module (see `HepFrameTag` and `docs/c.md`); `frames`
/// items. An empty batch has a NULL `data`. Freed by [`hep_batch_free`].
#[repr(C)]
#[derive(Debug)]
pub struct HepBatch {
    /// The first byte, or NULL when empty.
    pub data: *const u8,
    /// The number of bytes.
    pub len: usize,
    /// The number of frames (items) in it.
    pub frames: usize,
}

impl HepBatch {
    /// No frames.
    pub(crate) const EMPTY: Self = Self { data: std::ptr::null(), len: 0, frames: 0 };

    /// `frames` frames encoded in `batch`.
    pub(crate) fn new(batch: hep_core::batch::FrameBatch, frames: usize) -> Self {
        if batch.is_empty() {
            return Self::EMPTY;
        }
        let bytes = batch.into_bytes().into_boxed_slice();
        let len = bytes.len();
        Self { data: Box::into_raw(bytes).cast::<u8>().cast_const(), len, frames }
    }

    /// The encoded bytes (for the tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `data` and `len` are those of the boxed slice made by `new`, or NULL and 0.
        unsafe { bytes(self.data, self.len, "batch") }.unwrap_or_default()
    }
}

impl Drop for HepBatch {
    fn drop(&mut self) {
        if !self.data.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.data.cast_mut(), self.len);
            // SAFETY: a non-NULL `data` is the boxed slice of `len` bytes made by `new`,
            // freed once (the caller hands each batch back once).
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

/// Frees `batch`'s bytes. An empty batch (NULL `data`) is accepted. `batch` must come from
/// this library, be freed once, and not be read afterwards.
///
/// # Safety
///
/// `batch` is empty (NULL `data`) or a batch from this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_batch_free(batch: HepBatch) {
    guard_void(|| drop(batch));
}

/// Bytes the library hands out: `len` bytes at `data`, or NULL `data` for nothing (a
/// supervised run not over yet). A judged run in the layout of hep-core's
/// `batch::result` (see `docs/c.md`). Freed by [`hep_bytes_free`].
#[repr(C)]
#[derive(Debug)]
pub struct HepBytes {
    /// The first byte, or NULL for nothing.
    pub data: *const u8,
    /// The number of bytes.
    pub len: usize,
}

impl HepBytes {
    /// Nothing: a NULL pointer, length 0.
    pub(crate) const NONE: Self = Self { data: std::ptr::null(), len: 0 };

    /// The bytes (for the tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `data` and `len` are those of the boxed slice made by `from`, or NULL and 0.
        unsafe { bytes(self.data, self.len, "bytes") }.unwrap_or_default()
    }
}

impl From<Vec<u8>> for HepBytes {
    fn from(bytes: Vec<u8>) -> Self {
        let bytes = bytes.into_boxed_slice();
        let len = bytes.len();
        Self { data: Box::into_raw(bytes).cast::<u8>().cast_const(), len }
    }
}

impl Drop for HepBytes {
    fn drop(&mut self) {
        if !self.data.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.data.cast_mut(), self.len);
            // SAFETY: a non-NULL `data` is the boxed slice of `len` bytes made by `from`,
            // freed once (the caller hands each buffer back once).
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

/// Frees `bytes`. A NULL `data` is accepted. `bytes` must come from this library, be freed
/// once, and not be read afterwards.
///
/// # Safety
///
/// `bytes` is NULL-`data` or bytes from this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_bytes_free(bytes: HepBytes) {
    guard_void(|| drop(bytes));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text is checked: NULL only for the empty text, UTF-8 or an error naming the argument.
    #[test]
    fn text_arguments_are_checked() {
        let text = |bytes: &[u8]| HepText { ptr: bytes.as_ptr().cast(), len: bytes.len() };
        // SAFETY: each text points to its bytes.
        unsafe {
            assert_eq!(text("hé".as_bytes()).as_str("s"), Ok("hé"));
            assert_eq!(HepText { ptr: std::ptr::null(), len: 0 }.as_str("s"), Ok(""));
            let null = HepText { ptr: std::ptr::null(), len: 2 }.as_str("session");
            assert_eq!(null, Err(Failure::argument("session is NULL with length 2")));
            let bad = text(&[b'a', 0xC3]).as_str("delta");
            assert_eq!(bad, Err(Failure::argument("delta is not UTF-8 (at byte 1)")));
        }
        assert!(out(std::ptr::null_mut::<u8>(), "line_out").is_err());
    }

    /// A string keeps its bytes, NUL-terminated, until freed.
    #[test]
    fn a_string_is_nul_terminated_and_freed() {
        let string = HepString::from("a\0b".to_owned());
        assert_eq!(string.len, 3);
        assert_eq!(string.as_str(), Some("a\0b"));
        // SAFETY: the terminator is the byte after `len`.
        assert_eq!(unsafe { *string.ptr.add(3) }, 0);
        // SAFETY: made by the library, freed once.
        unsafe { hep_string_free(string) };
        // SAFETY: NULL is nothing.
        unsafe { hep_string_free(HepString::NONE) };
        let empty = HepBatch::new(hep_core::batch::FrameBatch::default(), 0);
        assert!(empty.data.is_null());
        // SAFETY: an empty batch is accepted.
        unsafe { hep_batch_free(empty) };
    }
}
