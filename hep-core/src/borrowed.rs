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
        match self {
            Self::HepHeader(h) => {
                Frame::HepHeader(HepHeader { hep: h.hep.into(), fah: h.fah.into(), session: h.session.into() })
            }
            Self::AgentStart(f) => Frame::AgentStart(f),
            Self::MessageStart(m) => Frame::MessageStart(MessageStart { turn_id: m.turn_id, role: m.role.into() }),
            Self::MessageDelta(m) => Frame::MessageDelta(MessageDelta { turn_id: m.turn_id, delta: m.delta.into() }),
            Self::ToolStart(t) => Frame::ToolStart(ToolStart {
                turn_id: t.turn_id,
                id: t.id.into(),
                name: t.name.into(),
                args_summary: t.args_summary.into(),
            }),
            Self::ToolDelta(t) => {
                Frame::ToolDelta(ToolDelta { turn_id: t.turn_id, id: t.id.into(), update: t.update.into() })
            }
            Self::ToolLiveness(l) => Frame::ToolLiveness(ToolLiveness {
                turn_id: l.turn_id,
                id: l.id.into(),
                name: l.name.into(),
                action: l.action.into(),
                elapsed_ms: l.elapsed_ms,
                output_bytes: l.output_bytes,
                detail: l.detail.map(Into::into),
            }),
            Self::TurnDone(d) => Frame::TurnDone(TurnDone {
                turn_id: d.turn_id,
                message: d.message.into(),
                tool_results: d
                    .tool_results
                    .into_iter()
                    .map(|r| ToolResult { id: r.id.into(), name: r.name.into(), ok: r.ok, text: r.text.into() })
                    .collect(),
                usage: d.usage,
                stop_reason: d.stop_reason.into(),
            }),
            Self::TurnError(e) => {
                Frame::TurnError(TurnError { turn_id: e.turn_id, error: e.error.into(), fatal: e.fatal })
            }
            Self::Cancelled(f) => Frame::Cancelled(f),
            Self::CompactionStart(f) => Frame::CompactionStart(f),
            Self::CompactionEnd(f) => Frame::CompactionEnd(f),
            Self::Unknown(u) => {
                Frame::Unknown(UnknownFrame { frame_type: u.frame_type.into(), turn_id: u.turn_id, raw: u.raw.into() })
            }
        }
    }
}
