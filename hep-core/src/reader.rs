//! A blocking reader for Rust users: a [`Stream`] around any [`BufRead`].

use crate::error::Error;
use crate::event::Event;
use crate::stream::{Stream, StreamOptions};
use crate::verdict::RunResult;
use std::collections::VecDeque;
use std::io::{BufRead, ErrorKind as IoKind};

/// Iterates the events of a HEP stream read from `R`, handing over each frame the moment
/// its line is complete (it never waits for a buffer to fill).
///
/// Items are `Ok(event)`; an I/O error or a halt ([`Event::Halted`]) is yielded as `Err`
/// and ends the iteration. Call [`Reader::finish`] afterwards for the [`RunResult`].
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    stream: Stream,
    pending: VecDeque<Event>,
    done: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader over `inner` with default options.
    pub fn new(inner: R) -> Self {
        Self::with_options(inner, StreamOptions::default())
    }

    /// A reader over `inner` with `options`.
    pub fn with_options(inner: R, options: StreamOptions) -> Self {
        Self { inner, stream: Stream::new(options), pending: VecDeque::new(), done: false }
    }

    /// The stream being read (for the run reduced so far).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Ends reading and returns the run's result for the harness's `exit_code`.
    pub fn finish(self, exit_code: Option<i32>) -> RunResult {
        self.stream.finish(exit_code)
    }

    fn fill(&mut self) -> Result<(), Error> {
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == IoKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if chunk.is_empty() {
                self.done = true;
                self.pending.extend(self.stream.end_input());
                return Ok(());
            }
            let len = chunk.len();
            let events = self.stream.feed(chunk);
            self.inner.consume(len);
            self.pending.extend(events);
            if !self.pending.is_empty() {
                return Ok(());
            }
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Event, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.pending.pop_front() {
                Some(Event::Halted(err)) => {
                    self.done = true;
                    self.pending.clear();
                    return Some(Err(err));
                }
                Some(event) => return Some(Ok(event)),
                None if self.done => return None,
                None => {
                    if let Err(err) = self.fill() {
                        self.done = true;
                        return Some(Err(err));
                    }
                }
            }
        }
    }
}
