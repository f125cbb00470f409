//! `yahtzee export --format parquet`: every scope holds exactly the rows of its CSV, with the
//! documented column types, in row groups of bounded size, and the file is written whole or
//! not at all.

use std::fs::File;
use std::path::Path;

use base64::Engine;
use parquet::basic::{LogicalType, Type as PhysicalType};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
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

/// A value as parquet's record reader gives it (unsigned columns as unsigned values, from
/// their logical type).
fn cell(field: &Field) -> Cell {
    match field {
        Field::Null => Cell::Null,
        Field::UByte(v) => Cell::Int(u64::from(*v)),
        Field::UShort(v) => Cell::Int(u64::from(*v)),
        Field::UInt(v) => Cell::Int(u64::from(*v)),
        Field::ULong(v) => Cell::Int(*v),
        Field::Long(v) => Cell::Signed(*v),
        Field::Bool(v) => Cell::Bool(*v),
        Field::Double(v) => Cell::Float(*v),
        Field::Str(v) => Cell::Text(v.clone()),
        other => panic!("a value {other:?}, of a type that exports do not have"),
    }
}

/// A column's Parquet type: its physical type and its logical type.
pub type ColumnType = (PhysicalType, Option<LogicalType>);

pub fn unsigned(bits: i8) -> ColumnType {
    let physical = if bits == 64 {
        PhysicalType::INT64
    } else {
        PhysicalType::INT32
    };
    (physical, Some(LogicalType::integer(bits, false)))
}

fn int64() -> ColumnType {
    (PhysicalType::INT64, None)
}

pub fn boolean() -> ColumnType {
    (PhysicalType::BOOLEAN, None)
}

pub fn double() -> ColumnType {
    (PhysicalType::DOUBLE, None)
}

/// Text: UTF-8 byte arrays (dictionary-encoded; their Arrow type says so).
pub fn text() -> ColumnType {
    (PhysicalType::BYTE_ARRAY, Some(LogicalType::String))
}

/// The null type, as Arrow's Parquet writer writes it.
fn null() -> ColumnType {
    (PhysicalType::INT32, Some(LogicalType::Unknown))
}

/// The CSV text of a cell read as the type of its Parquet column.
fn csv_cell(text: &str, column: &ColumnType) -> Cell {
    if text.is_empty() {
        return Cell::Null;
    }
    match column {
        (_, Some(LogicalType::Integer(int))) if !int.is_signed => Cell::Int(text.parse().unwrap()),
        (PhysicalType::INT64, None) => Cell::Signed(text.parse().unwrap()),
        (PhysicalType::BOOLEAN, None) => Cell::Bool(text.parse().unwrap()),
        (PhysicalType::DOUBLE, None) => Cell::Float(text.parse().unwrap()),
        _ => Cell::Text(text.to_string()),
    }
}

/// The Arrow type that Arrow readers must see for a column of Parquet type `column`, as
/// Arrow's Parquet writer pairs them.
fn arrow_type_of(column: &ColumnType) -> String {
    match column {
        (_, Some(LogicalType::Integer(int))) => format!(
            "{}int{}",
            if int.is_signed { "" } else { "u" },
            int.bit_width
        ),
        (PhysicalType::INT64, None) => "int64".into(),
        (PhysicalType::BOOLEAN, None) => "bool".into(),
        (PhysicalType::DOUBLE, None) => "float64".into(),
        (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)) => "dictionary<int32, utf8>".into(),
        (PhysicalType::INT32, Some(LogicalType::Unknown)) => "null".into(),
        other => panic!("a column of type {other:?}, which exports do not have"),
    }
}

/// A reader of the flatbuffers in the `ARROW:schema` metadata (Arrow's `format/Message.fbs`
/// and `format/Schema.fbs`), written from the flatbuffers format, independent of the
/// writer's code: every read is a bounds-checked slice, so a damaged buffer fails the test.
struct Flat<'a>(&'a [u8]);

