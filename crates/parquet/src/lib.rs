//! The Parquet writer of `yahtzee export --format parquet`: typed columns, zstd, row groups,
//! written in a stream with bounded memory. A crate of its own so that only the binary
//! compiles Arrow and Parquet; the library, the Python module and the fuzz targets do not.
//!
//! Every scope writes Parquet through the same rows and the same exporter calls as CSV, with
//! no code of its own: the scope renders its rows in the core library's typed column stream
//! ([`Format::Columns`], `yahtzee_core::export::columns`), in parallel like the other formats,
//! and [`write`] gives the scope a writer that reads that stream back, builds Arrow columns,
//! and hands a batch of rows at a time to a second thread that encodes them into Parquet on
//! the real output, then writes the footer once the scope is done.
//!
//! Column types follow the Rust types of the row's fields: `u8`, `u16`, `u32`, `u64` are
//! unsigned integers of that width, `bool` is a boolean, `f64` a double, a `&str` a string
//! stored with a dictionary (read back by pandas and polars as a categorical: dice and
//! actions take a few hundred values), an `Option` a nullable column. A column's type is
//! taken from its first value; a column with no value at all in the first
//! [`SCHEMA_ROWS`] rows has the null type (only an export whose every decision has one
//! option can have one, and it is then null throughout).
//!
//! Row groups hold [`ROW_GROUP_ROWS`] rows; memory stays bounded by one row group's encoded
//! columns plus a few batches in flight, however many rows the scope writes.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder,
    Int64Builder, StringDictionaryBuilder, UInt8Builder, UInt16Builder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, NullArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
#[cfg(doc)]
use yahtzee_core::export::Format;
use yahtzee_core::export::columns::{
    Frame, Header, Value, broken, read_frame, read_value, tag, type_name,
};

/// Rows per row group: large enough for good compression and few footers entries (the full
/// `yahtzee` policy has about 390 groups), small enough that a group's encoded columns take a
/// few megabytes of memory.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Rows per batch handed to the encoding thread: the unit of memory in flight.
const BATCH_ROWS: usize = 1 << 16;

/// Batches that may wait for the encoding thread: enough to keep it busy while the scope
/// renders, few enough to bound memory (a batch of the policy is about 3 MB of columns).
const BATCHES_IN_FLIGHT: usize = 4;

/// Rows after which a column that had no value yet is given the null type (see the module
/// documentation).
pub const SCHEMA_ROWS: usize = ROW_GROUP_ROWS;

/// The zstd level: 1, zstd's fastest. Level 3 (zstd's default) cost 23% more CPU than the
/// CSV export of the whole policy, for a file 5.4% of the CSV's; on the upper-first policy
/// level 1 takes 8% less CPU than 3 for a file 1.3% larger (`results/parquet-*.md`).
const ZSTD_LEVEL: i32 = 1;

/// The payload of `value`, whose tag was checked to be the column's.
macro_rules! as_type {
    ($value:expr, $variant:ident) => {
        match $value {
            Value::$variant(v) => v,
            _ => unreachable!("the tag was checked"),
        }
    };
}

/// The Arrow builder of one column, chosen by its first value.
enum Column {
    /// No value yet: this many nulls so far.
    Untyped(usize),
    Bool(BooleanBuilder),
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Str(StringDictionaryBuilder<Int32Type>),
    /// Typed null: the column had no value in the first [`SCHEMA_ROWS`] rows.
    Null(usize),
}

impl Column {
    fn data_type(&self) -> DataType {
        match self {
            Column::Untyped(_) | Column::Null(_) => DataType::Null,
            Column::Bool(_) => DataType::Boolean,
            Column::U8(_) => DataType::UInt8,
            Column::U16(_) => DataType::UInt16,
            Column::U32(_) => DataType::UInt32,
            Column::U64(_) => DataType::UInt64,
            Column::I8(_) => DataType::Int8,
            Column::I16(_) => DataType::Int16,
            Column::I32(_) => DataType::Int32,
            Column::I64(_) => DataType::Int64,
            Column::F32(_) => DataType::Float32,
            Column::F64(_) => DataType::Float64,
            Column::Str(_) => {
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
            }
        }
    }

    fn tag(&self) -> Option<u8> {
        Some(match self {
            Column::Untyped(_) | Column::Null(_) => return None,
            Column::Bool(_) => tag::BOOL,
            Column::U8(_) => tag::U8,
            Column::U16(_) => tag::U16,
            Column::U32(_) => tag::U32,
            Column::U64(_) => tag::U64,
            Column::I8(_) => tag::I8,
            Column::I16(_) => tag::I16,
            Column::I32(_) => tag::I32,
            Column::I64(_) => tag::I64,
            Column::F32(_) => tag::F32,
            Column::F64(_) => tag::F64,
            Column::Str(_) => tag::STR,
        })
    }

