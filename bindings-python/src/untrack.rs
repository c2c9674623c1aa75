//! Frames and their values hold only Rust data, so they can never be part of a reference
//! cycle: they are taken out of the cycle collector's lists, which a stream of frames would
//! otherwise make it traverse again and again.

use pyo3::prelude::*;

/// Untracks `object` from the cycle collector when its type is a GC type (pyo3 classes are).
#[allow(unsafe_code)] // two stable-ABI calls on a live object, see below
pub(crate) fn untrack<T>(object: Bound<'_, T>) -> Bound<'_, T> {
    let ptr = object.as_ptr();
    // SAFETY: `ptr` is a live object (we hold a strong reference) and so is its type.
    // `PyObject_GC_UnTrack` is only called on instances of a type with `Py_TPFLAGS_HAVE_GC`,
    // whose objects carry the collector's header, and it accepts an untracked object.
    unsafe {
        let ty = pyo3::ffi::Py_TYPE(ptr);
        if pyo3::ffi::PyType_GetFlags(ty) & pyo3::ffi::Py_TPFLAGS_HAVE_GC != 0 {
            pyo3::ffi::PyObject_GC_UnTrack(ptr.cast());
        }
    }
    object
}
