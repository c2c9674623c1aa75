//! Terminal sanitising (`hep_core::sanitize`): Swift's `sanitize(_:)`.

/// `text` with every terminal-driving character turned into a visible escape.
#[uniffi::export]
pub fn sanitize_for_terminal(text: String) -> String {
    match hep_core::sanitize::sanitize(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(clean) => clean,
    }
}
