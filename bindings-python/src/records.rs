//! The records inside frames (`hep.Usage`, `hep.ToolResult`): one frozen class per record,
//! made by [`record_classes!`] from the list in `frame_model.rs` (generated from hep-core's
//! frame model by `make codegen`). Each wraps the core struct; fields are read on access.

/// The Python class of each record: `$class` wraps the core struct `$inner` and is
/// `hep.$name`; its fields, in the wire's order, are keyword arguments of its constructor,
/// read-only properties and its `__match_args__`. It has `to_dict()`, `==` and a `repr`.
/// The core struct is a [`Field`](crate::fields::Field) too: a record field of a frame
/// comes to Python as this class, and is taken from Python as one or as a mapping.
macro_rules! record_classes {
    ($(
        $(#[$doc:meta])*
        $class:ident $name:literal $inner:ident { $( $(#[$field_doc:meta])* $field:ident ),* $(,)? }
    )*) => {
        $(
            $(#[$doc])*
            #[::pyo3::pyclass(frozen, module = "hep", name = $name)]
            pub(crate) struct $class(pub(crate) $inner);

            #[::pyo3::pymethods]
            impl $class {
                #[new]
                #[pyo3(signature = (**kwargs))]
                fn new(kwargs: Option<&::pyo3::Bound<'_, ::pyo3::types::PyDict>>) -> ::pyo3::PyResult<Self> {
                    $crate::boundary::guard(|| {
                        $crate::fields::refuse_unknown(kwargs, $name, &[$(stringify!($field)),*])?;
                        Ok(Self($inner { $($field: $crate::fields::take(kwargs, stringify!($field))?),* }))
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
                        $crate::boundary::guard(|| $crate::fields::Field::to_py(&self.0.$field, py))
                    }
                )*

                /// The record as a dict, keys in the protocol's order.
                fn to_dict(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::types::PyDict>> {
                    use ::pyo3::types::PyDictMethods;
                    use $crate::fields::Field;
                    $crate::boundary::guard(|| {
                        let dict = ::pyo3::types::PyDict::new(py);
                        $(dict.set_item(stringify!($field), self.0.$field.to_py(py)?)?;)*
                        Ok(dict.unbind())
                    })
                }

                fn __eq__(&self, other: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> bool {
                    other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
                }

                fn __repr__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                    $crate::boundary::guard(|| {
                        let fields = [$((stringify!($field), $crate::fields::Field::to_py(&self.0.$field, py)?)),*];
                        $crate::fields::repr_of(py, $name, &fields)
                    })
                }
            }

            impl $crate::fields::Field for $inner {
                fn to_py(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                    let object = ::pyo3::Bound::new(py, $class(::std::clone::Clone::clone(self)))?;
                    Ok(::pyo3::Bound::into_any($crate::untrack::untrack(object)).unbind())
                }
                fn from_py(ob: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> ::pyo3::PyResult<Self> {
                    if let Ok(record) = ob.cast::<$class>() {
                        return Ok(::std::clone::Clone::clone(&record.get().0));
                    }
                    let dict = $crate::fields::as_dict(ob, concat!("expected a hep.", $name, " or a mapping"))?;
                    let dict = Some(&dict);
                    Ok($inner { $($field: $crate::fields::take(dict, stringify!($field))?),* })
                }
            }
        )*

        /// Adds the record classes to the module.
        pub(crate) fn register_records(m: &::pyo3::Bound<'_, ::pyo3::types::PyModule>) -> ::pyo3::PyResult<()> {
            $(::pyo3::types::PyModuleMethods::add_class::<$class>(m)?;)*
            Ok(())
        }
    };
}

pub(crate) use record_classes;
