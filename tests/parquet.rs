//! `yahtzee export --format parquet`: every scope holds exactly the rows of its CSV, with the
//! documented column types, in row groups of bounded size, and the file is written whole or
//! not at all.

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use yahtzee_core::game::rules::{Order, RuleSet};
use yahtzee_parquet::ROW_GROUP_ROWS;

use crate::util::*;

/// One value of a file, typed, to compare with the CSV text of the same cell.
#[derive(Debug, PartialEq)]
enum Cell {
    Null,
    Int(u64),
    Signed(i64),
    Bool(bool),
    Float(f64),
    Text(String),
}

fn cell(array: &dyn Array, i: usize) -> Cell {
    if array.is_null(i) || array.data_type() == &DataType::Null {
        return Cell::Null;
    }
    match array.data_type() {
        DataType::UInt8 => Cell::Int(u64::from(array.as_primitive::<UInt8Type>().value(i))),
        DataType::UInt16 => Cell::Int(u64::from(array.as_primitive::<UInt16Type>().value(i))),
        DataType::UInt32 => Cell::Int(u64::from(array.as_primitive::<UInt32Type>().value(i))),
        DataType::Int64 => Cell::Signed(array.as_primitive::<Int64Type>().value(i)),
        DataType::Boolean => Cell::Bool(array.as_boolean().value(i)),
        DataType::Float64 => Cell::Float(array.as_primitive::<Float64Type>().value(i)),
        DataType::Dictionary(..) => {
            let dict = array.as_dictionary::<Int32Type>();
            let key = dict.keys().value(i) as usize;
            Cell::Text(dict.values().as_string::<i32>().value(key).to_string())
        }
        other => panic!("a column of type {other}, which exports do not have"),
    }
}

/// The CSV text of a cell read as the type of its Parquet column.
fn csv_cell(text: &str, data_type: &DataType) -> Cell {
    if text.is_empty() {
        return Cell::Null;
    }
    match data_type {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => Cell::Int(text.parse().unwrap()),
        DataType::Int64 => Cell::Signed(text.parse().unwrap()),
        DataType::Boolean => Cell::Bool(text.parse().unwrap()),
        DataType::Float64 => Cell::Float(text.parse().unwrap()),
        _ => Cell::Text(text.to_string()),
    }
}

/// Everything in a Parquet file: its batches (one per row group) and key-value metadata.
struct Read {
    batches: Vec<RecordBatch>,
    group_rows: Vec<i64>,
    metadata: Vec<(String, String)>,
}

fn read(path: &Path) -> Read {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let meta = builder.metadata().clone();
    let group_rows = meta.row_groups().iter().map(|g| g.num_rows()).collect();
    let metadata = meta
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
        .collect();
    let batches = builder
        .with_batch_size(1 << 16)
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    Read {
        batches,
        group_rows,
        metadata,
    }
}

/// Exports `scope` of `set` in CSV and in Parquet, and asserts that the Parquet file holds
/// exactly the CSV's rows and columns; returns the file read back.
fn assert_parquet_is_the_csv(set: &'static RuleSet, order: Order, scope: &[&str]) -> Read {
    let dir = temp_dir();
    let csv_path = dir.path().join("x.csv");
    let pq_path = dir.path().join("x.parquet");
    for (format, path) in [("csv", &csv_path), ("parquet", &pq_path)] {
        let mut args = vec!["export", "--rules", set.name(), "--format", format];
        if order == Order::UpperFirst {
            args.push("--upper-first");
        }
        args.extend_from_slice(scope);
        let out = path_str(path);
        args.extend_from_slice(&["--out", &out]);
        let o = run(set, order, &args);
        assert!(o.status.success(), "{scope:?} {format}: {}", stderr(&o));
    }
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let file = read(&pq_path);
    let schema = file.batches[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, header, "{scope:?}");
    let mut rows = 0;
    let mut csv_rows = lines.map(|l| l.split(',').collect::<Vec<&str>>());
    for batch in &file.batches {
        for i in 0..batch.num_rows() {
            let fields = csv_rows.next().expect("as many CSV rows");
            for (c, column) in batch.columns().iter().enumerate() {
                let want = csv_cell(fields[c], column.data_type());
                assert_eq!(
                    cell(column.as_ref(), i),
                    want,
                    "{scope:?} row {rows} column {}",
                    header[c]
                );
            }
            rows += 1;
        }
    }
    assert!(
        csv_rows.next().is_none(),
        "{scope:?}: the CSV has more rows"
    );
    assert_eq!(file.group_rows.iter().sum::<i64>(), rows as i64);
    file
}

fn types(file: &Read) -> Vec<(String, DataType)> {
    file.batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect()
}

fn dictionary() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

