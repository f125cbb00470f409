//! Regression tests of what the fuzzers of `fuzz/` found (the runs are recorded in
//! `results/fuzz-2026-12-01.md`): each test holds the input the fuzzer saved, written out, and
//! is named after the bug it pins.

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::expected::StrategyTable;

use crate::util::*;

/// Bytes before a table's header: the magic, the format version and the header's size.
const PREFIX: usize = yahtzee_core::tables::container::MAGIC.len() + 8;

/// Where the body of a table file starts (after the header).
fn body_at(bytes: &[u8]) -> usize {
    let size = u32::from_le_bytes(bytes[PREFIX - 4..PREFIX].try_into().unwrap()) as usize;
    PREFIX + size
}

/// The header's last fields, from its end: the tail (`f64`), the index checksum and the
/// body's checksum (`u32` each), the body's size (`u64`).
const CHECKSUM_FROM_END: usize = 16;
const INDEX_CHECKSUM_FROM_END: usize = 12;
const BODY_SIZE_FROM_END: usize = 24;

/// The Yacht (upper section first) table file with its header's body size set to
/// `u64::MAX`: what the fuzzer `table_bytes` found (its input, minimized to 229 bytes, was a
/// table of format version 2 with that body size; this is the same header in format 3).
fn table_with_body_size_u64_max() -> Vec<u8> {
    let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    let mut bytes = table(rules.set, rules.order).to_bytes();
    let at = body_at(&bytes) - BODY_SIZE_FROM_END;
    bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    bytes
}

/// The header's body size was added to the header's end unchecked: with overflow checks
/// (a debug build, the fuzzer) a body size near `u64::MAX` panicked, and a release build
/// wrapped around and called the file "corrupted (1 bytes after the end of the table)". It
/// is a table that ends long before the size its header states: truncated.
#[test]
fn table_body_size_near_u64_max_is_truncated_not_an_overflow() {
    let bytes = table_with_body_size_u64_max();
    let len = bytes.len() as u64;
    let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    for result in [
        StrategyTable::open_bytes(&bytes).map(|_| ()),
        StrategyTable::from_bytes(&bytes, &rules).map(|_| ()),
    ] {
        match result {
            Err(TableError::Truncated { expected, got, .. }) => {
                assert_eq!((expected, got), (u64::MAX, len));
            }
            other => panic!("not truncated: {other:?}"),
        }
    }
    // `verify` says so in one line, with the rebuild of the rules the header names.
    let dir = temp_dir();
    let path = dir.path().join("huge-body.table");
    std::fs::write(&path, &bytes).unwrap();
    let o = yahtzee_in(dir.path())
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    assert_bad_input(
        &o,
        &format!("is truncated ({len} of 18446744073709551615 bytes)"),
    );
    assert!(
        stderr(&o).contains("--rules yacht --upper-first"),
        "{}",
        stderr(&o)
    );
}

/// Seen by the fuzzer `table_bytes` (its seed `seed-nan-values.bin`: the Yacht table with
/// two values replaced by NaN and infinity, the checksum recomputed): such a table loaded,
/// verified as "expected score NaN" and ranked NaN options. Now a value that is not finite
/// makes the table corrupt, and `verify` says so in one line.
#[test]
fn table_with_values_that_are_not_numbers_is_corrupt() {
    let mut bytes = table(RuleSet::YACHT, Order::Any).to_bytes();
    let at = body_at(&bytes);
    bytes[at + 8..at + 16].copy_from_slice(&f64::NAN.to_le_bytes());
    bytes[at + 16..at + 24].copy_from_slice(&f64::INFINITY.to_le_bytes());
    // Yacht's 4096 values are one piece: its checksum, the index, ends the body.
    let index_at = bytes.len() - 4;
    let piece = crc32fast::hash(&bytes[at + 8..index_at]);
    bytes[index_at..].copy_from_slice(&piece.to_le_bytes());
    let index = crc32fast::hash(&bytes[index_at..]);
    bytes[at - INDEX_CHECKSUM_FROM_END..at - INDEX_CHECKSUM_FROM_END + 4]
        .copy_from_slice(&index.to_le_bytes());
    let checksum = crc32fast::hash(&bytes[at..]);
    bytes[at - CHECKSUM_FROM_END..at - CHECKSUM_FROM_END + 4]
        .copy_from_slice(&checksum.to_le_bytes());
    let dir = temp_dir();
    let path = join(dir.path(), "nan.table");
    std::fs::write(&path, &bytes).unwrap();
    let o = yahtzee_in(dir.path())
        .args(["verify", &path_str(&path)])
        .output()
        .unwrap();
    assert_bad_input(&o, "not a number");
}

/// Found by the fuzzer `table_bytes` on format 3 (2026-12-01, after 6,184 runs): a Yacht
/// table whose header held a tail (a field of vector tables, 0 in an expected-score table)
/// loaded, and wrote back other bytes than it was read from. A tail in an expected-score
/// table's header now makes it corrupt; its index checksum (0 in format 3, the CRC-32 of
/// the index of its pieces since format 4) is checked against the index.
#[test]
fn expected_score_table_with_a_tail_in_its_header_is_corrupt() {
    for (from_end, field, message) in [
        (8, "tail", "(header with a tail"),
        (12, "index checksum", "(checksum"),
    ] {
        let mut bytes = table(RuleSet::YACHT, Order::Any).to_bytes();
        let at = body_at(&bytes) - from_end;
        bytes[at + 3] = 0xf9;
        let e = StrategyTable::from_bytes(&bytes, &Rules::new(RuleSet::YACHT)).unwrap_err();
        assert!(e.needs_rebuild(), "{field}: {e}");
        assert!(e.to_string().contains(message), "{field}: {e}");
        let dir = temp_dir();
        let path = join(dir.path(), "tail.table");
        std::fs::write(&path, &bytes).unwrap();
        let o = yahtzee_in(dir.path())
            .args(["verify", &path_str(&path)])
            .output()
            .unwrap();
        assert_bad_input(&o, message);
    }
}