impl Flat<'_> {
    /// The little-endian integer of `width` bytes at `at`, sign-extended.
    fn int(&self, at: usize, width: usize) -> i64 {
        let mut bytes = [0; 8];
        bytes[..width].copy_from_slice(&self.0[at..at + width]);
        let shift = 64 - 8 * width as u32;
        (i64::from_le_bytes(bytes) << shift) >> shift
    }

    /// The object that the offset at `at` points to (offsets point forward).
    fn follow(&self, at: usize) -> usize {
        at + self.int(at, 4) as u32 as usize
    }

    /// Where field `n` of the table at `table` is, if it is present.
    fn field(&self, table: usize, n: usize) -> Option<usize> {
        let vtable = (table as i64 - self.int(table, 4)) as usize;
        let vtable_len = self.int(vtable, 2) as usize;
        let slot = 4 + 2 * n;
        let offset = if slot < vtable_len {
            self.int(vtable + slot, 2) as usize
        } else {
            0
        };
        (offset != 0).then_some(table + offset)
    }

    /// Scalar field `n` of `width` bytes, or the schema's default 0 when absent.
    fn scalar(&self, table: usize, n: usize, width: usize) -> i64 {
        self.field(table, n).map_or(0, |at| self.int(at, width))
    }

    /// Table field `n`.
    fn table(&self, table: usize, n: usize) -> usize {
        self.follow(self.field(table, n).expect("the table field is present"))
    }

    fn string(&self, table: usize, n: usize) -> &str {
        let at = self.table(table, n);
        let len = self.int(at, 4) as usize;
        std::str::from_utf8(&self.0[at + 4..at + 4 + len]).unwrap()
    }

    /// Vector-of-tables field `n`.
    fn tables(&self, table: usize, n: usize) -> Vec<usize> {
        let at = self.table(table, n);
        let len = self.int(at, 4) as usize;
        (0..len).map(|i| self.follow(at + 4 + 4 * i)).collect()
    }
}

/// The columns of an `ARROW:schema` value, each its name and its Arrow type
/// (`uint16`, `dictionary<int32, utf8>`, ...); asserts the message's framing and that every
/// field is nullable and the dictionaries are numbered 0, 1, 2... in field order.
fn arrow_schema(value: &str) -> Vec<(String, String)> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value)
        .unwrap();
    assert_eq!(bytes[..4], [0xFF; 4], "the continuation marker");
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    assert_eq!(len % 8, 0, "the metadata is padded to 8 bytes");
    assert_eq!(bytes.len(), 8 + len);
    let fb = Flat(&bytes[8..]);
    let message = fb.follow(0);
    assert_eq!(fb.scalar(message, 0, 2), 4, "MetadataVersion V5");
    assert_eq!(fb.scalar(message, 1, 1), 1, "a Schema message");
    assert_eq!(fb.scalar(message, 3, 8), 0, "no body");
    let schema = fb.table(message, 2);
    assert_eq!(fb.scalar(schema, 0, 2), 0, "little-endian");
    let mut dictionaries = 0;
    fb.tables(schema, 1)
        .into_iter()
        .map(|field| {
            let name = fb.string(field, 0).to_string();
            assert_eq!(fb.scalar(field, 1, 1), 1, "{name} is nullable");
            let type_table = fb.table(field, 3);
            let int = |table| {
                let bits = fb.scalar(table, 0, 4);
                let signed = fb.scalar(table, 1, 1) == 1;
                format!("{}int{bits}", if signed { "" } else { "u" })
            };
            let arrow_type = match fb.scalar(field, 2, 1) {
                1 => "null".to_string(),
                2 => int(type_table),
                3 => match fb.scalar(type_table, 0, 2) {
                    1 => "float32".to_string(),
                    2 => "float64".to_string(),
                    p => panic!("{name}: precision {p}"),
                },
                5 => "utf8".to_string(),
                6 => "bool".to_string(),
                t => panic!("{name}: Arrow type {t}"),
            };
            let arrow_type = match fb.field(field, 4) {
                None => arrow_type,
                Some(_) => {
                    let dictionary = fb.table(field, 4);
                    assert_eq!(fb.scalar(dictionary, 0, 8), dictionaries, "{name}'s id");
                    dictionaries += 1;
                    assert_eq!(fb.scalar(dictionary, 2, 1), 0, "{name} is unordered");
                    format!("dictionary<{}, {arrow_type}>", int(fb.table(dictionary, 1)))
                }
            };
            assert!(fb.tables(field, 5).is_empty(), "{name} has no children");
            (name, arrow_type)
        })
        .collect()
}

