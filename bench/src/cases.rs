//! The measured workloads. Each returns the [`Work`] it did; the harness checks the frame
//! count, and every workload fails loudly instead of measuring a failure.

use crate::Failure;
use crate::corpus::Corpus;
use crate::mirror::SerdeFrame;
use hep_core::lines::{DEFAULT_MAX_LINE, Line, LineSplitter};
use hep_core::run::{Limits, Run};
use hep_core::validate::Validator;
use hep_core::{Event, EventRef, Frame, Stream, StreamOptions, Verdict};
use std::hint::black_box;

/// Feed size of the stream path, as a pipe reader would hand it over.
pub(crate) const CHUNK: usize = 64 << 10;

/// What one workload did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Work {
    /// Frames (lines) handled.
    pub(crate) frames: u64,
    /// Bytes read (parsers) or written (encoders).
    pub(crate) bytes: u64,
}

/// How the core path hands events over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// `Stream::feed_with`: each event goes to a callback the moment it exists.
    Callback,
    /// `Stream::feed_into`: the events of a 64 KiB chunk are collected in a `Vec`, then drained.
    Batched,
}

/// a. The core over 64 KiB chunks, then `finish(Some(0))`: split, decode, validate, reduce.
pub(crate) fn core_stream(corpus: &Corpus, delivery: Delivery) -> Result<Work, Failure> {
    let mut frames = 0;
    let mut unexpected = None;
    let mut batch = Vec::new();
    for bytes in &corpus.streams {
        let mut stream = Stream::new(StreamOptions::default());
        let mut take = |event| match event {
            Event::Frame(received) => {
                frames += 1;
                black_box(&received);
            }
            other => {
                unexpected.get_or_insert(other);
            }
        };
        for chunk in bytes.chunks(CHUNK) {
            match delivery {
                Delivery::Callback => stream.feed_with(chunk, &mut take),
                Delivery::Batched => {
                    stream.feed_into(chunk, &mut batch);
                    batch.drain(..).for_each(&mut take);
                }
            }
        }
        if let Some(other) = unexpected.take() {
            return Err(Failure(format!("{}: unexpected event {other:?}", corpus.name)));
        }
        clean(corpus, stream)?;
    }
    Ok(Work { frames, bytes: corpus.bytes })
}

/// a3. The core's borrowed path over 64K chunks (`Stream::feed_borrowed`), reading every
/// field of each frame as a supervisor would (string lengths and integers summed), then
/// `finish(Some(0))`.
pub(crate) fn core_borrowed(corpus: &Corpus) -> Result<Work, Failure> {
    let mut frames = 0;
    let mut unexpected = None;
    let mut sum = 0u64;
    for bytes in &corpus.streams {
        let mut stream = Stream::new(StreamOptions::default());
        for chunk in bytes.chunks(CHUNK) {
            stream.feed_borrowed(chunk, |event| match event {
                EventRef::Frame(received) => {
                    frames += 1;
                    sum = sum.wrapping_add(received.line).wrapping_add(read_fields(&received.frame));
                }
                other => {
                    unexpected.get_or_insert(other.into_owned());
                }
            });
        }
        if let Some(other) = unexpected.take() {
            return Err(Failure(format!("{}: unexpected event {other:?}", corpus.name)));
        }
        clean(corpus, stream)?;
    }
    black_box(sum);
    Ok(Work { frames, bytes: corpus.bytes })
}

