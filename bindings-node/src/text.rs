//! Text across the boundary as UTF-16, both ways: V8 copies a UTF-16 string as it is
//! (narrowing it when it is all Latin-1) and hands one over as it holds it, while UTF-8 costs
//! it two byte-by-byte passes (a length, then the conversion) each way. The conversions on
//! this side are encoding_rs's, which take runs of ASCII many bytes at a time.

use napi::bindgen_prelude::{Env, JsValue};
use napi::{JsString, Status, sys};
use std::cell::RefCell;

/// Appends `text` to `buf` as UTF-16.
pub(crate) fn push_utf16(buf: &mut Vec<u16>, text: &str) {
    let at = buf.len();
    // UTF-16 never takes more code units than UTF-8 takes bytes.
    buf.resize(at + text.len(), 0);
    let written = buf.get_mut(at..).map_or(0, |room| encoding_rs::mem::convert_str_to_utf16(text, room));
    buf.truncate(at + written);
}

thread_local! {
    /// The UTF-16 of the last string made, reused (unless it grew past 1 MiB).
    static UNITS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
    /// The last string argument read, as UTF-16 and as UTF-8, reused (unless it grew past 1 MiB).
    static ARGUMENT: RefCell<(Vec<u16>, String)> = const { RefCell::new((Vec::new(), String::new())) };
}

/// `text` as a JavaScript string.
pub(crate) fn js_string<'env>(env: &'env Env, text: &str) -> napi::Result<JsString<'env>> {
    if text.is_ascii() {
        return env.create_string_latin1(text.as_bytes());
    }
    UNITS.with_borrow_mut(|units| {
        units.clear();
        push_utf16(units, text);
        let made = env.create_string_utf16(&units[..]);
        shrink(units);
        made
    })
}

/// Reads the JavaScript string `value` into `units` (UTF-16, which V8 copies as it holds
/// it): one call of napi when it fits the room `units` has, another with more room when it
/// did not. napi-rs's own string arguments take two calls and a zeroed copy each.
#[allow(unsafe_code)] // napi's C function, on the live handles of the current call (see SAFETY)
fn read_utf16(value: &JsString<'_>, units: &mut Vec<u16>) -> napi::Result<()> {
    let handle = value.value();
    let (env, value) = (handle.env, handle.value);
    units.clear();
    loop {
        let room = units.capacity().max(256);
        units.reserve_exact(room);
        let mut written = 0;
        // SAFETY: `env` and `value` are the handles of an argument of the current call, and
        // napi writes at most `room` code units (the last one a NUL) to the spare capacity of
        // `units`, which is empty and holds at least `room`.
        let status = unsafe { sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), room, &mut written) };
        if status != sys::Status::napi_ok {
            return Err(napi::Error::new(Status::from(status), "cannot read a string argument"));
        }
        // SAFETY: napi wrote the first `written` code units (`written < room`).
        unsafe { units.set_len(written) };
        if written + 1 < room {
            return Ok(());
        }
        // The string filled the room, so it may have been cut: read it again with more.
        units.clear();
        units.reserve_exact(room * 2);
    }
}

/// What `f` makes of a JavaScript string argument as Rust text (a lone surrogate becomes
/// U+FFFD, as in any conversion of a JavaScript string to UTF-8).
pub(crate) fn with_utf8<T>(value: &JsString<'_>, f: impl FnOnce(&str) -> T) -> napi::Result<T> {
    ARGUMENT.with_borrow_mut(|(units, text)| {
        read_utf16(value, units)?;
        let made = f(to_str(units, text));
        shrink(units);
        if text.capacity() > 1 << 20 {
            *text = String::new();
        }
        Ok(made)
    })
}

/// `units` as UTF-8 in `room` (grown as needed), a lone surrogate as U+FFFD; encoding_rs
/// writes into a `str`, so the result needs no second check.
fn to_str<'a>(units: &[u16], room: &'a mut String) -> &'a str {
    // Each UTF-16 code unit takes at most three bytes of UTF-8.
    let need = units.len() * 3;
    if room.len() < need {
        room.extend(std::iter::repeat_n('\0', need - room.len()));
    }
    let written = encoding_rs::mem::convert_utf16_to_str(units, room.as_mut_str());
    room.get(..written).unwrap_or_default()
}

/// What `f` makes of the first `min(length, max)` UTF-16 units of a JavaScript string
/// argument, as Rust text (a lone surrogate as U+FFFD), and of its length in units: the rest
/// of a long string is never copied.
#[allow(unsafe_code)] // napi's C function, on the live handles of the current call (see SAFETY)
pub(crate) fn with_utf8_head<T>(value: &JsString<'_>, max: usize, f: impl FnOnce(&str, usize) -> T) -> napi::Result<T> {
    let handle = value.value();
    let (env, value) = (handle.env, handle.value);
    let mut total = 0;
    // SAFETY: the handles of an argument of the current call; with a null buffer, napi only
    // writes the string's length to `total`.
    let status = unsafe { sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut total) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::new(Status::from(status), "cannot read a string argument"));
    }
    ARGUMENT.with_borrow_mut(|(units, text)| {
        // napi writes at most `room - 1` units and then a NUL.
        let room = total.min(max) + 1;
        units.clear();
        units.reserve_exact(room);
        let mut written = 0;
        // SAFETY: napi writes at most `room` code units (the last a NUL) to the spare capacity
        // of `units`, which is empty and holds at least `room`.
        let status = unsafe { sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), room, &mut written) };
        if status != sys::Status::napi_ok {
            return Err(napi::Error::new(Status::from(status), "cannot read a string argument"));
        }
        // SAFETY: napi wrote the first `written` code units (`written < room`).
        unsafe { units.set_len(written.min(room - 1)) };
        Ok(f(to_str(units, text), total))
    })
}

/// A JavaScript string argument as Rust text (see [`with_utf8`]).
pub(crate) fn utf8(value: &JsString<'_>) -> napi::Result<String> {
    with_utf8(value, str::to_owned)
}

/// Lets go of a scratch buffer that grew past 1 MiB.
fn shrink<T>(buf: &mut Vec<T>) {
    if buf.capacity() * size_of::<T>() > 1 << 20 {
        *buf = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_appends_in_code_units() {
        let mut buf = Vec::new();
        push_utf16(&mut buf, "aé");
        push_utf16(&mut buf, "😀\n");
        assert_eq!(buf, "aé😀\n".encode_utf16().collect::<Vec<u16>>());
        assert_eq!(buf.len(), 5);
    }
}
