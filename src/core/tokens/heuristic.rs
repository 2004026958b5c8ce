//! The fast, content-aware token estimate: one pass over the text, no allocation, no regex.
//!
//! It approximates OpenAI's `o200k_base` tokenizer by mimicking its pre-tokenizer and pricing each
//! piece by its class and length, in thousandths of a token. The rule:
//!
//! - **Words**: a run of letters, split where a lowercase letter is followed by an uppercase one
//!   (`camelCase` is `camel` + `Case`). A word may take one leading character: a space (or tab) from
//!   the whitespace before it, or a lone punctuation character (`.get`, `_id`, `/home`). A word of
//!   `n` letters costs 1 token up to a free length (7 after a space, 5 with no prefix, 4 when all
//!   capitals), then 1 more per 3.5 letters; after a punctuation prefix it costs 1.2 up to 4 letters.
//!   Letters of Latin, Greek and Cyrillic scripts count like ASCII ones; Chinese and Japanese
//!   characters cost 0.9 each, Hangul syllables 0.8, letters and marks of other scripts 0.4.
//! - **Digits**: groups of up to 3, 1 token each.
//! - **Punctuation**: a run (absorbing a space before it and newlines after it) costs 1 token for
//!   up to 3 distinct characters, then 1 per 3 more; repeats of the previous character add 1 per
//!   32 (ASCII, as in `=====`) or per 8 (other, as in `─────`); a non-ASCII symbol costs 0.5 more
//!   (an emoji outside the Basic Multilingual Plane 1 more).
//! - **Whitespace**: 1 token for the part ending in newlines and 1 for the spaces after it (a space
//!   given to the next word is free), plus 1 per 64 characters of a long run.
//! - **Hashes and base64**: an unbroken run of ASCII letters and digits (and `+`, `/` between them)
//!   of 12 or more characters whose pieces average under 3 characters costs at least 0.65 tokens a
//!   character, as `o200k_base` splits such runs into tiny tokens.
//!
//! The total is rounded up; only the empty text estimates 0, and no text estimates more tokens
//! than it has UTF-8 bytes (the most any byte-level BPE can produce). On real agent sessions the
//! estimate runs 4–7% above the exact count for each of prose, markdown, code, JSON, command output
//! and CJK, on purpose slightly conservative (see `tests/heuristic_accuracy.rs`).

/// Thousandths of a token: the unit costs are summed in.
const MILLI: u64 = 1000;

/// Estimated tokens of `text` (approximates OpenAI's o200k_base tokenizer).
pub fn estimate(text: &str) -> usize {
    let mut scan = Scan {
        text,
        pos: 0,
        total: 0,
        pending: Prefix::None,
        blob: Blob::default(),
    };
    while let Some((_, class)) = scan.peek() {
        match class {
            Class::Letter(..) => scan.letters(),
            Class::Digit => scan.digits(),
            Class::Newline | Class::Space => scan.whitespace(),
            Class::Punct => scan.punctuation(),
        }
    }
    scan.flush_blob();
    let tokens = usize::try_from(scan.total.div_ceil(MILLI)).unwrap_or(usize::MAX);
    tokens.max(usize::from(!text.is_empty()))
}

/// The pre-tokenizer's view of one character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Letter(Case, Weight),
    Digit,
    /// `\r` or `\n`.
    Newline,
    /// Any other whitespace.
    Space,
    /// Everything else: punctuation, symbols, emoji.
    Punct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Upper,
    Lower,
    Caseless,
}

/// How a letter is priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Weight {
    /// An ASCII letter: counts toward the word's length (and may be part of a hash or base64 run).
    Ascii,
    /// A Latin, Greek or Cyrillic letter: counts toward the word's length.
    Alphabet,
    /// A fixed cost in thousandths of a token (CJK, Hangul, other scripts and marks).
    Fixed(u16),
}

/// The leading character a word took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefix {
    None,
    Space,
    Punct,
}

fn ascii_class(byte: u8) -> Class {
    match byte {
        b'a'..=b'z' => Class::Letter(Case::Lower, Weight::Ascii),
        b'A'..=b'Z' => Class::Letter(Case::Upper, Weight::Ascii),
        b'0'..=b'9' => Class::Digit,
        b'\r' | b'\n' => Class::Newline,
        b' ' | b'\t' | 0x0b | 0x0c => Class::Space,
        _ => Class::Punct,
    }
}

