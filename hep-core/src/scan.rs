//! The byte scan shared by the decoder and the encoder: where does a JSON string's plain
//! run end? Eight bytes at a time (SWAR), since most strings are short prose.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte of `w` that is zero, exact for the lowest such byte (bits above
/// a zero byte may be set spuriously, which `trailing_zeros` never reads).
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// Index of the first byte of `bytes` that a JSON string cannot hold raw: `"`, `\`, or a
/// control character below 0x20.
pub(crate) fn find_special(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        let mask = zero_bytes(w ^ (ONES * u64::from(b'"'))) | zero_bytes(w ^ (ONES * u64::from(b'\\'))) | control;
        if mask != 0 {
            return Some(offset + (mask.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|i| offset + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)
    }

    #[test]
    fn agrees_with_a_byte_loop_at_every_position() {
        let specials = [b'"', b'\\', 0x00, 0x1f, b'\n'];
        let plain = [b'a', b' ', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']', 0x20];
        for len in 0..20 {
            for at in 0..len {
                for s in specials {
                    for p in plain {
                        let mut bytes = vec![p; len];
                        bytes[at] = s;
                        assert_eq!(find_special(&bytes), Some(at), "{bytes:?}");
                    }
                }
            }
            for p in plain {
                assert_eq!(find_special(&vec![p; len]), naive(&vec![p; len]));
            }
        }
        let text = "héllo wörld – “quotes” 😀 and a \\ backslash".as_bytes();
        assert_eq!(find_special(text), naive(text));
    }
}