/// Every field of `frame`, read: string lengths, integers, flags and the cost, summed.
fn read_fields<S: AsRef<str>>(frame: &Frame<S>) -> u64 {
    let len = |s: &S| s.as_ref().len() as u64;
    match frame {
        Frame::HepHeader(h) => len(&h.hep) + len(&h.fah) + len(&h.session),
        Frame::AgentStart(f) => f.turn_id,
        Frame::MessageStart(m) => m.turn_id + len(&m.role),
        Frame::MessageDelta(m) => m.turn_id + len(&m.delta),
        Frame::ToolStart(t) => t.turn_id + len(&t.id) + len(&t.name) + len(&t.args_summary),
        Frame::ToolDelta(t) => t.turn_id + len(&t.id) + len(&t.update),
        Frame::ToolLiveness(l) => {
            let optional = l.output_bytes.unwrap_or(0) + l.detail.as_ref().map_or(0, len);
            l.turn_id + len(&l.id) + len(&l.name) + len(&l.action) + l.elapsed_ms + optional
        }
        Frame::TurnDone(d) => {
            let results: u64 =
                d.tool_results.iter().map(|r| len(&r.id) + len(&r.name) + u64::from(r.ok) + len(&r.text)).sum();
            let usage = d.usage.input + d.usage.output + d.usage.cost.to_bits();
            d.turn_id + len(&d.message) + results + usage + len(&d.stop_reason)
        }
        Frame::TurnError(e) => e.turn_id + len(&e.error) + u64::from(e.fatal),
        Frame::Cancelled(f) | Frame::CompactionStart(f) => f.turn_id,
        Frame::CompactionEnd(c) => c.turn_id + c.tokens_freed,
        Frame::Unknown(u) => len(&u.frame_type) + u.turn_id.unwrap_or(0) + len(&u.raw),
    }
}

/// Ends `stream` and checks that the corpus read as one clean, conforming run.
fn clean(corpus: &Corpus, stream: Stream) -> Result<(), Failure> {
    let result = stream.finish(Some(0));
    let clean = result.conforms && result.violation_count == 0 && result.skipped_count == 0;
    if result.verdict != Verdict::Ok || !clean || result.run.frames != result.lines {
        return Err(Failure(format!(
            "{}: stream verdict {} (conforms {}, {} violations, {} skipped, {} frames of {} lines): {:?}",
            corpus.name,
            result.verdict.as_str(),
            result.conforms,
            result.violation_count,
            result.skipped_count,
            result.run.frames,
            result.lines,
            result.reasons
        )));
    }
    Ok(())
}

fn text(corpus: &Corpus, bytes: &[u8]) -> Result<String, Failure> {
    String::from_utf8(bytes.to_vec()).map_err(|e| Failure(format!("{}: {e}", corpus.name)))
}

/// b. `str::lines` + `serde_json::from_str` into the derived, internally tagged enum.
pub(crate) fn serde_typed(corpus: &Corpus) -> Result<Work, Failure> {
    let mut frames = 0;
    for bytes in &corpus.streams {
        let text = std::str::from_utf8(bytes).map_err(|e| Failure(format!("{}: {e}", corpus.name)))?;
        for line in text.lines() {
            let frame: SerdeFrame = serde_json::from_str(line)?;
            if frame == SerdeFrame::Unknown {
                return Err(Failure(format!("{}: serde mirror read an unknown frame: {line}", corpus.name)));
            }
            black_box(&frame);
            frames += 1;
        }
    }
    Ok(Work { frames, bytes: corpus.bytes })
}

/// c. `str::lines` + `serde_json::from_str::<serde_json::Value>`.
pub(crate) fn serde_value(corpus: &Corpus) -> Result<Work, Failure> {
    let mut frames = 0;
    for bytes in &corpus.streams {
        let text = std::str::from_utf8(bytes).map_err(|e| Failure(format!("{}: {e}", corpus.name)))?;
        for line in text.lines() {
            let value: serde_json::Value = serde_json::from_str(line)?;
            if !value.is_object() {
                return Err(Failure(format!("{}: not an object: {line}", corpus.name)));
            }
            black_box(&value);
            frames += 1;
        }
    }
    Ok(Work { frames, bytes: corpus.bytes })
}

/// d1. `hep_core::encode` of every frame.
pub(crate) fn core_encode(frames: &[Frame]) -> Result<Work, Failure> {
    let mut bytes = 0;
    for frame in frames {
        let line = hep_core::encode(frame)?;
        bytes += line.len() as u64;
        black_box(line);
    }
    Ok(Work { frames: frames.len() as u64, bytes })
}

/// d2. `serde_json::to_string` of every frame of the derived enum.
pub(crate) fn serde_encode(frames: &[SerdeFrame]) -> Result<Work, Failure> {
    let mut bytes = 0;
    for frame in frames {
        let line = serde_json::to_string(frame)?;
        bytes += line.len() as u64;
        black_box(line);
    }
    Ok(Work { frames: frames.len() as u64, bytes })
}