/// What a Parquet file says of itself: its columns, row groups and key-value metadata.
pub struct Read {
    columns: Vec<(String, ColumnType)>,
    pub group_rows: Vec<i64>,
    metadata: Vec<(String, String)>,
}

impl Read {
    pub fn types(&self) -> Vec<(&str, ColumnType)> {
        self.columns
            .iter()
            .map(|(n, t)| (n.as_str(), t.clone()))
            .collect()
    }

    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn reader(path: &Path) -> SerializedFileReader<File> {
    SerializedFileReader::new(File::open(path).unwrap()).unwrap()
}

fn read(path: &Path) -> Read {
    let reader = reader(path);
    let meta = reader.metadata();
    let columns = meta
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| {
            assert!(c.self_type().is_optional(), "{} is nullable", c.name());
            (
                c.name().to_string(),
                (c.physical_type(), c.logical_type_ref().cloned()),
            )
        })
        .collect();
    let group_rows = meta.row_groups().iter().map(|g| g.num_rows()).collect();
    let metadata = meta
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
        .collect();
    Read {
        columns,
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
    assert_files_agree(&csv_path, &pq_path, scope)
}

/// Asserts that the Parquet file `pq_path` holds exactly the rows and columns of the CSV file
/// `csv_path`, both exports of `scope`, with the Arrow schema of its column types; returns
/// the file read back.
pub fn assert_files_agree(csv_path: &Path, pq_path: &Path, scope: &[&str]) -> Read {
    let text = std::fs::read_to_string(csv_path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let file = read(pq_path);
    let names: Vec<&str> = file.columns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, header, "{scope:?}");
    // Arrow readers see the types of the ARROW:schema metadata: the same columns, their
    // Arrow types.
    let arrow = arrow_schema(file.metadata("ARROW:schema").expect("an ARROW:schema"));
    let want: Vec<(String, String)> = file
        .columns
        .iter()
        .map(|(n, t)| (n.clone(), arrow_type_of(t)))
        .collect();
    assert_eq!(arrow, want, "{scope:?}");
    let mut rows = 0;
    let mut csv_rows = lines.map(|l| l.split(',').collect::<Vec<&str>>());
    for row in reader(pq_path).get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let fields = csv_rows.next().expect("as many CSV rows");
        assert_eq!(row.len(), header.len());
        for (c, (_, field)) in row.get_column_iter().enumerate() {
            let want = csv_cell(fields[c], &file.columns[c].1);
            assert_eq!(
                cell(field),
                want,
                "{scope:?} row {rows} column {}",
                header[c]
            );
        }
        rows += 1;
    }
    assert!(
        csv_rows.next().is_none(),
        "{scope:?}: the CSV has more rows"
    );
    assert_eq!(file.group_rows.iter().sum::<i64>(), rows as i64);
    file
}