#[test]
fn card_parquet_is_the_card_csv_with_typed_columns() {
    let file = assert_parquet_is_the_csv(RuleSet::YAHTZEE, Order::Any, &[]);
    assert_eq!(
        types(&file),
        [
            ("filled", DataType::UInt16),
            ("upper", DataType::UInt8),
            ("yahtzee_50", DataType::Boolean),
            ("dice", dictionary()),
            ("rolls_left", DataType::UInt8),
            ("best", dictionary()),
            ("expected", DataType::Float64),
            ("runner_up", dictionary()),
            ("gap", DataType::Float64),
        ]
        .map(|(n, t)| (n.to_string(), t))
    );
    assert_eq!(file.group_rows, [756]);
    let title = file.metadata.iter().find(|(k, _)| k == "title").unwrap();
    assert_eq!(title.1, "Strategy for one turn: yahtzee");
    let notes = file.metadata.iter().find(|(k, _)| k == "notes").unwrap();
    assert!(
        notes.1.contains("expected final score 254.5877"),
        "{}",
        notes.1
    );
    // A card with banked points, and the filters, go through the same rows.
    assert_parquet_is_the_csv(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "--card",
            "ones=3,yahtzee=50,full-house=25",
            "--yahtzee-bonus",
            "1",
            "--min-gap",
            "2",
            "--rolls-left",
            "1",
        ],
    );
}

#[test]
fn every_state_and_the_opening_in_parquet_are_their_csv() {
    let states = assert_parquet_is_the_csv(RuleSet::YACHT, Order::Any, &["--all-states"]);
    assert_eq!(
        types(&states),
        [
            ("filled", DataType::UInt16),
            ("upper", DataType::UInt8),
            ("yahtzee_50", DataType::Boolean),
            ("turns_played", DataType::UInt32),
            ("expected_remaining", DataType::Float64),
        ]
        .map(|(n, t)| (n.to_string(), t))
    );
    assert_eq!(states.group_rows, [4096]);
    let opening = assert_parquet_is_the_csv(RuleSet::YATZY, Order::Any, &["--opening"]);
    assert_eq!(opening.group_rows, [252]);
    assert_eq!(types(&opening)[0], ("pattern".to_string(), dictionary()));
}

/// The full policy of Yacht, 3,095,820 rows, in row groups of at most [`ROW_GROUP_ROWS`]:
/// the stream crosses many batches and several groups, and still equals the CSV row for row.
#[test]
fn full_yacht_policy_in_parquet_is_its_csv_in_row_groups() {
    let file = assert_parquet_is_the_csv(RuleSet::YACHT, Order::Any, &["--all-states", "--policy"]);
    assert_eq!(file.group_rows.iter().sum::<i64>(), 3_095_820);
    assert_eq!(
        file.group_rows.len(),
        3_095_820usize.div_ceil(ROW_GROUP_ROWS)
    );
    assert!(
        file.group_rows[..file.group_rows.len() - 1]
            .iter()
            .all(|&n| n == ROW_GROUP_ROWS as i64),
        "{:?}",
        file.group_rows
    );
}

/// A card with one box left and no roll left: every decision has a single option, so
/// `runner_up` and `gap` never have a value; they are columns of the null type, all null.
#[test]
fn columns_without_any_value_have_the_null_type() {
    let card = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,full-house=0,four-of-a-kind=0,little-straight=0,big-straight=0,choice=20";
    let file = assert_parquet_is_the_csv(
        RuleSet::YACHT,
        Order::Any,
        &["--card", card, "--rolls-left", "0"],
    );
    let t = types(&file);
    assert_eq!(t[7], ("runner_up".to_string(), DataType::Null));
    assert_eq!(t[8], ("gap".to_string(), DataType::Null));
    assert_eq!(file.group_rows, [252]);
}

#[test]
fn parquet_on_stdout_is_the_file_written_with_out() {
    let dir = temp_dir();
    let path = dir.path().join("p.parquet");
    let to_file = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "export",
            "--rules",
            "yacht",
            "--upper-first",
            "--format",
            "parquet",
            "--out",
            &path_str(&path),
        ],
    );
    assert!(to_file.status.success(), "{}", stderr(&to_file));
    let piped = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "export",
            "--rules",
            "yacht",
            "--upper-first",
            "--format",
            "parquet",
        ],
    );
    assert!(piped.status.success(), "{}", stderr(&piped));
    let written = std::fs::read(&path).unwrap();
    assert_eq!(piped.stdout, written);
    assert!(written.starts_with(b"PAR1") && written.ends_with(b"PAR1"));
}

#[test]
fn a_target_card_in_parquet_is_its_csv() {
    // export_target_card_wrote_its_stream_not_parquet: the target scope goes through the
    // Parquet writer like every other scope.
    let file = assert_parquet_is_the_csv(
        RuleSet::YACHT,
        Order::Any,
        &["--card", "ones=3,yacht=50", "--target", "150"],
    );
    assert!(file.group_rows.iter().sum::<i64>() > 0);
}