/// Breakdown: how far down the stream path a stage goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// `LineSplitter` alone over 64 KiB chunks.
    Split,
    /// Splitting + `hep_core::decode` per line.
    Decode,
    /// Splitting + decoding + `Validator::check` + `Run::apply` (the stream path minus its
    /// per-frame `raw` copy and event plumbing).
    Reduce,
}

/// Runs the stream path's parts by hand, up to `stage`.
pub(crate) fn stage(corpus: &Corpus, stage: Stage) -> Result<Work, Failure> {
    let mut frames = 0;
    let mut failure = None;
    let mut found = Vec::new();
    for bytes in &corpus.streams {
        let mut lines = LineSplitter::new(DEFAULT_MAX_LINE);
        let mut validator = Validator::new();
        let mut run = Run::new(Limits::default());
        let mut on_line = |line: Line<'_>| {
            let Line::Complete { number, bytes, .. } = line else {
                failure.get_or_insert_with(|| format!("{}: skipped line {line:?}", corpus.name));
                return;
            };
            frames += 1;
            if stage == Stage::Split {
                black_box(bytes);
                return;
            }
            match hep_core::decode(bytes) {
                Ok(frame) if stage == Stage::Reduce => {
                    validator.check(number, &frame, &mut found);
                    run.apply(&frame);
                    found.clear();
                }
                Ok(frame) => {
                    black_box(frame);
                }
                Err(e) => {
                    failure.get_or_insert_with(|| format!("{}: line {number}: {e}", corpus.name));
                }
            }
        };
        for chunk in bytes.chunks(CHUNK) {
            lines.push(chunk, &mut on_line);
        }
        lines.finish(&mut on_line);
        black_box(&run);
    }
    match failure {
        Some(message) => Err(Failure(message)),
        None => Ok(Work { frames, bytes: corpus.bytes }),
    }
}

/// Every frame of the corpus, decoded by the core, plus checks that make the numbers mean
/// something: each frame re-encodes to its exact line, and the serde mirror reads the same
/// count. Returns the core frames, the serde frames and how many serde lines came out identical.
pub(crate) fn decode_all(corpus: &Corpus) -> Result<(Vec<Frame>, Vec<SerdeFrame>, u64), Failure> {
    let mut core = Vec::with_capacity(corpus.frames as usize);
    let mut serde = Vec::with_capacity(corpus.frames as usize);
    let mut identical = 0;
    for bytes in &corpus.streams {
        let text = text(corpus, bytes)?;
        for line in text.lines() {
            let frame = hep_core::decode(line.as_bytes())?;
            let again = hep_core::encode(&frame)?;
            if again != line {
                return Err(Failure(format!("{}: encode is not byte-exact:\n{line}\n{again}", corpus.name)));
            }
            let mirrored: SerdeFrame = serde_json::from_str(line)?;
            if serde_json::to_string(&mirrored)? == line {
                identical += 1;
            }
            core.push(frame);
            serde.push(mirrored);
        }
    }
    Ok((core, serde, identical))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{DELTA_HEAVY, TOOL_HEAVY, generate};

    #[test]
    fn corpus_is_deterministic_and_every_workload_agrees() {
        for profile in [DELTA_HEAVY, TOOL_HEAVY] {
            let corpus = generate(&profile, 0.02).unwrap();
            assert_eq!(generate(&profile, 0.02).unwrap().streams, corpus.streams);
            let (frames, serde, identical) = decode_all(&corpus).unwrap();
            assert_eq!(identical, corpus.frames);
            for work in [
                core_stream(&corpus, Delivery::Callback),
                core_stream(&corpus, Delivery::Batched),
                core_borrowed(&corpus),
                serde_typed(&corpus),
                serde_value(&corpus),
                stage(&corpus, Stage::Reduce),
            ] {
                assert_eq!(work.unwrap().frames, corpus.frames);
            }
            assert_eq!(core_encode(&frames).unwrap().bytes, corpus.bytes - corpus.frames);
            assert_eq!(serde_encode(&serde).unwrap().bytes, corpus.bytes - corpus.frames);
        }
    }
}