fn unicode_class(c: char) -> Class {
    let code = u32::from(c);
    // Fast path for the common ideographs, kana and Hangul syllables (all caseless letters).
    match code {
        0x4E00..=0x9FFF | 0x3041..=0x3096 | 0x30A1..=0x30FA => {
            return Class::Letter(Case::Caseless, Weight::Fixed(900));
        }
        0xAC00..=0xD7A3 => return Class::Letter(Case::Caseless, Weight::Fixed(800)),
        _ => {}
    }
    if c.is_whitespace() {
        return Class::Space;
    }
    if c.is_alphabetic() {
        let case = if c.is_uppercase() {
            Case::Upper
        } else if c.is_lowercase() {
            Case::Lower
        } else {
            Case::Caseless
        };
        return Class::Letter(case, script_weight(code));
    }
    if c.is_numeric() {
        return Class::Digit;
    }
    if is_mark(code) {
        return Class::Letter(Case::Caseless, Weight::Fixed(400));
    }
    Class::Punct
}

fn script_weight(code: u32) -> Weight {
    match code {
        // Hangul jamo, compatibility jamo and syllables.
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Weight::Fixed(800),
        // Kana, CJK ideographs (with extension A, compatibility and the supplementary planes).
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Weight::Fixed(900),
        0x20000..=0x2FFFF => Weight::Fixed(900),
        // Latin-1 and Latin Extended, IPA, Greek, Cyrillic, Armenian, Latin Extended Additional.
        0x00C0..=0x058F | 0x1E00..=0x1FFF => Weight::Alphabet,
        _ => Weight::Fixed(400),
    }
}

/// Combining marks and signs of alphabetic scripts that are not themselves alphabetic
/// (the pre-tokenizer keeps them inside words), and variation selectors.
fn is_mark(code: u32) -> bool {
    matches!(
        code,
        0x0300..=0x036F
            | 0x0483..=0x0489
            | 0x0591..=0x0EFF
            | 0x1AB0..=0x1AFF
            | 0x1DC0..=0x1DFF
            | 0x20D0..=0x20FF
            | 0xFE00..=0xFE0F
            | 0xFE20..=0xFE2F
    )
}

/// An unbroken run of ASCII letters and digits, priced when it ends.
#[derive(Default)]
struct Blob {
    chars: u64,
    pieces: u64,
    cost: u64,
    letters: bool,
}

impl Blob {
    /// The run's cost: the sum of its pieces, raised to 0.65 a character when it looks like a hash
    /// or base64 (12+ characters, some letters, pieces averaging under 3 characters).
    fn cost(&self) -> u64 {
        if self.chars >= 12 && self.letters && self.pieces * 3 > self.chars {
            self.cost.max(self.chars * 650)
        } else {
            self.cost
        }
    }
}

struct Scan<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    /// Thousandths of a token so far (the open blob excluded).
    total: u64,
    /// The leading character the next word takes.
    pending: Prefix,
    blob: Blob,
}

