//! Text shown back to a user: input echoed in error messages, English number agreement, and
//! probabilities.
//!
//! An error names what was wrong, so it quotes the input; but a message is one line, and an
//! input can be anything (a 10 MB name, a newline, control characters). [`excerpt`] is the
//! one way the library quotes input: escaped, and cut to a short prefix.
//!
//! Text the program keeps and shows again (a player's name, a box's title) is checked by
//! [`is_printable`], the one rule for every name and title: no character that moves or hides
//! the text around it. [`without_bom`] is the one way an input's byte-order mark is skipped.

/// Characters of input an error message quotes at most.
pub const EXCERPT_CHARS: usize = 40;

/// `text` as an error message may quote it: control characters, quotes and backslashes
/// escaped (so it stays on one line and cannot be mistaken for the message around it), cut
/// after [`EXCERPT_CHARS`] characters with `...` and the full length; an empty text is
/// written `(empty)`.
pub fn excerpt(text: &str) -> String {
    if text.is_empty() {
        return "(empty)".to_string();
    }
    let chars = text.chars().count();
    let mut out: String = text
        .chars()
        .take(EXCERPT_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if chars > EXCERPT_CHARS {
        out.push_str(&format!("... ({chars} characters)"));
    }
    out
}

/// True when `c` may stand in a name or a title shown to people: it is none of the Unicode
/// general categories Cc (control characters: a newline, an escape, U+007F, U+0085), Cf
/// (format characters: the bidirectional overrides and isolates such as U+202E, which turn
/// the text after them around, the zero-width characters, the byte-order mark), Zl and Zp
/// (the line and paragraph separators U+2028 and U+2029).
pub fn is_printable(c: char) -> bool {
    !(c.is_control() || is_format(c) || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// True when every character of `text` is [`is_printable`].
pub fn printable(text: &str) -> bool {
    text.chars().all(is_printable)
}

/// True when `c` is of the Unicode general category Cf (format), as of Unicode 15.1.
fn is_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// The UTF-8 byte-order mark, which some editors write at the start of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without the byte-order mark at their start, if they have one: how every input
/// read as lines of text (a batch, a game record) is read from its first character.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// A small count in words, as a sentence says it: `five`, `six` (from zero to twelve; a
/// larger one in digits).
pub fn number_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// `count` and the noun in the right number: `1 box`, `2 boxes`.
pub fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Bytes of memory as people read them, in binary units: `2.1 GiB`, `375 MiB`, `12 KiB`.
pub fn memory(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB * KIB {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    } else if b >= KIB * KIB {
        format!("{:.0} MiB", b / (KIB * KIB))
    } else {
        format!("{:.0} KiB", (b / KIB).ceil())
    }
}

/// Bytes of a file as people read them, in decimal units (as `ls -h --si` and the guide's
/// table sizes): `738 MB`, `4.3 MB`, `1.2 GB`.
pub fn file_size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e7 {
        format!("{:.0} MB", b / 1e6)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).ceil())
    }
}

/// A rough time for `cpu_seconds` of processor time shared by this machine's cores, as a
/// notice says it: `about 2 minutes on 2 cores`, `a second or less on 2 cores`.
pub fn rough_time(cpu_seconds: f64) -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seconds = cpu_seconds / cores as f64;
    let time = match seconds {
        s if s < 1.5 => "a second or less".to_string(),
        s if s < 90.0 => format!("about {s:.0} seconds"),
        s if s < 90.0 * 60.0 => format!("about {:.0} minutes", s / 60.0),
        s if s < 48.0 * 3600.0 => format!("about {:.0} hours", s / 3600.0),
        s => format!("about {:.0} days", s / 86400.0),
    };
    format!("{time} on {}", plural(cores as u64, "core", "cores"))
}

/// A large count as people read it: `12.3 billion`, `57.5 million`, a smaller one in full.
pub fn large_count(n: u64) -> String {
    match n {
        1_000_000_000.. => format!("{:.1} billion", n as f64 / 1e9),
        1_000_000.. => format!("{:.1} million", n as f64 / 1e6),
        _ => n.to_string(),
    }
}

