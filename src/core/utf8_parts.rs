//! A string read as UTF-8 written in parts by an encoder outside Rust (the engine's
//! `TextEncoder.encodeInto`, in `js/snippets/plain.js`): the first call writes what fits into a
//! short buffer; when the text is longer, the buffer grows by the units still unread (one byte per
//! unit when they are ASCII, at most three otherwise) and the rest is written on. Pure: the encoder
//! is the three calls the binding gives ([`read`]).

/// What the encoder answers for a value that is not a string.
pub const NOT_TEXT: i32 = i32::MIN;
/// Room for a short string's UTF-8, written in one call.
pub const SHORT_BYTES: usize = 256;

/// The encoder's text as a string; `None` when it is not a string (or the encoder answers
/// inconsistently). The encoder's three calls: `first` writes the start of the value, `unread`
/// tells the UTF-16 units not written yet, `rest` writes on from where the last write stopped.
/// Each write returns the bytes written, or `-1 - written` when the text did not all fit (`first`
/// returns [`NOT_TEXT`] when the value is not a string).
pub fn read(
    first: impl FnOnce(&mut [u8]) -> i32,
    mut unread: impl FnMut() -> u32,
    mut rest: impl FnMut(&mut [u8]) -> i32,
) -> Option<String> {
    let mut bytes = vec![0; SHORT_BYTES];
    let mut answer = first(&mut bytes);
    if answer == NOT_TEXT {
        return None;
    }
    // The bytes written before the latest call.
    let mut done = 0;
    // What is left takes one byte per UTF-16 unit when it is ASCII, at most three otherwise.
    for per_unit in [1, 3] {
        if answer >= 0 {
            break;
        }
        done += usize::try_from(-1 - i64::from(answer)).ok()?;
        let left = usize::try_from(unread()).ok()?;
        bytes.resize(done.saturating_add(left.saturating_mul(per_unit)), 0);
        answer = rest(bytes.get_mut(done..)?);
    }
    bytes.truncate(done + usize::try_from(answer).ok()?);
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// `encodeInto` over a Rust string: whole characters only, as the engine writes them.
    struct Fake {
        text: Option<String>,
        at: usize,
        calls: usize,
    }

    impl Fake {
        /// Reads the fake's text through [`read`].
        fn read(&mut self) -> Option<String> {
            let fake = std::cell::RefCell::new(self);
            let first = |into: &mut [u8]| fake.borrow_mut().first(into);
            read(
                first,
                || fake.borrow_mut().unread(),
                |into| fake.borrow_mut().rest(into),
            )
        }

        fn of(text: Option<&str>) -> Fake {
            let text = text.map(str::to_string);
            Fake {
                text,
                at: 0,
                calls: 0,
            }
        }
    }

    impl Fake {
        fn first(&mut self, into: &mut [u8]) -> i32 {
            match self.text {
                Some(_) => self.rest(into),
                None => NOT_TEXT,
            }
        }
        fn unread(&mut self) -> u32 {
            let text = self.text.as_deref().unwrap_or_default();
            text[self.at..].encode_utf16().count() as u32
        }
        fn rest(&mut self, into: &mut [u8]) -> i32 {
            self.calls += 1;
            let text = self.text.as_deref().unwrap_or_default();
            let mut written = 0;
            for c in text[self.at..].chars() {
                if written + c.len_utf8() > into.len() {
                    break;
                }
                c.encode_utf8(&mut into[written..]);
                written += c.len_utf8();
            }
            self.at += written;
            match self.at == text.len() {
                true => written as i32,
                false => -1 - written as i32,
            }
        }
    }

    #[test]
    fn a_value_that_is_not_a_string_reads_as_none() {
        assert_eq!(Fake::of(None).read(), None);
    }

    #[test]
    fn a_short_string_takes_one_write() {
        let mut fake = Fake::of(Some("héllo"));
        assert_eq!(fake.read().as_deref(), Some("héllo"));
        assert_eq!(fake.calls, 1);
    }

    #[test]
    fn a_long_ascii_string_takes_two_writes() {
        let text = "a".repeat(SHORT_BYTES * 10 + 3);
        let mut fake = Fake::of(Some(&text));
        assert_eq!(fake.read(), Some(text));
        assert_eq!(fake.calls, 2);
    }

    #[test]
    fn a_long_string_past_ascii_takes_a_third_write_and_reads_whole() {
        let text = format!("{}{}", "a".repeat(SHORT_BYTES), "€😀".repeat(500));
        let mut fake = Fake::of(Some(&text));
        assert_eq!(fake.read(), Some(text));
        assert_eq!(fake.calls, 3);
    }
}