    /// A builder for values of `tag`, holding `nulls` nulls first.
    fn typed(tag: u8, nulls: usize) -> io::Result<Column> {
        macro_rules! make {
            ($variant:ident, $builder:ty) => {{
                let mut b = <$builder>::with_capacity(BATCH_ROWS);
                b.append_nulls(nulls);
                Column::$variant(b)
            }};
        }
        Ok(match tag {
            tag::BOOL => make!(Bool, BooleanBuilder),
            tag::U8 => make!(U8, UInt8Builder),
            tag::U16 => make!(U16, UInt16Builder),
            tag::U32 => make!(U32, UInt32Builder),
            tag::U64 => make!(U64, UInt64Builder),
            tag::I8 => make!(I8, Int8Builder),
            tag::I16 => make!(I16, Int16Builder),
            tag::I32 => make!(I32, Int32Builder),
            tag::I64 => make!(I64, Int64Builder),
            tag::F32 => make!(F32, Float32Builder),
            tag::F64 => make!(F64, Float64Builder),
            tag::STR => {
                let mut b = StringDictionaryBuilder::<Int32Type>::new();
                for _ in 0..nulls {
                    b.append_null();
                }
                Column::Str(b)
            }
            _ => return Err(broken("an unknown value tag")),
        })
    }

    /// Appends `value`; `name` names the column in errors.
    fn push(&mut self, name: &str, value: Value<'_>) -> io::Result<()> {
        let tag = value.tag();
        if tag == tag::NULL {
            match self {
                Column::Untyped(n) | Column::Null(n) => *n += 1,
                Column::Bool(b) => b.append_null(),
                Column::U8(b) => b.append_null(),
                Column::U16(b) => b.append_null(),
                Column::U32(b) => b.append_null(),
                Column::U64(b) => b.append_null(),
                Column::I8(b) => b.append_null(),
                Column::I16(b) => b.append_null(),
                Column::I32(b) => b.append_null(),
                Column::I64(b) => b.append_null(),
                Column::F32(b) => b.append_null(),
                Column::F64(b) => b.append_null(),
                Column::Str(b) => b.append_null(),
            }
            return Ok(());
        }
        if let Column::Untyped(nulls) = self {
            *self = Column::typed(tag, *nulls)?;
        }
        if self.tag() != Some(tag) {
            let had = match self {
                Column::Null(_) => format!(
                    "no value in its first {SCHEMA_ROWS} rows, so it was given the null type"
                ),
                other => format!("type {}", type_name(other.tag().unwrap_or(0))),
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "column `{name}` has {had}, and then a value of type {}",
                    type_name(tag)
                ),
            ));
        }
        match self {
            Column::Bool(b) => b.append_value(as_type!(value, Bool)),
            Column::U8(b) => b.append_value(as_type!(value, U8)),
            Column::U16(b) => b.append_value(as_type!(value, U16)),
            Column::U32(b) => b.append_value(as_type!(value, U32)),
            Column::U64(b) => b.append_value(as_type!(value, U64)),
            Column::I8(b) => b.append_value(as_type!(value, I8)),
            Column::I16(b) => b.append_value(as_type!(value, I16)),
            Column::I32(b) => b.append_value(as_type!(value, I32)),
            Column::I64(b) => b.append_value(as_type!(value, I64)),
            Column::F32(b) => b.append_value(as_type!(value, F32)),
            Column::F64(b) => b.append_value(as_type!(value, F64)),
            Column::Str(b) => {
                b.append(as_type!(value, Str)).map_err(io::Error::other)?;
            }
            Column::Untyped(_) | Column::Null(_) => unreachable!("typed above"),
        }
        Ok(())
    }

    /// The column's values so far as an array, leaving the builder empty.
    fn finish(&mut self, rows: usize) -> ArrayRef {
        match self {
            Column::Untyped(n) | Column::Null(n) => {
                *n = 0;
                Arc::new(NullArray::new(rows))
            }
            Column::Bool(b) => Arc::new(b.finish()),
            Column::U8(b) => Arc::new(b.finish()),
            Column::U16(b) => Arc::new(b.finish()),
            Column::U32(b) => Arc::new(b.finish()),
            Column::U64(b) => Arc::new(b.finish()),
            Column::I8(b) => Arc::new(b.finish()),
            Column::I16(b) => Arc::new(b.finish()),
            Column::I32(b) => Arc::new(b.finish()),
            Column::I64(b) => Arc::new(b.finish()),
            Column::F32(b) => Arc::new(b.finish()),
            Column::F64(b) => Arc::new(b.finish()),
            Column::Str(b) => Arc::new(b.finish()),
        }
    }
}

