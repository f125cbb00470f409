//! Regression tests of what the fuzzers of `fuzz/` found (the runs are recorded in
//! `results/fuzz-2026-12-01.md`): each test holds the input the fuzzer saved, written out, and
//! is named after the bug it pins.

use yahtzee::rules::{Order, RuleSet, Rules};
use yahtzee::table::{StrategyTable, TableError};

use crate::util::*;

/// The bytes of a hex string (the fuzzers' inputs are written out in hex).
fn hex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "an even number of hex digits");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digits"))
        .collect()
}

/// `table_bytes`, minimized: the magic, format version 2, a header of 213 bytes naming
/// yacht (upper first) whose body size is `u64::MAX` (the eight `ff` bytes after `f64` and
/// the entry count), and 229 bytes in all.
const TABLE_BODY_SIZE_U64_MAX: &str = concat!(
    "5948545a54424c0002000000d5000000050000000000000079616368740103000000000000006636347f00",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffb8ffffffffffffffffffffffffff",
    "ffffffffffffffffffff40b9c93b17c93540e090b284d5418c8c8c8c8c8c8c8c8c8c8c8c8c8c8c00000000",
    "00000040e090b284d5418c8c858c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c",
    "8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c000000000000008c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c",
    "8c8c8c8c8c8c8c00000000000000",
);

/// The header's body size was added to the header's end unchecked: with overflow checks
/// (a debug build, the fuzzer) a body size near `u64::MAX` panicked, and a release build
/// wrapped around and called the file "corrupted (1 bytes after the end of the table)". It
/// is a table that ends long before the size its header states: truncated.
#[test]
fn table_body_size_near_u64_max_is_truncated_not_an_overflow() {
    let bytes = hex(TABLE_BODY_SIZE_U64_MAX);
    assert_eq!(bytes.len(), 229);
    let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    for result in [
        StrategyTable::open_bytes(&bytes).map(|_| ()),
        StrategyTable::from_bytes(&bytes, &rules).map(|_| ()),
    ] {
        match result {
            Err(TableError::Truncated { expected, got, .. }) => {
                assert_eq!((expected, got), (u64::MAX, 229));
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
    assert_bad_input(&o, "is truncated (229 of 18446744073709551615 bytes)");
    assert!(
        stderr(&o).contains("--rules yacht --upper-first"),
        "{}",
        stderr(&o)
    );
}
