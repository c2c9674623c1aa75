//! Frames that borrow their text from the line they were read from.
//!
//! A [`FrameRef`] is the same [`Frame`] with `Cow<'a, str>` text fields: a string with no
//! escape is a slice of the line, and only one that needed unescaping is owned. Reading a
//! stream this way ([`Stream::feed_borrowed`](crate::Stream::feed_borrowed)) spares one
//! allocation and copy per text field; [`Frame::into_owned`] turns a borrowed frame into an
//! owned one when it must outlive the line.

use crate::frame::*;
use std::borrow::Cow;

/// A frame whose text fields borrow from its line where no unescaping was needed.
pub type FrameRef<'a> = Frame<Cow<'a, str>>;

impl<S: Into<String>> Frame<S> {
    /// The same frame with every text field owned (a borrowed field is copied, an owned
    /// one moved; on an owned [`Frame`] this changes nothing).
    pub fn into_owned(self) -> Frame {
        self.map_text(Into::into)
    }
}

impl<S> Frame<S> {
    /// The same frame with `f` applied to every text field, in the wire's order (e.g.
    /// `Cow::Owned` makes an owned frame a [`FrameRef`] without copying).
    pub fn map_text<T>(self, mut f: impl FnMut(S) -> T) -> Frame<T> {
        match self {
            Self::HepHeader(h) => Frame::HepHeader(HepHeader { hep: f(h.hep), fah: f(h.fah), session: f(h.session) }),
            Self::AgentStart(r) => Frame::AgentStart(r),
            Self::MessageStart(m) => Frame::MessageStart(MessageStart { turn_id: m.turn_id, role: f(m.role) }),
            Self::MessageDelta(m) => Frame::MessageDelta(MessageDelta { turn_id: m.turn_id, delta: f(m.delta) }),
            Self::ToolStart(t) => Frame::ToolStart(ToolStart {
                turn_id: t.turn_id,
                id: f(t.id),
                name: f(t.name),
                args_summary: f(t.args_summary),
            }),
            Self::ToolDelta(t) => Frame::ToolDelta(ToolDelta { turn_id: t.turn_id, id: f(t.id), update: f(t.update) }),
            Self::ToolLiveness(l) => Frame::ToolLiveness(ToolLiveness {
                turn_id: l.turn_id,
                id: f(l.id),
                name: f(l.name),
                action: f(l.action),
                elapsed_ms: l.elapsed_ms,
                output_bytes: l.output_bytes,
                detail: l.detail.map(&mut f),
            }),
            Self::TurnDone(d) => Frame::TurnDone(TurnDone {
                turn_id: d.turn_id,
                message: f(d.message),
                tool_results: d
                    .tool_results
                    .into_iter()
                    .map(|r| ToolResult { id: f(r.id), name: f(r.name), ok: r.ok, text: f(r.text) })
                    .collect(),
                usage: d.usage,
                stop_reason: f(d.stop_reason),
            }),
            Self::TurnError(e) => Frame::TurnError(TurnError { turn_id: e.turn_id, error: f(e.error), fatal: e.fatal }),
            Self::Cancelled(r) => Frame::Cancelled(r),
            Self::CompactionStart(r) => Frame::CompactionStart(r),
            Self::CompactionEnd(r) => Frame::CompactionEnd(r),
            Self::Unknown(u) => {
                Frame::Unknown(UnknownFrame { frame_type: f(u.frame_type), turn_id: u.turn_id, raw: f(u.raw) })
            }
        }
    }
}
