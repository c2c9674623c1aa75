//! `Reader` hands each frame over the moment its line is complete, without reading ahead.

use hep_core::{ErrorKind, Event, Reader, Verdict};
use std::cell::Cell;
use std::io::{BufReader, Read};
use std::rc::Rc;

/// Serves one chunk per `read` call and counts the calls, like a pipe written line by line.
struct Pipe {
    chunks: Vec<&'static [u8]>,
    reads: Rc<Cell<usize>>,
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reads.set(self.reads.get() + 1);
        if self.chunks.is_empty() {
            return Ok(0);
        }
        let mut chunk = self.chunks.remove(0);
        chunk.read(buf)
    }
}

const HEADER: &[u8] = b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n";
const START: &[u8] = b"{\"type\":\"agent_start\",\"turn_id\":1}\n";
const DONE: &[u8] = b"{\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"hi\",\"tool_results\":[],\"usage\":{\"input\":1,\"output\":1,\"cost\":0.0},\"stop_reason\":\"stop\"}\n";

#[test]
fn each_frame_is_handed_over_before_the_next_read() {
    let reads = Rc::new(Cell::new(0));
    let pipe = Pipe { chunks: vec![HEADER, &START[..10], &START[10..], DONE], reads: reads.clone() };
    let mut reader = Reader::new(BufReader::new(pipe));
    let expected_reads = [1, 3, 4];
    for (i, want) in expected_reads.into_iter().enumerate() {
        let event = reader.next().expect("an event").expect("no error");
        assert!(matches!(event, Event::Frame(_)), "event {i}: {event:?}");
        assert_eq!(reads.get(), want, "frame {i} arrived after {} reads", reads.get());
    }
    assert!(reader.next().is_none());
    let result = reader.finish(Some(0));
    assert_eq!(result.verdict, Verdict::Ok);
    assert_eq!(result.run.answer.as_deref(), Some("hi"));
}

#[test]
fn a_refused_version_ends_the_iteration_with_an_error() {
    let input: &[u8] = b"{\"type\":\"hep_header\",\"hep\":\"v2\",\"fah\":\"1\",\"session\":\"s\"}\n{\"type\":\"agent_start\",\"turn_id\":1}\n";
    let mut reader = Reader::new(input);
    assert!(matches!(reader.next(), Some(Ok(Event::Frame(_)))));
    assert!(matches!(reader.next(), Some(Ok(Event::Violation(_)))));
    let err = reader.next().expect("an item").expect_err("the halt");
    assert_eq!((err.kind(), err.line()), (ErrorKind::UnsupportedVersion, 1));
    assert!(reader.next().is_none());
    assert_eq!(reader.finish(None).verdict, Verdict::ProtocolError);
}

#[test]
fn a_truncated_tail_is_reported_at_end_of_input() {
    let input = [HEADER, START, &DONE[..20]].concat();
    let events: Vec<_> = Reader::new(&input[..]).collect::<Result<_, _>>().expect("no error");
    let Some(Event::Skipped(err)) = events.last() else { panic!("{events:?}") };
    assert_eq!((err.kind(), err.line()), (ErrorKind::Truncated, 3));
}
