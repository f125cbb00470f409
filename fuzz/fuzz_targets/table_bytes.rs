//! A table file's bytes, as `--table PATH` and `verify` read them: `read_header`,
//! `StrategyTable::open_bytes` (whatever rules the header names, what `verify` calls) and
//! `StrategyTable::from_bytes` (the table of given rules, what every other command calls,
//! through `load`). No panic, and each error is one line.
//!
//! A mutated file almost never keeps its CRC-32, so each input is also tried with its
//! checksums recomputed (the header's checksum of the body, followed by the index checksum
//! and the tail, 12 bytes, at the end of the header; and each piece's checksum in the index
//! at the end of the body): that copy gets past the checksums to the checks of the values. A table that loads
//! writes back the same bytes, and serves advice and batch answers without a panic, whatever
//! its values are.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::batch;
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, advise};
use yahtzee_core::tables::expected::{PIECE_VALUES, StrategyTable};
use yahtzee_core::tables::container::MAGIC;
use yahtzee_core::tables::container::read_header;
use yahtzee_core::tables::set::TableSet;
use yahtzee_fuzz::check_message;

/// Bytes before the header: the magic, the version and the header's size.
const PREFIX: usize = MAGIC.len() + 8;

/// `bytes` sealed again, when the header's size leaves room for its checksums: a body laid
/// out as an expected-score table's (a count, that many values, the CRC-32 of each piece of
/// `PIECE_VALUES` values) gets its pieces' checksums and its index's (the header's index
/// checksum) recomputed, then the header's checksum is set to the CRC-32 of the body.
fn with_checksum(bytes: &[u8]) -> Option<Vec<u8>> {
    let size = bytes.get(MAGIC.len() + 4..PREFIX)?;
    let size = u32::from_le_bytes(size.try_into().ok()?) as usize;
    let body_at = PREFIX.checked_add(size)?;
    if size < 16 || bytes.len() < body_at {
        return None;
    }
    let mut fixed = bytes.to_vec();
    let body_len = (bytes.len() - body_at) as u64;
    if let Some(count) = bytes.get(body_at..body_at + 8) {
        let count = u64::from_le_bytes(count.try_into().ok()?);
        let pieces = count.div_ceil(PIECE_VALUES as u64);
        let values = count.checked_mul(8).and_then(|v| v.checked_add(8));
        if values.and_then(|v| v.checked_add(4 * pieces)) == Some(body_len) {
            let index_at = body_at + values? as usize;
            let index: Vec<u8> = bytes[body_at + 8..index_at]
                .chunks(8 * PIECE_VALUES)
                .flat_map(|piece| crc32fast::hash(piece).to_le_bytes())
                .collect();
            fixed[index_at..].copy_from_slice(&index);
            let index_checksum = crc32fast::hash(&index);
            fixed[body_at - 12..body_at - 8].copy_from_slice(&index_checksum.to_le_bytes());
        }
    }
    let checksum = crc32fast::hash(&fixed[body_at..]);
    fixed[body_at - 16..body_at - 12].copy_from_slice(&checksum.to_le_bytes());
    Some(fixed)
}

fn check(bytes: &[u8]) {
    match read_header(bytes) {
        Ok(header) => {
            let _ = header.rules();
        }
        Err(e) => check_message(&e.to_string()),
    }
    let opened = match StrategyTable::open_bytes(bytes) {
        Ok(opened) => Some(opened),
        Err(e) => {
            check_message(&e.to_string());
            None
        }
    };
    let yacht = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    match StrategyTable::from_bytes(bytes, &yacht) {
        Ok(t) => assert_eq!(*t.rules(), yacht),
        Err(e) => check_message(&e.to_string()),
    }
    let Some((header, table)) = opened else {
        return;
    };
    let rules = *table.rules();
    assert_eq!(header.rules(), Some(rules));
    assert_eq!(
        table.to_bytes(),
        bytes,
        "a loaded table writes back other bytes"
    );
    let again = StrategyTable::from_bytes(bytes, &rules).expect("the table of its own rules");
    assert_eq!(again.values().len(), table.values().len());
    let _ = table.expected_score();
    // Whatever the values (NaN, infinite, negative), advice and batch answers do not panic.
    let dice = Dice::all()
        .nth(usize::from(bytes[bytes.len() / 2]) % 252)
        .expect("a roll");
    for rolls_left in 0..=2 {
        let position = Position {
            card: ScoreCard::new(rules),
            dice,
            rolls_left,
        };
        let advice = advise(&table, &position).expect("an empty card is advised on");
        serde_json::to_string(&advice).expect("the advice serializes");
    }
    let tables = TableSet::of_expected_score(std::sync::Arc::new(table));
    let answer = batch::answer_line(&tables, br#"{"dice": [1, 3, 3, 5, 6], "rolls_left": 1}"#);
    assert!(!answer.contains('\n'));
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(fixed) = with_checksum(data) {
        check(&fixed);
    }
});
