//! The byte scan shared by the decoder and the encoder: where does a JSON string's plain
//! run end? Eight bytes at a time as one word (SWAR), or a 16-byte block as two: strings in
//! real streams are short prose, or log lines with an escape every dozen bytes or so
//! (15 bytes apart on the tool-heavy bench corpus), where a wider vector would rarely skip
//! more, and the crate forbids the `unsafe` that `core::arch` loads need. The same code
//! runs on every target.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
/// Bytes per block.
pub(crate) const BLOCK: usize = 16;

/// High bit of each byte of `w` that is zero, exact for the lowest such byte (bits above
/// a zero byte may be set spuriously, which `trailing_zeros` never reads).
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// High bit of each byte of `w` that is `"`, `\` or below 0x20, exact for the lowest one.
fn special_bytes(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    zero_bytes(w ^ (ONES * u64::from(b'"'))) | zero_bytes(w ^ (ONES * u64::from(b'\\'))) | control
}

fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// Index of the first byte of `block` that a JSON string cannot hold raw.
#[inline]
pub(crate) fn first_special_in_block(block: &[u8; BLOCK]) -> Option<usize> {
    let (low, high) = block.split_at(8);
    let word = |half: &[u8]| u64::from_le_bytes(half.try_into().unwrap_or([0x20; 8]));
    let low = special_bytes(word(low));
    if low != 0 {
        return Some((low.trailing_zeros() / 8) as usize);
    }
    let high = special_bytes(word(high));
    (high != 0).then(|| 8 + (high.trailing_zeros() / 8) as usize)
}

/// Index of the first byte of `bytes` that a JSON string cannot hold raw: `"`, `\\`, or a
/// control character below 0x20.
#[inline]
pub(crate) fn find_special(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let mask = special_bytes(u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
        if mask != 0 {
            return Some(offset + (mask.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    let tail = words.remainder().len();
    match bytes.last_chunk::<8>() {
        // The last 8 bytes as one word, overlapping bytes already scanned: their bits are
        // masked off.
        Some(last) if tail > 0 => {
            let mask = special_bytes(u64::from_le_bytes(*last)) & (!0u64 << ((8 - tail) * 8));
            (mask != 0).then(|| bytes.len() - 8 + (mask.trailing_zeros() / 8) as usize)
        }
        _ => words.remainder().iter().position(|&b| is_special(b)).map(|i| offset + i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| is_special(b))
    }

    #[test]
    fn agrees_with_a_byte_loop_at_every_position() {
        let specials = [b'"', b'\\', 0x00, 0x1f, b'\n'];
        let plain = [b'a', b' ', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']', 0x20];
        for len in 0..40 {
            for at in 0..len {
                for s in specials {
                    for p in plain {
                        let mut bytes = vec![p; len];
                        bytes[at] = s;
                        assert_eq!(find_special(&bytes), Some(at), "{bytes:?}");
                        // A second special later never hides the first.
                        if at + 1 < len {
                            bytes[len - 1] = b'"';
                            assert_eq!(find_special(&bytes), Some(at), "{bytes:?}");
                        }
                    }
                }
            }
            for p in plain {
                assert_eq!(find_special(&vec![p; len]), naive(&vec![p; len]));
            }
        }
        let text = "héllo wörld – “quotes” 😀 and a \\ backslash, then some more words".as_bytes();
        assert_eq!(find_special(text), naive(text));
    }

    #[test]
    fn every_byte_value_is_classified_at_every_offset_of_a_block() {
        for b in 0..=255u8 {
            for at in 0..(2 * BLOCK + 3) {
                let mut bytes = vec![b'x'; 2 * BLOCK + 3];
                bytes[at] = b;
                let want = is_special(b).then_some(at);
                assert_eq!(find_special(&bytes), want, "byte {b:#x} at {at}");
                if let Some(block) = bytes.first_chunk::<BLOCK>() {
                    assert_eq!(first_special_in_block(block), want.filter(|&i| i < BLOCK), "byte {b:#x} at {at}");
                }
            }
        }
    }
}