/// A probability as people read it, four decimals where they show it: exactly 0 and 1 are
/// `0` and `1`; a probability that four decimals would show as `0.0000` is written in
/// scientific notation with two digits (`3.2e-7`), and one that they would show as `1.0000`
/// is `> 0.9999`. So no impossible event looks possible and no possible one looks impossible.
/// Every human output of a probability uses this.
pub fn probability(p: f64) -> String {
    if p == 0.0 {
        // Also -0, which a float sum of nothing gives.
        "0".to_string()
    } else if p == 1.0 {
        "1".to_string()
    } else if p > 0.0 && p < 0.00005 {
        format!("{p:.1e}")
    } else if p > 0.99995 && p < 1.0 {
        "> 0.9999".to_string()
    } else {
        format!("{p:.4}")
    }
}

/// A chance read from a table that leaves out values below `tail`: as [`probability`], but
/// a 0 that may not be one (the event is `possible`) is written `< 1e-9`.
pub fn chance(p: f64, possible: bool, tail: f64) -> String {
    if p == 0.0 && possible && tail > 0.0 {
        format!("< {tail:.0e}")
    } else {
        probability(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_escaped_single_lines() {
        assert_eq!(excerpt("ones"), "ones");
        assert_eq!(excerpt(""), "(empty)");
        assert_eq!(excerpt("a\nb"), "a\\nb");
        let long = "x".repeat(10_000_000);
        let e = excerpt(&long);
        assert!(e.len() < 80, "{e}");
        assert!(e.ends_with("(10000000 characters)"), "{e}");
        assert!(!excerpt("\u{7}\r\t").contains(['\u{7}', '\r', '\t']));
    }

    #[test]
    fn a_chance_below_the_tail_is_not_printed_as_zero() {
        assert_eq!(chance(0.0, true, 1e-9), "< 1e-9");
        assert_eq!(chance(0.0, false, 1e-9), "0");
        assert_eq!(chance(0.25, true, 1e-9), "0.2500");
        assert_eq!(chance(0.0, true, 0.0), "0");
    }

    #[test]
    fn no_nonzero_probability_is_printed_as_zero() {
        assert_eq!(probability(0.0), "0");
        assert_eq!(probability(1.0), "1");
        assert_eq!(probability(0.25), "0.2500");
        assert_eq!(probability(0.00005), "0.0001");
        assert_eq!(probability(3.21e-7), "3.2e-7");
        assert_eq!(probability(1e-300), "1.0e-300");
        assert_eq!(probability(0.99999), "> 0.9999");
        assert_eq!(probability(0.9999), "0.9999");
        for p in [1e-12, 4.9e-5, 1e-5, 0.5, 0.99996, 1.0 - 1e-15] {
            let text = probability(p);
            assert_ne!(text.trim_start_matches("> "), "0.0000", "{p}");
            assert_ne!(text, "1.0000", "{p}");
            assert!(!["0", "1"].contains(&text.as_str()), "{p}: {text}");
        }
    }

    /// Issue 45: a player named U+202E + "tob" showed as "bot", and box titles took U+202E,
    /// U+2028, U+0085 and U+007F: no control, format or separator character is printable.
    #[test]
    fn control_format_and_separator_characters_are_not_printable() {
        for c in [
            '\u{0}',
            '\n',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{ad}',
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{202a}',
            '\u{202e}',
            '\u{2028}',
            '\u{2029}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{fff9}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{13439}',
        ] {
            assert!(!is_printable(c), "{:?}", c);
        }
        for c in [
            'a', 'Z', ' ', 'é', 'ß', 'ø', '中', '😀', '\u{fe0f}', '\u{301}', '\u{a0}',
        ] {
            assert!(is_printable(c), "{:?}", c);
        }
        assert!(printable("Anna-Lena O'Neil"));
        assert!(!printable("\u{202e}tob"));
    }

    #[test]
    fn a_byte_order_mark_is_skipped_once_at_the_start() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(without_bom(b"{}"), b"{}");
        assert_eq!(without_bom(b"\xEF\xBB\xBF\xEF\xBB\xBF"), BOM);
        assert_eq!(without_bom(b"\xEF\xBB"), b"\xEF\xBB");
    }

    #[test]
    fn small_numbers_are_words() {
        assert_eq!(number_word(5), "five");
        assert_eq!(number_word(6), "six");
        assert_eq!(number_word(13), "13");
    }

    #[test]
    fn plural_agrees_with_the_count() {
        assert_eq!(plural(1, "box", "boxes"), "1 box");
        assert_eq!(plural(0, "box", "boxes"), "0 boxes");
        assert_eq!(
            plural(2, "Yahtzee bonus", "Yahtzee bonuses"),
            "2 Yahtzee bonuses"
        );
    }
}
