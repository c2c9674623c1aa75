//! The tool results of `Writer.turn_done` as the core's [`ToolHead`]s: each text read as its
//! head and its length in UTF-16 units, so that a long text, which the cap cuts to 2000
//! units, is never converted to UTF-8 whole.

use crate::fields::{Field, as_dict, take};
use crate::frame_model::PyToolResult;
use hep_core::ToolResult;
use hep_core::bounds::{TOOL_RESULT_CAP, utf16_len};
use hep_core::writer::ToolHead;
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyString};

/// One tool result, its text as a head and a length (see [`ToolHead`]).
pub(crate) struct Head {
    id: String,
    name: String,
    ok: bool,
    head: String,
    units: usize,
}

impl Head {
    /// The core's view of it.
    pub(crate) fn as_core(&self) -> ToolHead<'_> {
        ToolHead { id: &self.id, name: &self.name, ok: self.ok, head: &self.head, units: self.units }
    }

    fn whole(result: ToolResult) -> Self {
        let units = utf16_len(&result.text);
        Self { id: result.id, name: result.name, ok: result.ok, head: result.text, units }
    }
}

/// Each item of `results` (a `hep.ToolResult` or a mapping) as a [`Head`]; what is refused
/// is what `ToolResult`'s own conversion refuses, with the same errors.
pub(crate) fn heads_of(results: &Bound<'_, PyAny>) -> PyResult<Vec<Head>> {
    results.try_iter()?.map(|item| head_of(&item?)).collect()
}

fn head_of(ob: &Bound<'_, PyAny>) -> PyResult<Head> {
    if ob.cast::<PyToolResult>().is_ok() {
        return ToolResult::from_py(ob).map(Head::whole);
    }
    let dict = as_dict(ob, "expected a hep.ToolResult or a mapping")?;
    let long_text = text_head(&dict)?;
    let Some((head, units)) = long_text else { return ToolResult::from_py(dict.as_any()).map(Head::whole) };
    let dict = Some(&dict);
    Ok(Head { id: take(dict, "id")?, name: take(dict, "name")?, ok: take(dict, "ok")?, head, units })
}

/// The head and UTF-16 length of the mapping's `text` when it is a `str` (not a subclass,
/// whose length and slices could be its own) longer than the cap with no lone surrogate;
/// `None` otherwise (the whole conversion then reads it, and raises what it raises).
fn text_head(dict: &Bound<'_, PyDict>) -> PyResult<Option<(String, usize)>> {
    let Some(text) = dict.get_item("text")? else { return Ok(None) };
    let Ok(text) = text.cast_exact::<PyString>() else { return Ok(None) };
    let chars = text.len()?;
    if chars <= TOOL_RESULT_CAP + 1 {
        return Ok(None);
    }
    let Some(units) = utf16_units(text, chars)? else { return Ok(None) };
    let head = text.as_any().get_item(PySlice::new(text.py(), 0, TOOL_RESULT_CAP as isize + 1, 1))?;
    let head: String = head.extract()?;
    Ok(Some((head, units)))
}

/// The length of `text` (`chars` code points) in UTF-16 code units, or `None` when it holds
/// a lone surrogate. Read through `PyUnicode_AsWideChar`, a plain copy of the code points
/// (UTF-16 where `wchar_t` has 16 bits), far cheaper than encoding them.
fn utf16_units(text: &Bound<'_, PyString>, chars: usize) -> PyResult<Option<usize>> {
    wide_units(pyo3::ffi::PyUnicode_AsWideChar, text, chars)
}

/// [`utf16_units`] for the platform's `wchar_t`, `W` (named by the function's own type:
/// 32 bits holding a code point, or 16 bits holding UTF-16).
#[allow(unsafe_code)] // one stable-ABI call into a buffer we own, see below
fn wide_units<W: Copy + Into<i64>>(
    as_wide: unsafe extern "C" fn(*mut pyo3::ffi::PyObject, *mut W, pyo3::ffi::Py_ssize_t) -> pyo3::ffi::Py_ssize_t,
    text: &Bound<'_, PyString>,
    chars: usize,
) -> PyResult<Option<usize>> {
    let narrow = std::mem::size_of::<W>() == 2;
    let room = if narrow { chars.saturating_mul(2) } else { chars };
    let size = pyo3::ffi::Py_ssize_t::try_from(room).map_err(|_| PyOverflowError::new_err("text too long"))?;
    let mut wide: Vec<W> = Vec::with_capacity(room);
    // SAFETY: `text` is a live `str` (we hold a reference); `wide` has room for `size`
    // elements and the call writes at most `size` of them, returning how many (or -1 with
    // an exception set, in which case nothing is read from `wide`).
    let written = unsafe { as_wide(text.as_ptr(), wide.as_mut_ptr(), size) };
    let Ok(written) = usize::try_from(written) else { return Err(PyErr::fetch(text.py())) };
    // SAFETY: the first `written` (<= `room`, the capacity) elements were set by the call.
    unsafe { wide.set_len(written.min(room)) };
    let units = wide.iter().map(|&w| w.into() as u32);
    if narrow {
        let lone = char::decode_utf16(units.map(|u| u as u16)).any(|c| c.is_err());
        return Ok((!lone).then_some(wide.len()));
    }
    let (mut astral, mut lone) = (0usize, false);
    for c in units {
        astral += usize::from(c > 0xffff);
        lone |= (0xd800..=0xdfff).contains(&c);
    }
    Ok((!lone).then_some(wide.len() + astral))
}