impl Scan<'_> {
    /// The next byte, for the ASCII fast paths.
    #[inline(always)]
    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The next character and its class; ASCII never decodes UTF-8.
    #[inline(always)]
    fn peek(&self) -> Option<(char, Class)> {
        let byte = self.byte()?;
        if byte.is_ascii() {
            return Some((char::from(byte), ascii_class(byte)));
        }
        let c = self.text.get(self.pos..)?.chars().next()?;
        Some((c, unicode_class(c)))
    }

    /// The next character if it is not ASCII, with its class.
    #[inline(always)]
    fn peek_unicode(&self) -> Option<(char, Class)> {
        let c = self.text.get(self.pos..)?.chars().next()?;
        Some((c, unicode_class(c)))
    }

    fn flush_blob(&mut self) {
        self.total += self.blob.cost();
        self.blob = Blob::default();
    }

    /// One or more words (a new word starts at a lowercase-to-uppercase change).
    fn letters(&mut self) {
        let mut prefix = std::mem::replace(&mut self.pending, Prefix::None);
        loop {
            let start = self.pos;
            let mut counted = 0u64;
            let mut upper = 0u64;
            let mut fixed = 0u64;
            let mut seen_lower = false;
            let mut ascii = true;
            loop {
                match self.byte() {
                    Some(b'a'..=b'z') => {
                        counted += 1;
                        seen_lower = true;
                        self.pos += 1;
                    }
                    Some(b'A'..=b'Z') if !seen_lower => {
                        counted += 1;
                        upper += 1;
                        self.pos += 1;
                    }
                    Some(b) if !b.is_ascii() => {
                        let Some((c, Class::Letter(case, weight))) = self.peek_unicode() else {
                            break;
                        };
                        if case == Case::Upper && seen_lower {
                            break;
                        }
                        seen_lower |= case == Case::Lower;
                        ascii = false;
                        match weight {
                            Weight::Fixed(cost) => fixed += u64::from(cost),
                            Weight::Ascii | Weight::Alphabet => {
                                counted += 1;
                                upper += u64::from(case == Case::Upper);
                            }
                        }
                        self.pos += c.len_utf8();
                    }
                    _ => break,
                }
            }
            if self.pos == start {
                return;
            }
            let all_caps = upper == counted && !seen_lower;
            let cost = word_cost(counted, prefix, all_caps) + fixed;
            if ascii {
                self.blob.chars += counted;
                self.blob.pieces += 1;
                self.blob.cost += cost;
                self.blob.letters = true;
            } else {
                self.flush_blob();
                self.total += cost;
            }
            prefix = Prefix::None;
        }
    }

    /// A run of digits: groups of up to 3.
    fn digits(&mut self) {
        self.pending = Prefix::None;
        let mut count = 0u64;
        let mut ascii = true;
        loop {
            match self.byte() {
                Some(b'0'..=b'9') => self.pos += 1,
                Some(b) if !b.is_ascii() => match self.peek_unicode() {
                    Some((c, Class::Digit)) => {
                        ascii = false;
                        self.pos += c.len_utf8();
                    }
                    _ => break,
                },
                _ => break,
            }
            count += 1;
        }
        let groups = count.div_ceil(3);
        if ascii {
            self.blob.chars += count;
            self.blob.pieces += groups;
            self.blob.cost += groups * MILLI;
        } else {
            self.flush_blob();
            self.total += groups * MILLI;
        }
    }

    /// A run of whitespace: the part through the last newline, then the spaces after it, whose
    /// last one becomes the prefix of a following word (or punctuation, if it is a plain space).
    fn whitespace(&mut self) {
        self.flush_blob();
        self.pending = Prefix::None;
        let mut run = 0u64;
        let mut through_newline = 0u64;
        let mut last = b' ';
        loop {
            match self.byte() {
                Some(b'\r' | b'\n') => {
                    run += 1;
                    through_newline = run;
                    self.pos += 1;
                }
                Some(b @ (b' ' | b'\t' | 0x0b | 0x0c)) => {
                    run += 1;
                    last = b;
                    self.pos += 1;
                }
                Some(b) if !b.is_ascii() => match self.peek_unicode() {
                    Some((c, Class::Space)) => {
                        run += 1;
                        last = 0;
                        self.pos += c.len_utf8();
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        let mut spaces = run - through_newline;
        let gives = match self.peek() {
            Some((_, Class::Letter(..))) => true,
            Some((_, Class::Punct)) => last == b' ',
            _ => false,
        };
        if spaces > 0 && gives {
            spaces -= 1;
            self.pending = Prefix::Space;
        }
        for part in [through_newline, spaces] {
            if part > 0 {
                self.total += (1 + (part - 1) / 64) * MILLI;
            }
        }
    }

    /// A run of punctuation and symbols; a lone one before a letter is that word's prefix.
    fn punctuation(&mut self) {
        let after_space = std::mem::replace(&mut self.pending, Prefix::None) == Prefix::Space;
        let mut run = 0u64;
        let mut distinct = 0u64;
        let mut ascii_repeats = 0u64;
        let mut other_repeats = 0u64;
        let mut symbols = 0u64;
        let mut prev = None;
        loop {
            let c = match self.byte() {
                Some(b) if b.is_ascii() => {
                    if ascii_class(b) != Class::Punct {
                        break;
                    }
                    char::from(b)
                }
                Some(_) => match self.peek_unicode() {
                    Some((c, Class::Punct)) => c,
                    _ => break,
                },
                None => break,
            };
            run += 1;
            if prev == Some(c) {
                if c.is_ascii() {
                    ascii_repeats += 1;
                } else {
                    other_repeats += 1;
                }
            } else {
                distinct += 1;
                if !c.is_ascii() {
                    symbols += if c.len_utf8() == 4 { MILLI } else { MILLI / 2 };
                }
            }
            prev = Some(c);
            self.pos += c.len_utf8();
        }
        if !after_space && run == 1 && matches!(self.peek(), Some((_, Class::Letter(..)))) {
            // `+` and `/` inside base64 do not end the run of letters and digits.
            if !matches!(prev, Some('+' | '/')) {
                self.flush_blob();
            }
            self.total += symbols;
            self.pending = Prefix::Punct;
            return;
        }
        self.flush_blob();
        while let Some(b'\r' | b'\n') = self.byte() {
            self.pos += 1;
        }
        distinct += u64::from(after_space);
        let repeats = (ascii_repeats / 32 + other_repeats / 8) * MILLI;
        self.total += MILLI + distinct.saturating_sub(3) * MILLI / 3 + repeats + symbols;
    }
}

/// Thousandths of a token for a word of `letters` counted letters.
fn word_cost(letters: u64, prefix: Prefix, all_caps: bool) -> u64 {
    if letters == 0 {
        return 0;
    }
    let (base, free) = if all_caps && letters >= 2 {
        (MILLI, 4)
    } else {
        match prefix {
            Prefix::Space => (MILLI, 7),
            Prefix::None => (MILLI, 5),
            Prefix::Punct => (MILLI + MILLI / 5, 4),
        }
    };
    // One token per 3.5 letters past the free length.
    base + letters.saturating_sub(free) * 2 * MILLI / 7
}

// Native only: proptest does not build for wasm32.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_is_zero_and_anything_else_at_least_one() {
        assert_eq!(estimate(""), 0);
        for text in [" ", "\n", "a", ".", "7", "中", "🚀", "\u{0301}"] {
            assert!(estimate(text) >= 1, "{text:?}");
        }
    }

    #[test]
    fn common_words_are_one_token_each() {
        // o200k_base: "Hello" "," " world" "!" and " the" " quick" " brown" " fox".
        assert_eq!(estimate("Hello, world!"), 4);
        assert_eq!(estimate("the quick brown fox"), 4);
    }

    #[test]
    fn camel_case_and_snake_case_split_into_words() {
        // o200k_base: "create" "Write" "Stream" (3) and "get" "_agent" "_dir" (3).
        assert_eq!(estimate("createWriteStream"), 4);
        assert_eq!(estimate("get_agent_dir"), 4);
        // One unsplit lowercase word of the same length is priced as a long word instead.
        assert_eq!(estimate("createwritestream"), 5);
    }

    #[test]
    fn digits_group_by_three() {
        assert_eq!(estimate("123"), 1);
        assert_eq!(estimate("1234567"), 3);
    }

    #[test]
    fn whitespace_runs_are_cheap() {
        assert_eq!(estimate("    "), 1);
        assert_eq!(estimate("\n\n"), 1);
        assert!(estimate(&" ".repeat(200)) <= 5);
        // The indentation's last space is the next word's prefix: "   " + " return".
        assert_eq!(estimate("    return"), 2);
    }

    #[test]
    fn repeated_punctuation_is_cheap_and_symbols_cost_more() {
        assert!(estimate(&"=".repeat(80)) <= 4);
        assert!(estimate(&"─".repeat(40)) <= 7);
        assert!(estimate("🚀") >= 2);
    }

    #[test]
    fn cjk_costs_about_one_token_per_character() {
        let zh = "我们今天讨论系统的架构设计";
        let n = zh.chars().count();
        let e = estimate(zh);
        assert!(e * 10 >= n * 8 && e <= n, "{e} for {n} characters");
    }

    #[test]
    fn hashes_cost_more_than_words_of_the_same_length() {
        let hash = "d9964aa40a9cfda93fa00ce59812881150180a1b";
        let words = "the quick brown fox jumps over a lazy do";
        assert_eq!(hash.len(), words.len());
        assert!(estimate(hash) >= 25, "{}", estimate(hash));
        assert!(estimate(words) <= 10);
    }

    /// Text biased toward the scanner's interesting cases (ASCII words, digits, hashes, CJK).
    fn texty() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                "[a-z]{1,12}",
                "[A-Z][a-z]{0,8}",
                "[0-9a-f]{1,40}",
                "[A-Za-z0-9+/]{1,40}",
                "[ \t\n]{1,6}",
                "[.,;:(){}\\[\\]\"'/_=-]{1,4}",
                "[中文日本語한국어─→✅🚀é]{1,6}",
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn zero_iff_empty_and_never_more_than_bytes(text in any::<String>()) {
            let e = estimate(&text);
            prop_assert_eq!(e == 0, text.is_empty());
            prop_assert!(e <= text.len());
        }

        #[test]
        fn zero_iff_empty_and_never_more_than_bytes_on_texty(text in texty()) {
            let e = estimate(&text);
            prop_assert_eq!(e == 0, text.is_empty());
            prop_assert!(e <= text.len());
        }

        /// Joining two texts with a newline (how messages are stacked) costs about the sum:
        /// at most a token for the newline and one of rounding each way.
        #[test]
        fn joining_lines_is_about_additive(a in texty(), b in texty()) {
            let joined = estimate(&format!("{a}\n{b}"));
            let sum = estimate(&a) + estimate(&b);
            prop_assert!(joined <= sum + 3, "{} > {} + 3", joined, sum);
            prop_assert!(joined + 3 >= sum, "{} + 3 < {}", joined, sum);
        }

        #[test]
        fn joining_arbitrary_lines_is_about_additive(a in any::<String>(), b in any::<String>()) {
            let joined = estimate(&format!("{a}\n{b}"));
            let sum = estimate(&a) + estimate(&b);
            prop_assert!(joined <= sum + 3 && joined + 3 >= sum, "{} vs {}", joined, sum);
        }
    }
}
