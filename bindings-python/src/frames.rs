//! One frozen Python class per frame type (`hep.MessageDelta`, ...), plus `hep.UnknownFrame`.
//! Each wraps the core struct and the line it came from; fields are read on access.

use crate::errors::check;
use crate::fields::{Field, take};
use crate::guard::guard;
use crate::untrack::untrack;
use crate::values::repr_of;
use hep_core::*;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Refuses keyword arguments that are not fields of the frame `class`.
pub(crate) fn refuse_unknown(kwargs: Option<&Bound<'_, PyDict>>, class: &str, fields: &[&str]) -> PyResult<()> {
    for key in kwargs.into_iter().flat_map(|k| k.keys()) {
        let key: String = key.extract()?;
        if !fields.contains(&key.as_str()) {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{class}() got an unexpected keyword argument '{key}'"
            )));
        }
    }
    Ok(())
}

/// The canonical form of `frame` as a dict (its exact encoding, parsed).
fn frame_dict(py: Python<'_>, frame: &Frame) -> PyResult<Py<PyAny>> {
    let line = check(py, encode(frame))?;
    let value = serde_json::from_str(&line).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    crate::convert::json_to_py(py, &value)
}

macro_rules! frame_classes {
    ($($class:ident $name:literal $wire:literal $variant:ident($inner:ident) { $($field:ident),* })*) => {
        $(
            #[doc = concat!("The `", $wire, "` frame.")]
            #[pyclass(frozen, freelist = 1024, module = "hep", name = $name)]
            pub(crate) struct $class {
                pub(crate) inner: $inner,
                pub(crate) raw: Option<String>,
                pub(crate) line: Option<u64>,
            }

            #[pymethods]
            impl $class {
                #[new]
                #[pyo3(signature = (**kwargs))]
                fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                    guard(|| {
                        refuse_unknown(kwargs, $name, &[$(stringify!($field)),*])?;
                        Ok(Self { inner: $inner { $($field: take(kwargs, stringify!($field))?),* }, raw: None, line: None })
                    })
                }

                #[classattr]
                fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                    Ok(PyTuple::new(py, [$(stringify!($field)),*])?.unbind())
                }

                $(
                    #[getter]
                    fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                        guard(|| self.inner.$field.to_py(py))
                    }
                )*

                /// The wire `type`.
                #[getter(r#type)]
                fn frame_type(&self) -> &'static str {
                    $wire
                }

                /// The line this frame was read from (`None` for a frame built in Python).
                #[getter]
                fn raw(&self) -> Option<&str> {
                    self.raw.as_deref()
                }

                /// The 1-based line number in its stream (`None` outside a stream).
                #[getter]
                fn line(&self) -> Option<u64> {
                    self.line
                }

                /// The exact bytes the reference emitter writes for this frame (no newline).
                fn to_json(&self, py: Python<'_>) -> PyResult<String> {
                    guard(|| check(py, encode(&Frame::$variant(self.inner.clone()))))
                }

                /// The frame as a dict, keys in the protocol's order.
                fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    guard(|| frame_dict(py, &Frame::$variant(self.inner.clone())))
                }

                fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                    other.cast::<Self>().is_ok_and(|o| o.get().inner == self.inner)
                }

                fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                    guard(|| repr_of(py, $name, &[$((stringify!($field), self.inner.$field.to_py(py)?)),*]))
                }
            }
        )*

        /// A core frame (with its line and line number) as an instance of its Python class.
        pub(crate) fn frame_to_py(py: Python<'_>, frame: Frame, raw: Option<String>, line: Option<u64>) -> PyResult<Py<PyAny>> {
            Ok(match frame {
                $(Frame::$variant(inner) => untrack(Bound::new(py, $class { inner, raw, line })?).into_any().unbind(),)*
                Frame::Unknown(inner) => untrack(Bound::new(py, PyUnknownFrame { inner, line })?).into_any().unbind(),
            })
        }

        /// The core frame behind a Python frame object.
        pub(crate) fn frame_from_py(ob: &Bound<'_, PyAny>) -> PyResult<Frame> {
            $(
                if let Ok(f) = ob.cast::<$class>() {
                    return Ok(Frame::$variant(f.get().inner.clone()));
                }
            )*
            if let Ok(f) = ob.cast::<PyUnknownFrame>() {
                return Ok(Frame::Unknown(f.get().inner.clone()));
            }
            Err(pyo3::exceptions::PyTypeError::new_err(format!("expected a hep frame, got {}", ob.get_type().name()?)))
        }

        /// Adds the frame classes to the module.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<$class>()?;)*
            m.add_class::<PyUnknownFrame>()
        }
    };
}

frame_classes! {
    PyHepHeader "HepHeader" "hep_header" HepHeader(HepHeader) { hep, fah, session }
    PyAgentStart "AgentStart" "agent_start" AgentStart(AgentStart) { turn_id }
    PyMessageStart "MessageStart" "message_start" MessageStart(MessageStart) { turn_id, role }
    PyMessageDelta "MessageDelta" "message_delta" MessageDelta(MessageDelta) { turn_id, delta }
    PyToolStart "ToolStart" "tool_start" ToolStart(ToolStart) { turn_id, id, name, args_summary }
    PyToolDelta "ToolDelta" "tool_delta" ToolDelta(ToolDelta) { turn_id, id, update }
    PyToolLiveness "ToolLiveness" "tool_liveness" ToolLiveness(ToolLiveness) { turn_id, id, name, action, elapsed_ms, output_bytes, detail }
    PyTurnDone "TurnDone" "turn_done" TurnDone(TurnDone) { turn_id, message, tool_results, usage, stop_reason }
    PyTurnError "TurnError" "turn_error" TurnError(TurnError) { turn_id, error, fatal }
    PyCancelled "Cancelled" "cancelled" Cancelled(TurnRef) { turn_id }
    PyCompactionStart "CompactionStart" "compaction_start" CompactionStart(TurnRef) { turn_id }
    PyCompactionEnd "CompactionEnd" "compaction_end" CompactionEnd(CompactionEnd) { turn_id, tokens_freed }
}

/// A frame of a type this version does not know: kept, never an error.
#[pyclass(frozen, module = "hep", name = "UnknownFrame")]
pub(crate) struct PyUnknownFrame {
    inner: UnknownFrame,
    line: Option<u64>,
}

#[pymethods]
impl PyUnknownFrame {
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, ["type", "turn_id"])?.unbind())
    }
    /// The frame's `type`.
    #[getter(r#type)]
    fn frame_type(&self) -> &str {
        &self.inner.frame_type
    }
    /// The frame's `turn_id`, when it has a valid one.
    #[getter]
    fn turn_id(&self) -> Option<u64> {
        self.inner.turn_id
    }
    /// The line, verbatim.
    #[getter]
    fn raw(&self) -> &str {
        &self.inner.raw
    }
    /// The 1-based line number in its stream (`None` outside a stream).
    #[getter]
    fn line(&self) -> Option<u64> {
        self.line
    }
    /// The line, verbatim (an unknown frame is written back unchanged).
    fn to_json(&self) -> &str {
        &self.inner.raw
    }
    /// The line parsed as a dict.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| frame_dict(py, &Frame::Unknown(self.inner.clone())))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().inner == self.inner)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(|| {
            let fields = [("type", self.inner.frame_type.to_py(py)?), ("turn_id", self.inner.turn_id.to_py(py)?)];
            repr_of(py, "UnknownFrame", &fields)
        })
    }
}
