//! Keeping a panic from crossing into another language: every binding runs each entry
//! point's body through [`catch_panic`] and turns the message into its own error.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `body`; a panic inside it comes back as `Err` with the message
/// `hep internal error: <the panic's message>`.
pub fn catch_panic<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| panic_message(payload.as_ref()))
}

/// The text of a panic's payload, as the error says it.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    format!("hep internal error: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_comes_back_as_its_message_and_a_value_passes_through() {
        assert_eq!(catch_panic(|| 7), Ok(7));
        assert_eq!(catch_panic(|| -> u8 { panic!("boom") }), Err("hep internal error: boom".to_owned()));
        assert_eq!(catch_panic(|| -> u8 { panic!("{}", 42) }), Err("hep internal error: 42".to_owned()));
        let silent = catch_panic(|| -> u8 { std::panic::panic_any(7_u8) });
        assert_eq!(silent, Err("hep internal error: a panic without a message".to_owned()));
    }
}