/// The writer properties of every file: zstd, row groups of [`ROW_GROUP_ROWS`], the
/// document's title and notes as key-value metadata. Floating-point columns (values,
/// chances) are written plain, without a dictionary: their values are nearly all distinct,
/// so a dictionary would be built for every page only to be given up (the default tries
/// one for every column), which cost more time than the rest of their encoding.
fn properties(header: &Header, schema: &Schema) -> io::Result<WriterProperties> {
    let level = ZstdLevel::try_new(ZSTD_LEVEL).map_err(io::Error::other)?;
    let mut metadata = vec![KeyValue::new("title".to_string(), header.title.clone())];
    if !header.notes.is_empty() {
        metadata.push(KeyValue::new("notes".to_string(), header.notes.join("\n")));
    }
    metadata.push(KeyValue::new(
        "generator".to_string(),
        format!("yahtzee {}", env!("CARGO_PKG_VERSION")),
    ));
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_key_value_metadata(Some(metadata));
    for field in schema.fields() {
        if field.data_type().is_floating() {
            builder = builder
                .set_column_dictionary_enabled(ColumnPath::from(field.name().as_str()), false);
        }
    }
    Ok(builder.build())
}

/// What the scope's writer sends to the encoding thread.
enum Message {
    /// The schema and properties of the file: the first message.
    Start(SchemaRef, Box<WriterProperties>),
    /// A batch of rows.
    Batch(RecordBatch),
}

/// The writer a scope writes its rendered stream to: reads the frames back, builds columns,
/// and sends batches to the encoding thread.
struct Sink {
    pending: Vec<u8>,
    header: Option<Header>,
    columns: Vec<Column>,
    rows: usize,
    /// Rows seen so far, all batches included.
    total: u64,
    /// The schema, once every column has a type (or [`SCHEMA_ROWS`] rows went by).
    schema: Option<SchemaRef>,
    /// Batches held back until the schema is known.
    held: Vec<Vec<ArrayRef>>,
    tx: SyncSender<Message>,
    /// The encoding thread stopped taking batches (it failed: its error says why).
    stopped: bool,
}

impl Sink {
    /// Reads the complete frames at the start of `bytes` and returns how many bytes they
    /// took; an incomplete last frame is left for the next write.
    fn frames(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut at = 0;
        while let Some((frame, used)) = read_frame(&bytes[at..])? {
            match frame {
                Frame::Header(header) => self.begin(header)?,
                Frame::Rows(payload) => self.decode(payload)?,
            }
            at += used;
        }
        Ok(at)
    }

    fn begin(&mut self, header: Header) -> io::Result<()> {
        if self.header.is_some() {
            return Err(broken("a second header"));
        }
        self.columns = header.columns.iter().map(|_| Column::Untyped(0)).collect();
        self.header = Some(header);
        Ok(())
    }

