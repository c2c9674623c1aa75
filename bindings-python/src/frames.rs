//! One frozen Python class per frame type (`hep.MessageDelta`, ...) and `hep.UnknownFrame`,
//! made by [`frame_classes!`] from the list in `frame_model.rs` (generated from hep-core's
//! frame model by `make codegen`). Each wraps the core struct and the line it came from;
//! fields are read on access.

use crate::errors::check;
use hep_core::{Frame, encode};
use pyo3::prelude::*;

/// What an unknown frame's `type` is in Python (docs/api.md): its wire type is `frame_type`.
pub(crate) const UNKNOWN_TYPE: &str = "unknown";

/// The canonical form of `frame` as a dict (its exact encoding, parsed).
pub(crate) fn frame_dict(py: Python<'_>, frame: &Frame) -> PyResult<Py<PyAny>> {
    let line = check(py, encode(frame))?;
    let value = serde_json::from_str(&line).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    crate::convert::json_to_py(py, &value)
}

/// The exact line of `frame` (no newline).
pub(crate) fn frame_line(py: Python<'_>, frame: &Frame) -> PyResult<String> {
    check(py, encode(frame))
}

/// The Python classes of the frames, from the list `frame_model.rs` gives:
///
/// - each known frame type: `$class` wraps the core struct `$inner` (the payload of
///   `Frame::$variant`) and is `hep.$name`, with `type` the wire type `$wire`; its fields, in
///   the wire's order, are keyword arguments of its constructor, read-only properties and
///   its `__match_args__`; `raw` and `line` say where it was read;
/// - the unknown frame: `$unknown` wraps [`hep_core::UnknownFrame`], its `type` is
///   [`UNKNOWN_TYPE`] and its fields (the wire `frame_type`, `turn_id`, `raw`) are
///   properties; only parsing makes one.
///
/// Every class has `to_json()`, `to_dict()`, `==` and a `repr`. Also defined:
/// `frame_to_py` and `frame_from_py` (a core frame to its Python object and back) and
/// `register_frames`.
macro_rules! frame_classes {
    (
        known {$(
            $(#[$doc:meta])*
            $class:ident $name:literal $wire:literal $variant:ident($inner:ident) {
                $( $(#[$field_doc:meta])* $field:ident ),* $(,)?
            }
        )*}
        unknown {
            $(#[$unknown_doc:meta])*
            $unknown:ident $unknown_name:literal {
                $( $(#[$unknown_field_doc:meta])* $unknown_field:ident ),* $(,)?
            }
        }
    ) => {
        $(
            $(#[$doc])*
            #[::pyo3::pyclass(frozen, module = "hep", name = $name)]
            pub(crate) struct $class {
                pub(crate) inner: $inner,
                pub(crate) raw: Option<String>,
                pub(crate) line: Option<u64>,
            }

            #[::pyo3::pymethods]
            impl $class {
                #[new]
                #[pyo3(signature = (**kwargs))]
                fn new(kwargs: Option<&::pyo3::Bound<'_, ::pyo3::types::PyDict>>) -> ::pyo3::PyResult<Self> {
                    $crate::boundary::guard(|| {
                        $crate::fields::refuse_unknown(kwargs, $name, &[$(stringify!($field)),*])?;
                        let inner = $inner { $($field: $crate::fields::take(kwargs, stringify!($field))?),* };
                        Ok(Self { inner, raw: None, line: None })
                    })
                }

                #[classattr]
                fn __match_args__(py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::types::PyTuple>> {
                    Ok(::pyo3::types::PyTuple::new(py, [$(stringify!($field)),*])?.unbind())
                }

                $(
                    $(#[$field_doc])*
                    #[getter]
                    fn $field(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                        $crate::boundary::guard(|| $crate::fields::Field::to_py(&self.inner.$field, py))
                    }
                )*

                /// The wire `type`.
                #[getter(r#type)]
                fn frame_type(&self, py: ::pyo3::Python<'_>) -> ::pyo3::Py<::pyo3::types::PyString> {
                    ::pyo3::intern!(py, $wire).clone().unbind()
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
                fn to_json(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                    let frame = ::hep_core::Frame::$variant(self.inner.clone());
                    $crate::boundary::guard(|| $crate::frames::frame_line(py, &frame))
                }

                /// The frame as a dict, keys in the protocol's order.
                fn to_dict(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                    let frame = ::hep_core::Frame::$variant(self.inner.clone());
                    $crate::boundary::guard(|| $crate::frames::frame_dict(py, &frame))
                }

                fn __eq__(&self, other: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> bool {
                    other.cast::<Self>().is_ok_and(|o| o.get().inner == self.inner)
                }

                fn __repr__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                    $crate::boundary::guard(|| {
                        let fields = [$((stringify!($field), $crate::fields::Field::to_py(&self.inner.$field, py)?)),*];
                        $crate::fields::repr_of(py, $name, &fields)
                    })
                }
            }
        )*

        $(#[$unknown_doc])*
        #[::pyo3::pyclass(frozen, module = "hep", name = $unknown_name)]
        pub(crate) struct $unknown {
            pub(crate) inner: ::hep_core::UnknownFrame,
            pub(crate) line: Option<u64>,
        }

        #[::pyo3::pymethods]
        impl $unknown {
            #[classattr]
            fn __match_args__(py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::types::PyTuple>> {
                Ok(::pyo3::types::PyTuple::new(py, [$(stringify!($unknown_field)),*])?.unbind())
            }

            $(
                $(#[$unknown_field_doc])*
                #[getter]
                fn $unknown_field(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                    $crate::boundary::guard(|| $crate::fields::Field::to_py(&self.inner.$unknown_field, py))
                }
            )*

            /// `"unknown"`: a frame type this version does not know (its wire type is
            /// `frame_type`).
            #[getter(r#type)]
            fn frame_kind(&self) -> &'static str {
                $crate::frames::UNKNOWN_TYPE
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
            fn to_dict(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                let frame = ::hep_core::Frame::Unknown(self.inner.clone());
                $crate::boundary::guard(|| $crate::frames::frame_dict(py, &frame))
            }

            fn __eq__(&self, other: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> bool {
                other.cast::<Self>().is_ok_and(|o| o.get().inner == self.inner)
            }

            fn __repr__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                $crate::boundary::guard(|| {
                    use $crate::fields::Field;
                    let fields = [$((stringify!($unknown_field), self.inner.$unknown_field.to_py(py)?)),*];
                    $crate::fields::repr_of(py, $unknown_name, &fields)
                })
            }
        }

        /// A core frame (with its line and line number) as an instance of its Python class.
        pub(crate) fn frame_to_py(
            py: ::pyo3::Python<'_>,
            frame: ::hep_core::Frame,
            raw: Option<String>,
            line: Option<u64>,
        ) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
            use $crate::untrack::untrack;
            Ok(match frame {
                $(::hep_core::Frame::$variant(inner) => {
                    untrack(::pyo3::Bound::new(py, $class { inner, raw, line })?).into_any().unbind()
                })*
                ::hep_core::Frame::Unknown(inner) => {
                    untrack(::pyo3::Bound::new(py, $unknown { inner, line })?).into_any().unbind()
                }
            })
        }

        /// The core frame behind a Python frame object.
        pub(crate) fn frame_from_py(ob: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> ::pyo3::PyResult<::hep_core::Frame> {
            use ::pyo3::types::PyAnyMethods;
            $(
                if let Ok(f) = ob.cast::<$class>() {
                    return Ok(::hep_core::Frame::$variant(f.get().inner.clone()));
                }
            )*
            if let Ok(f) = ob.cast::<$unknown>() {
                return Ok(::hep_core::Frame::Unknown(f.get().inner.clone()));
            }
            let name = ::pyo3::types::PyTypeMethods::name(&ob.get_type())?;
            Err(::pyo3::exceptions::PyTypeError::new_err(format!("expected a hep frame, got {name}")))
        }

        /// Adds the frame classes to the module.
        pub(crate) fn register_frames(m: &::pyo3::Bound<'_, ::pyo3::types::PyModule>) -> ::pyo3::PyResult<()> {
            use ::pyo3::types::PyModuleMethods;
            $(m.add_class::<$class>()?;)*
            m.add_class::<$unknown>()
        }
    };
}

pub(crate) use frame_classes;
