//! The swift binding's generated files.

use crate::Generated;
use crate::model::Model;

/// The files of the swift binding.
pub(crate) fn files(_model: &Model) -> Vec<Generated> {
    Vec::new()
}