    fn decode(&mut self, payload: &[u8]) -> io::Result<()> {
        let mut at = 0;
        while at < payload.len() {
            let header = self
                .header
                .as_ref()
                .ok_or_else(|| broken("rows before the header"))?;
            for (column, name) in self.columns.iter_mut().zip(&header.columns) {
                column.push(name, read_value(payload, &mut at)?)?;
            }
            self.rows += 1;
            if self.rows == BATCH_ROWS {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Ends the current batch: sends it, or holds it while a column has no type yet.
    fn flush(&mut self) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let rows = self.rows;
        let arrays: Vec<ArrayRef> = self.columns.iter_mut().map(|c| c.finish(rows)).collect();
        self.total += rows as u64;
        self.rows = 0;
        self.held.push(arrays);
        let typed = self
            .columns
            .iter()
            .all(|c| !matches!(c, Column::Untyped(_)));
        if self.schema.is_none() && (typed || self.total >= SCHEMA_ROWS as u64) {
            self.start()?;
        }
        if self.schema.is_some() {
            self.send_held()?;
        }
        Ok(())
    }

    /// Fixes the schema: every column's type, the null type for those without a value yet.
    fn start(&mut self) -> io::Result<()> {
        let header = self.header.as_ref().expect("rows come after the header");
        for column in &mut self.columns {
            if let Column::Untyped(n) = column {
                *column = Column::Null(*n);
            }
        }
        let fields: Vec<Field> = header
            .columns
            .iter()
            .zip(&self.columns)
            .map(|(name, c)| Field::new(name, c.data_type(), true))
            .collect();
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        self.send(Message::Start(
            Arc::clone(&schema),
            Box::new(properties(header, &schema)?),
        ))?;
        self.schema = Some(schema);
        Ok(())
    }

    fn send_held(&mut self) -> io::Result<()> {
        let schema = Arc::clone(self.schema.as_ref().expect("the schema is fixed"));
        for arrays in std::mem::take(&mut self.held) {
            // A batch held back from before its columns were typed has null arrays for them:
            // those become nulls of the type found since.
            let arrays: Vec<ArrayRef> = arrays
                .into_iter()
                .zip(schema.fields())
                .map(|(a, f)| {
                    if a.data_type() == f.data_type() {
                        a
                    } else {
                        arrow_array::new_null_array(f.data_type(), a.len())
                    }
                })
                .collect();
            let rows = arrays.first().map_or(0, |a| a.len());
            let batch = RecordBatch::try_new_with_options(
                Arc::clone(&schema),
                arrays,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )
            .map_err(io::Error::other)?;
            self.send(Message::Batch(batch))?;
        }
        Ok(())
    }

    fn send(&mut self, message: Message) -> io::Result<()> {
        // The encoding thread ended early: its own error is returned when it is joined.
        self.tx.send(message).map_err(|_| {
            self.stopped = true;
            io::Error::other("the Parquet encoder stopped")
        })
    }

    /// After the scope: the last rows, and the schema of a file with no row or few rows.
    fn finish(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            return Err(broken("the last frame is cut off"));
        }
        if self.header.is_none() {
            return Err(broken("no header: nothing was exported"));
        }
        self.flush()?;
        if self.schema.is_none() {
            self.start()?;
            self.send_held()?;
        }
        Ok(())
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            // The usual case: the scope writes whole frames, read in place.
            let used = self.frames(buf)?;
            self.pending.extend_from_slice(&buf[used..]);
        } else {
            let mut pending = std::mem::take(&mut self.pending);
            pending.extend_from_slice(buf);
            let used = self.frames(&pending)?;
            pending.drain(..used);
            self.pending = pending;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A Parquet error as an I/O error: the error of the output itself (a full disk) as it was.
fn io_error(e: parquet::errors::ParquetError) -> io::Error {
    match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(io) => *io,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

/// The encoding thread: writes each batch into the Parquet file on `out`, then the footer.
fn encode<W: Write + Send>(out: W, rx: Receiver<Message>) -> io::Result<W> {
    let Ok(Message::Start(schema, props)) = rx.recv() else {
        // The scope failed before its first batch: nothing to write.
        return Err(io::Error::other("no rows were exported"));
    };
    let mut writer = ArrowWriter::try_new(out, schema, Some(*props)).map_err(io_error)?;
    for message in rx {
        match message {
            Message::Batch(batch) => writer.write(&batch).map_err(io_error)?,
            Message::Start(..) => return Err(io::Error::other("a second schema")),
        }
    }
    writer.into_inner().map_err(io_error)
}

/// Writes a Parquet file on `out` from the rows that `scope` exports in [`Format::Columns`]
/// to the writer it is given (any scope's
/// `write_*` function), and returns what `scope` returns with `out`. The rows are encoded on
/// a second thread while the scope renders the next ones. If `scope` fails, its error is
/// returned and `out` has a partial file: write through `yahtzee_core::files::write_file`.
pub fn write<W, T, E>(
    out: W,
    scope: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<(T, W), E>
where
    W: Write + Send,
    E: From<io::Error>,
{
    let (tx, rx) = sync_channel(BATCHES_IN_FLIGHT);
    std::thread::scope(|s| {
        let encoder = s.spawn(move || encode(out, rx));
        let mut sink = Sink {
            pending: Vec::new(),
            header: None,
            columns: Vec::new(),
            rows: 0,
            total: 0,
            schema: None,
            held: Vec::new(),
            tx,
            stopped: false,
        };
        let scoped = scope(&mut sink);
        let finished = match &scoped {
            Ok(_) => sink.finish(),
            Err(_) => Ok(()),
        };
        let stopped = sink.stopped;
        // Ends the encoder's input: it writes the footer and returns.
        drop(sink);
        let encoded = encoder
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the Parquet encoder panicked")));
        match (scoped, finished, encoded) {
            (Ok(value), Ok(()), Ok(out)) => Ok((value, out)),
            // The encoder's own error (a full disk) explains a failed send better than the
            // send does.
            (_, _, Err(e)) if stopped => Err(E::from(e)),
            (Err(e), _, _) => Err(e),
            (Ok(_), Err(e), _) | (Ok(_), Ok(()), Err(e)) => Err(E::from(e)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use serde::Serialize;
    use yahtzee_core::export::columns::ColumnsExporter;
    use yahtzee_core::export::{Exporter, Meta, Row};

    /// A row whose `late` field has no value in the first `nulls` rows.
    #[derive(Serialize)]
    struct Late {
        n: u32,
        late: Option<f64>,
    }

    impl Row for Late {
        const COLUMNS: &'static [&'static str] = &["n", "late"];
        const TITLES: &'static [&'static str] = &["n", "late"];
    }

    fn export_late(rows: usize, nulls: usize) -> Result<Vec<u8>, io::Error> {
        let exporter: Box<dyn Exporter<Late>> = Box::new(ColumnsExporter);
        let (_, out) = write(Vec::new(), |out| -> io::Result<()> {
            let mut buf = Vec::new();
            exporter.begin(&Meta::default(), &mut buf);
            out.write_all(&buf)?;
            // Chunks of an odd size, written in pieces that cut frames in two.
            let all: Vec<Late> = (0..rows)
                .map(|n| Late {
                    n: n as u32,
                    late: (n >= nulls).then_some(n as f64 / 2.0),
                })
                .collect();
            for chunk in all.chunks(10_007) {
                buf.clear();
                exporter.rows(chunk, &mut buf)?;
                let (a, b) = buf.split_at(buf.len() / 3);
                out.write_all(a)?;
                out.write_all(b)?;
            }
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn a_column_typed_after_some_batches_keeps_its_first_nulls() {
        let rows = 3 * BATCH_ROWS + 5;
        let nulls = 2 * BATCH_ROWS + 3;
        let bytes = export_late(rows, nulls).unwrap();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let mut seen = 0;
        for batch in reader {
            let batch = batch.unwrap();
            assert_eq!(batch.schema().field(1).data_type(), &DataType::Float64);
            let n = batch.column(0).as_primitive::<UInt32Type>();
            let late = batch.column(1).as_primitive::<Float64Type>();
            for i in 0..batch.num_rows() {
                assert_eq!(n.value(i) as usize, seen);
                if seen < nulls {
                    assert!(late.is_null(i), "row {seen}");
                } else {
                    assert_eq!(late.value(i), seen as f64 / 2.0);
                }
                seen += 1;
            }
        }
        assert_eq!(seen, rows);
    }

    #[test]
    fn a_value_after_the_schema_fixed_a_column_as_null_is_an_error() {
        let e = export_late(SCHEMA_ROWS + BATCH_ROWS + 1, SCHEMA_ROWS + BATCH_ROWS).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "column `late` has no value in its first {SCHEMA_ROWS} rows, so it was given the null type, and then a value of type f64"
            )
        );
    }

    /// A writer that fails once it has taken `room` bytes, like a full disk.
    #[derive(Debug)]
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if buf.len() > self.room {
                return Err(io::Error::other("no space left on device"));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_disk_stops_the_export_with_its_own_error() {
        let exporter: Box<dyn Exporter<Late>> = Box::new(ColumnsExporter);
        let mut batches = 0;
        let got = write(Full { room: 100_000 }, |out| -> io::Result<()> {
            let mut buf = Vec::new();
            exporter.begin(&Meta::default(), &mut buf);
            out.write_all(&buf)?;
            // Far more rows than the room: the export must stop, not run on.
            for _ in 0..10_000 {
                let rows: Vec<Late> = (0..BATCH_ROWS)
                    .map(|n| Late {
                        n: n as u32 * 7919,
                        late: Some(n as f64 * 1.37),
                    })
                    .collect();
                buf.clear();
                exporter.rows(&rows, &mut buf)?;
                out.write_all(&buf)?;
                batches += 1;
            }
            Ok(())
        });
        assert_eq!(got.unwrap_err().to_string(), "no space left on device");
        assert!(batches < 10_000, "{batches}");
    }

    #[test]
    fn a_failed_scope_returns_its_error() {
        let got = write(Vec::new(), |_out| -> io::Result<()> {
            Err(io::Error::other("the table is damaged"))
        });
        assert_eq!(got.unwrap_err().to_string(), "the table is damaged");
    }
}
