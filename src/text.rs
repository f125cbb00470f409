//! Text shown back to a user: input echoed in error messages, and English number agreement.
//!
//! An error names what was wrong, so it quotes the input; but a message is one line, and an
//! input can be anything (a 10 MB name, a newline, control characters). [`excerpt`] is the
//! one way the library quotes input: escaped, and cut to a short prefix.

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

/// `count` and the noun in the right number: `1 box`, `2 boxes`.
pub fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
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
    fn plural_agrees_with_the_count() {
        assert_eq!(plural(1, "box", "boxes"), "1 box");
        assert_eq!(plural(0, "box", "boxes"), "0 boxes");
        assert_eq!(
            plural(2, "Yahtzee bonus", "Yahtzee bonuses"),
            "2 Yahtzee bonuses"
        );
    }
}
