// Terminal sanitising: the core's, for text from a stream before it is printed.

/// `text` with every character that could drive a terminal (C0 and C1 controls other than
/// `\n` and `\t`, DEL, bidirectional overrides and isolates) turned into a visible escape
/// (`ESC` becomes `\x1b`). Pass stream text through it before printing it.
public func sanitize(_ text: String) -> String {
    sanitizeForTerminal(text: text)
}
