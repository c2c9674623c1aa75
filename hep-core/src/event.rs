//! What a [`Stream`](crate::Stream) hands over: frames with their lines, violations,
//! skipped lines and the halt, owned ([`Event`]) or borrowing from the fed bytes
//! ([`EventRef`]).

use crate::error::Error;
use crate::frame::Frame;
use crate::violation::Violation;
use std::borrow::Cow;

/// A decoded frame with its line.
///
/// `S` is the string type of the line and of the frame's text fields: `String` (the
/// default), or `Cow<'a, str>` in a [`ReceivedRef`].
#[derive(Debug, Clone, PartialEq)]
pub struct Received<S = String> {
    /// 1-based line number.
    pub line: u64,
    /// The line exactly as read (without the line ending).
    pub raw: S,
    /// The decoded frame.
    pub frame: Frame<S>,
}

/// What a chunk of input completed, in stream order.
///
/// `S` is the string type of a frame's line and text fields: `String` (the default), or
/// `Cow<'a, str>` in an [`EventRef`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event<S = String> {
    /// A frame, the moment its line is complete.
    Frame(Received<S>),
    /// A breach of a consumer guarantee (reported after the frame that caused it).
    Violation(Violation),
    /// A line that could not be read (malformed, too long, truncated); reading goes on.
    Skipped(Error),
    /// The stream stopped: strict mode met an error, or the header's version is refused.
    /// Always the last event; later input is ignored.
    Halted(Error),
}

/// A frame and its line, both borrowing from the bytes they were read from (see
/// [`Stream::feed_borrowed`](crate::Stream::feed_borrowed)): `raw` is always a slice of
/// them, and each text field too unless it needed unescaping.
pub type ReceivedRef<'a> = Received<Cow<'a, str>>;

/// An event whose frame borrows from the fed bytes (see
/// [`Stream::feed_borrowed`](crate::Stream::feed_borrowed)).
pub type EventRef<'a> = Event<Cow<'a, str>>;

impl<S> Received<S> {
    /// The same frame and line with `f` applied to the line and every text field (see
    /// [`Frame::map_text`]).
    pub fn map_text<T>(self, mut f: impl FnMut(S) -> T) -> Received<T> {
        Received { line: self.line, raw: f(self.raw), frame: self.frame.map_text(f) }
    }
}

impl<S: Into<String>> Received<S> {
    /// The same frame and line, owned.
    pub fn into_owned(self) -> Received {
        self.map_text(Into::into)
    }
}

impl<S> Event<S> {
    /// The same event with `f` applied to a frame's line and text fields (e.g. `Cow::Owned`
    /// makes an owned event an [`EventRef`] without copying).
    pub fn map_text<T>(self, f: impl FnMut(S) -> T) -> Event<T> {
        match self {
            Self::Frame(received) => Event::Frame(received.map_text(f)),
            Self::Violation(v) => Event::Violation(v),
            Self::Skipped(e) => Event::Skipped(e),
            Self::Halted(e) => Event::Halted(e),
        }
    }
}

impl<S: Into<String>> Event<S> {
    /// The same event, owned: what [`Stream::feed_with`](crate::Stream::feed_with) would
    /// have handed over.
    pub fn into_owned(self) -> Event {
        self.map_text(Into::into)
    }
}