#[test]
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn card_parquet_is_the_card_csv_with_typed_columns() {
    let file = assert_parquet_is_the_csv(RuleSet::YAHTZEE, Order::Any, &[]);
    assert_eq!(
        file.types(),
        [
            ("filled", unsigned(32)),
            ("upper", unsigned(8)),
            ("yahtzee_50", boolean()),
            ("dice", text()),
            ("rolls_left", unsigned(8)),
            ("best", text()),
            ("expected", double()),
            ("runner_up", text()),
            ("gap", double()),
            // A card's turn has no visit probability, nor a chance of facing its
            // decisions: columns without values.
            ("visit_probability", null()),
            ("faced_probability", null()),
        ]
    );
    assert_eq!(file.group_rows, [756]);
    assert_eq!(
        file.metadata("title"),
        Some("Strategy for one turn: yahtzee")
    );
    let notes = file.metadata("notes").unwrap();
    assert!(notes.contains("expected final score 254.5877"), "{notes}");
    assert_eq!(
        file.metadata("generator"),
        Some(format!("yahtzee {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    // The source: the rules, the version, the table's checksum.
    let source: serde_json::Value = serde_json::from_str(file.metadata("source").unwrap()).unwrap();
    assert_eq!(source["rules"], "yahtzee");
    assert_eq!(source["upper_first"], false);
    assert_eq!(source["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(source["table_checksum"].as_str().map(str::len), Some(8));
    assert_eq!(source["commit"], env!("YAHTZEE_COMMIT"));
    assert_eq!(
        source["dice_generator"],
        yahtzee_core::game::dice::DICE_GENERATOR
    );
    // The box of each bit of `filled`, and what is rounded.
    let bits: Vec<String> = serde_json::from_str(file.metadata("filled_bits").unwrap()).unwrap();
    assert_eq!(bits[0], "ones");
    assert_eq!(bits[11], "yahtzee");
    assert_eq!(bits.len(), 13);
    assert_eq!(
        file.metadata("rounding"),
        Some(
            "expected, gap rounded to 6 decimals (half away from zero); every other number is \
             written as computed (a 64-bit float, not rounded)."
        )
    );
    // What pyarrow, pandas and polars read: unsigned integers, and the strings as
    // dictionaries (categoricals).
    assert_eq!(
        arrow_schema(file.metadata("ARROW:schema").unwrap()),
        [
            ("filled", "uint32"),
            ("upper", "uint8"),
            ("yahtzee_50", "bool"),
            ("dice", "dictionary<int32, utf8>"),
            ("rolls_left", "uint8"),
            ("best", "dictionary<int32, utf8>"),
            ("expected", "float64"),
            ("runner_up", "dictionary<int32, utf8>"),
            ("gap", "float64"),
            ("visit_probability", "null"),
            ("faced_probability", "null"),
        ]
        .map(|(n, t)| (n.to_string(), t.to_string()))
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
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn every_state_and_the_opening_in_parquet_are_their_csv() {
    let states = assert_parquet_is_the_csv(RuleSet::YACHT, Order::Any, &["--all-states"]);
    assert_eq!(
        states.types(),
        [
            ("filled", unsigned(32)),
            ("upper", unsigned(8)),
            ("yahtzee_50", boolean()),
            ("turns_played", unsigned(32)),
            ("expected_remaining", double()),
            ("visit_probability", double()),
        ]
    );
    assert_eq!(states.group_rows, [4096]);
    let opening = assert_parquet_is_the_csv(RuleSet::YATZY, Order::Any, &["--opening"]);
    assert_eq!(opening.group_rows, [252]);
    assert_eq!(opening.types()[0], ("pattern", text()));
}

/// The full policy of Yacht, 3,095,820 rows, in row groups of at most [`ROW_GROUP_ROWS`]:
/// the stream crosses many batches and several groups, and still equals the CSV row for row.
#[test]
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
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
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn columns_without_any_value_have_the_null_type() {
    let card = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,full-house=0,four-of-a-kind=0,little-straight=0,big-straight=0,choice=20";
    let file = assert_parquet_is_the_csv(
        RuleSet::YACHT,
        Order::Any,
        &["--card", card, "--rolls-left", "0"],
    );
    let t = file.types();
    assert_eq!(t[7], ("runner_up", null()));
    assert_eq!(t[8], ("gap", null()));
    let arrow = arrow_schema(file.metadata("ARROW:schema").unwrap());
    assert_eq!(arrow[7], ("runner_up".to_string(), "null".to_string()));
    assert_eq!(arrow[8], ("gap".to_string(), "null".to_string()));
    assert_eq!(file.group_rows, [252]);
}

#[test]
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
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
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn a_target_card_in_parquet_is_its_csv() {
    // export_target_card_wrote_its_stream_not_parquet: the target scope goes through the
    // Parquet writer like every other scope.
    let file = assert_parquet_is_the_csv(
        RuleSet::YACHT,
        Order::Any,
        &["--card", "ones=3,yacht=50", "--target", "150"],
    );
    assert!(file.group_rows.iter().sum::<i64>() > 0);
    assert_eq!(file.types()[3], ("needed", int64()));
}

/// `simulate --per-box FILE.parquet`: the rows of `--per-box FILE.csv` (the same games), with
/// typed columns, the games' metadata (their rules, policy, seed and number, the provenance,
/// a note per column), the same bytes at 1 and 2 threads; any other extension refused.
#[test]
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn simulate_per_box_parquet_is_its_csv_at_any_thread_count() {
    let dir = temp_dir();
    let simulate = |file: &str, threads: &str| {
        let path = dir.path().join(file);
        let o = run(
            RuleSet::YAHTZEE,
            Order::Any,
            &[
                "simulate",
                "--games",
                "2000",
                "--seed",
                "11",
                "--threads",
                threads,
                "--per-box",
                &path_str(&path),
            ],
        );
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        path
    };
    let csv = simulate("games.csv", "1");
    let one = simulate("games.parquet", "1");
    let two = simulate("games-2.parquet", "2");
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let file = assert_files_agree(&csv, &one, &["simulate", "--per-box"]);
    assert_eq!(file.group_rows, [2000]);
    let types = file.types();
    assert_eq!(types.len(), 1 + 13 + 3);
    assert_eq!(types[0], ("game", unsigned(64)));
    assert_eq!(types[12], ("yahtzee", unsigned(16)));
    assert_eq!(types[16], ("total", unsigned(16)));
    assert!(types[1..].iter().all(|(_, t)| *t == unsigned(16)));
    // Self-describing: what the games are, where they come from, what each column means.
    assert_eq!(
        file.metadata("title"),
        Some(
            "yahtzee: each game's boxes, bonuses and total, 2000 games of policy optimal (seed 11)"
        )
    );
    let source: serde_json::Value = serde_json::from_str(file.metadata("source").unwrap()).unwrap();
    assert_eq!(source["rules"], "yahtzee");
    assert_eq!(source["upper_first"], false);
    assert_eq!(source["policy"], "optimal");
    assert_eq!(source["seed"], 11);
    assert_eq!(source["games"], 2000);
    assert_eq!(source["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(source["commit"], env!("YAHTZEE_COMMIT"));
    assert_eq!(
        source["dice_generator"],
        yahtzee_core::game::dice::DICE_GENERATOR
    );
    assert_eq!(source["table_checksum"].as_str().map(str::len), Some(8));
    let notes: Vec<&str> = file.metadata("notes").unwrap().lines().collect();
    for (name, _) in &types {
        assert!(
            notes.iter().any(|n| n.starts_with(&format!("{name}: "))),
            "no note for {name}: {notes:?}"
        );
    }
    assert!(notes.contains(&"yahtzee: the points scored in Yahtzee (box 12 of 13), 0 to 50."));
    // No column is rounded, and there is no `filled` whose bits to name.
    assert_eq!(
        (file.metadata("rounding"), file.metadata("filled_bits")),
        (None, None)
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("upper_bonus: the upper bonus, 35 when"))
    );
    // Another extension: one line, exit 2, before any game.
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "simulate",
            "--games",
            "10",
            "--per-box",
            &path_str(&dir.path().join("games.txt")),
        ],
    );
    assert_bad_input(&o, "end it in .csv or .parquet");
}
