//! The Parquet writer of `yahtzee export --format parquet` and of `yahtzee simulate --per-box
//! FILE.parquet`: typed columns, zstd, row groups, written in a stream with bounded memory. A
//! crate of its own so that only the binary compiles Parquet; the library, the Python module
//! and the fuzz targets do not.
//!
//! Every scope writes Parquet through the same rows and the same exporter calls as CSV, with
//! no code of its own: the scope renders its rows in the core library's typed column stream
//! ([`Format::Columns`], `yahtzee_core::export::columns`), in parallel like the other formats,
//! and [`write`] gives the scope a writer that reads that stream back into columns of plain
//! values and definition levels, and hands a batch of rows at a time to a second thread that
//! encodes them with the `parquet` crate's low-level column writers (no Arrow arrays) and
//! writes the file on the real output, then the footer once the scope is done. The columns'
//! names come from the stream's header, never from a row type, so rows whose columns depend on
//! the rules (a simulation's games, a column per box) are written by the same [`write`]
//! (`yahtzee_core::report::write_per_box_columns`).
//!
//! Column types follow the Rust types of the row's fields: `u8`, `u16`, `u32`, `u64` are
//! unsigned integers of that width, `bool` is a boolean, `f64` a double, a `&str` a string
//! stored with a dictionary (read back by pandas and polars as a categorical: dice and
//! actions take a few hundred values), an `Option` a nullable column (every column is
//! nullable). A column's type is taken from its first value; a column with no value at all
//! in the first [`SCHEMA_ROWS`] rows has the null type (only an export whose every decision
//! has one option can have one, and it is then null throughout). The Parquet types are the
//! ones Arrow's Parquet writer gives these Arrow types, and the file carries the Arrow schema
//! too (the `ARROW:schema` metadata, see the `arrow` module), so that Arrow readers see
//! `uint8` and `dictionary<int32, utf8>` columns, not `int32` and plain text.
//!
//! Row groups hold [`ROW_GROUP_ROWS`] rows; memory stays bounded by one row group's encoded
//! columns plus a few batches in flight, however many rows the scope writes.

mod arrow;

use std::io::{self, Write};
use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType, ZstdLevel};
use parquet::column::page::{CompressedPage, PageWriteSpec, PageWriter};
use parquet::column::writer::{ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{
    DEFAULT_DATA_PAGE_ROW_COUNT_LIMIT, EnabledStatistics, WriterProperties, WriterPropertiesPtr,
};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{ColumnDescPtr, ColumnPath, Type, TypePtr};
#[cfg(doc)]
use yahtzee_core::export::Format;
use yahtzee_core::export::columns::{
    Frame, Header, Value, broken, read_frame, read_value, tag, type_name,
};

use arrow::ArrowType;

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

/// Rows per data page: parquet's default limit, and the size of the batches its column writers
/// take values in, so that a page ends when it reaches the limit, not at the next multiple of
/// 1,024 rows (the default batch). Pages of 20,480 rows made the upper-first policy's file
/// 2.5% larger than Arrow's writer did with pages of 20,000 (every column larger, doubles
/// too); with this setting the same columns have the same sizes.
const PAGE_ROWS: usize = DEFAULT_DATA_PAGE_ROW_COUNT_LIMIT;

/// The name of the schema's root: the one Arrow's Parquet writer gives it.
const ROOT: &str = "arrow_schema";

/// The type of a column, taken from its first value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// No value yet.
    Untyped,
    /// The null type: the column had no value in the first [`SCHEMA_ROWS`] rows.
    Null,
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Str,
}

impl Kind {
    /// The type of values of `tag`.
    fn of_tag(tag: u8) -> io::Result<Kind> {
        Ok(match tag {
            tag::BOOL => Kind::Bool,
            tag::U8 => Kind::U8,
            tag::U16 => Kind::U16,
            tag::U32 => Kind::U32,
            tag::U64 => Kind::U64,
            tag::I8 => Kind::I8,
            tag::I16 => Kind::I16,
            tag::I32 => Kind::I32,
            tag::I64 => Kind::I64,
            tag::F32 => Kind::F32,
            tag::F64 => Kind::F64,
            tag::STR => Kind::Str,
            _ => return Err(broken("an unknown value tag")),
        })
    }

    /// The tag of the values of this type (`None` before the first value and for the null
    /// type).
    fn tag(self) -> Option<u8> {
        Some(match self {
            Kind::Untyped | Kind::Null => return None,
            Kind::Bool => tag::BOOL,
            Kind::U8 => tag::U8,
            Kind::U16 => tag::U16,
            Kind::U32 => tag::U32,
            Kind::U64 => tag::U64,
            Kind::I8 => tag::I8,
            Kind::I16 => tag::I16,
            Kind::I32 => tag::I32,
            Kind::I64 => tag::I64,
            Kind::F32 => tag::F32,
            Kind::F64 => tag::F64,
            Kind::Str => tag::STR,
        })
    }

    /// The Parquet column of this type: its physical type and its logical type, as Arrow's
    /// Parquet writer gives them (so a signed integer of 32 or 64 bits has none).
    fn parquet_type(self, name: &str) -> parquet::errors::Result<Type> {
        let (physical, logical) = match self {
            Kind::Untyped | Kind::Null => (PhysicalType::INT32, Some(LogicalType::Unknown)),
            Kind::Bool => (PhysicalType::BOOLEAN, None),
            Kind::U8 => (PhysicalType::INT32, Some(LogicalType::integer(8, false))),
            Kind::U16 => (PhysicalType::INT32, Some(LogicalType::integer(16, false))),
            Kind::U32 => (PhysicalType::INT32, Some(LogicalType::integer(32, false))),
            Kind::U64 => (PhysicalType::INT64, Some(LogicalType::integer(64, false))),
            Kind::I8 => (PhysicalType::INT32, Some(LogicalType::integer(8, true))),
            Kind::I16 => (PhysicalType::INT32, Some(LogicalType::integer(16, true))),
            Kind::I32 => (PhysicalType::INT32, None),
            Kind::I64 => (PhysicalType::INT64, None),
            Kind::F32 => (PhysicalType::FLOAT, None),
            Kind::F64 => (PhysicalType::DOUBLE, None),
            Kind::Str => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
        };
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()
    }

    /// The Arrow type of this type, for the `ARROW:schema` metadata.
    fn arrow_type(self) -> ArrowType {
        match self {
            Kind::Untyped | Kind::Null => ArrowType::Null,
            Kind::Bool => ArrowType::Bool,
            Kind::U8 => ArrowType::Int {
                bits: 8,
                signed: false,
            },
            Kind::U16 => ArrowType::Int {
                bits: 16,
                signed: false,
            },
            Kind::U32 => ArrowType::Int {
                bits: 32,
                signed: false,
            },
            Kind::U64 => ArrowType::Int {
                bits: 64,
                signed: false,
            },
            Kind::I8 => ArrowType::Int {
                bits: 8,
                signed: true,
            },
            Kind::I16 => ArrowType::Int {
                bits: 16,
                signed: true,
            },
            Kind::I32 => ArrowType::Int {
                bits: 32,
                signed: true,
            },
            Kind::I64 => ArrowType::Int {
                bits: 64,
                signed: true,
            },
            Kind::F32 => ArrowType::Float32,
            Kind::F64 => ArrowType::Float64,
            Kind::Str => ArrowType::DictionaryUtf8,
        }
    }

    /// Empty values of this type, with room for `capacity` of them.
    fn values(self, capacity: usize) -> Values {
        match self {
            Kind::Untyped | Kind::Null => Values::None,
            Kind::Bool => Values::Bool(Vec::with_capacity(capacity)),
            Kind::U8 | Kind::U16 | Kind::U32 | Kind::I8 | Kind::I16 | Kind::I32 => {
                Values::Int32(Vec::with_capacity(capacity))
            }
            Kind::U64 | Kind::I64 => Values::Int64(Vec::with_capacity(capacity)),
            Kind::F32 => Values::Float(Vec::with_capacity(capacity)),
            Kind::F64 => Values::Double(Vec::with_capacity(capacity)),
            Kind::Str => Values::Text {
                bytes: Vec::new(),
                ends: Vec::with_capacity(capacity),
            },
        }
    }
}

/// A column's values in a batch, as Parquet stores them: only the values present (the nulls
/// are in the definition levels), unsigned integers in the bits of the signed physical type.
enum Values {
    /// No value: a column of the null type, or one without a type yet (then its nulls are
    /// nulls of the type found later).
    None,
    Bool(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    /// Strings: their bytes one after the other, and where each one ends.
    Text {
        bytes: Vec<u8>,
        ends: Vec<u32>,
    },
}

impl Values {
    /// The values so far, leaving empty values of the same type with room for as many.
    fn take(&mut self) -> Values {
        fn fresh<T>(v: &mut Vec<T>) -> Vec<T> {
            std::mem::replace(v, Vec::with_capacity(v.len()))
        }
        match self {
            Values::None => Values::None,
            Values::Bool(v) => Values::Bool(fresh(v)),
            Values::Int32(v) => Values::Int32(fresh(v)),
            Values::Int64(v) => Values::Int64(fresh(v)),
            Values::Float(v) => Values::Float(fresh(v)),
            Values::Double(v) => Values::Double(fresh(v)),
            Values::Text { bytes, ends } => Values::Text {
                bytes: fresh(bytes),
                ends: fresh(ends),
            },
        }
    }
}

/// One column of a batch: the definition level of every row (1: a value, 0: null), or none
/// when every row has a value, and the values present.
struct ColumnBatch {
    levels: Vec<i16>,
    values: Values,
}

/// The rows of a batch, column by column.
struct Batch {
    rows: usize,
    columns: Vec<ColumnBatch>,
}

/// A column being read from the stream: its type and its batch so far.
struct Column {
    kind: Kind,
    /// The tag of the values the column takes ([`tag::NULL`], which no value has, before
    /// its first value and for the null type).
    tag: u8,
    /// The batch's rows so far.
    rows: usize,
    /// The definition levels of those rows, written from the batch's first null on: a batch
    /// without a null (most batches of most columns) has none.
    levels: Vec<i16>,
    values: Values,
}

impl Column {
    fn new() -> Column {
        Column {
            kind: Kind::Untyped,
            tag: tag::NULL,
            rows: 0,
            levels: Vec::new(),
            values: Values::None,
        }
    }

    /// Appends `value`; `name` names the column in errors.
    #[inline]
    fn push(&mut self, name: &str, value: Value<'_>) -> io::Result<()> {
        let tag = value.tag();
        if tag == tag::NULL {
            // The rows before the first null all had a value.
            self.levels.resize(self.rows, 1);
            self.levels.push(0);
            self.rows += 1;
            return Ok(());
        }
        if tag != self.tag {
            self.retype(name, tag)?;
        }
        if !self.levels.is_empty() {
            self.levels.push(1);
        }
        self.rows += 1;
        match (&mut self.values, value) {
            (Values::Bool(v), Value::Bool(x)) => v.push(x),
            (Values::Int32(v), Value::U8(x)) => v.push(i32::from(x)),
            (Values::Int32(v), Value::U16(x)) => v.push(i32::from(x)),
            // Parquet keeps an unsigned integer in the bits of its signed physical type.
            (Values::Int32(v), Value::U32(x)) => v.push(x as i32),
            (Values::Int64(v), Value::U64(x)) => v.push(x as i64),
            (Values::Int32(v), Value::I8(x)) => v.push(i32::from(x)),
            (Values::Int32(v), Value::I16(x)) => v.push(i32::from(x)),
            (Values::Int32(v), Value::I32(x)) => v.push(x),
            (Values::Int64(v), Value::I64(x)) => v.push(x),
            (Values::Float(v), Value::F32(x)) => v.push(x),
            (Values::Double(v), Value::F64(x)) => v.push(x),
            (Values::Text { bytes, ends }, Value::Str(s)) => {
                bytes.extend_from_slice(s.as_bytes());
                let end = u32::try_from(bytes.len()).map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("column `{name}` has over 4 GiB of text in {BATCH_ROWS} rows"),
                    )
                })?;
                ends.push(end);
            }
            _ => unreachable!("the column has the value's type"),
        }
        Ok(())
    }

    /// The first value of a column without a type gives it its type; a value of another type
    /// than the column's is an error.
    #[cold]
    fn retype(&mut self, name: &str, tag: u8) -> io::Result<()> {
        if self.kind == Kind::Untyped {
            self.kind = Kind::of_tag(tag)?;
            self.tag = tag;
            self.values = self.kind.values(BATCH_ROWS);
            return Ok(());
        }
        let had = match self.kind.tag() {
            None => {
                format!("no value in its first {SCHEMA_ROWS} rows, so it was given the null type")
            }
            Some(had) => format!("type {}", type_name(had)),
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "column `{name}` has {had}, and then a value of type {}",
                type_name(tag)
            ),
        ))
    }

    /// The column's batch so far, leaving it empty.
    fn take(&mut self) -> ColumnBatch {
        self.rows = 0;
        ColumnBatch {
            levels: std::mem::take(&mut self.levels),
            values: self.values.take(),
        }
    }
}

/// The writer properties of every file: zstd, chunk statistics, the document's title and
/// notes and the Arrow schema as key-value metadata. Floating-point columns (values,
/// chances) are written plain, without a dictionary: their values are nearly all distinct,
/// so a dictionary would be built for every page only to be given up (the default tries
/// one for every column), which cost more time than the rest of their encoding.
fn properties(header: &Header, kinds: &[Kind]) -> io::Result<WriterProperties> {
    let level = ZstdLevel::try_new(ZSTD_LEVEL).map_err(io_error)?;
    let mut metadata = vec![KeyValue::new("title".to_string(), header.title.clone())];
    if !header.notes.is_empty() {
        metadata.push(KeyValue::new("notes".to_string(), header.notes.join("\n")));
    }
    metadata.push(KeyValue::new(
        "generator".to_string(),
        format!("yahtzee {}", yahtzee_core::report::VERSION),
    ));
    if !header.source.is_empty() {
        // The rules, the version, the commit, the dice generator and the table's checksum,
        // as one JSON object.
        metadata.push(KeyValue::new("source".to_string(), header.source.clone()));
    }
    if !header.filled_bits.is_empty() {
        // The box of each bit of `filled`: a JSON array, bit `i` its `i`-th name.
        metadata.push(KeyValue::new(
            "filled_bits".to_string(),
            header.filled_bits.clone(),
        ));
    }
    if !header.rounding.is_empty() {
        metadata.push(KeyValue::new(
            "rounding".to_string(),
            header.rounding.clone(),
        ));
    }
    let fields: Vec<(&str, ArrowType)> = header
        .columns
        .iter()
        .zip(kinds)
        .map(|(name, kind)| (name.as_str(), kind.arrow_type()))
        .collect();
    metadata.push(KeyValue::new(
        "ARROW:schema".to_string(),
        arrow::encode(&fields),
    ));
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_write_batch_size(PAGE_ROWS)
        .set_key_value_metadata(Some(metadata));
    for (name, kind) in header.columns.iter().zip(kinds) {
        if matches!(kind, Kind::F32 | Kind::F64) {
            builder = builder.set_column_dictionary_enabled(ColumnPath::from(name.as_str()), false);
        }
    }
    Ok(builder.build())
}

/// What the scope's writer sends to the encoding thread.
enum Message {
    /// The schema and properties of the file: the first message.
    Start(TypePtr, WriterPropertiesPtr),
    /// A batch of rows.
    Batch(Batch),
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
    /// The schema was sent: every column has a type (or [`SCHEMA_ROWS`] rows went by).
    started: bool,
    /// Batches held back until the schema is known.
    held: Vec<Batch>,
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
        self.columns = header.columns.iter().map(|_| Column::new()).collect();
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
        let columns = self.columns.iter_mut().map(Column::take).collect();
        self.total += rows as u64;
        self.rows = 0;
        self.held.push(Batch { rows, columns });
        let typed = self.columns.iter().all(|c| c.kind != Kind::Untyped);
        if !self.started && (typed || self.total >= SCHEMA_ROWS as u64) {
            self.start()?;
        }
        if self.started {
            self.send_held()?;
        }
        Ok(())
    }

    /// Fixes the schema: every column's type, the null type for those without a value yet.
    fn start(&mut self) -> io::Result<()> {
        let header = self
            .header
            .as_ref()
            .ok_or_else(|| broken("no header: nothing was exported"))?;
        for column in &mut self.columns {
            if column.kind == Kind::Untyped {
                column.kind = Kind::Null;
            }
        }
        let kinds: Vec<Kind> = self.columns.iter().map(|c| c.kind).collect();
        let fields = header
            .columns
            .iter()
            .zip(&kinds)
            .map(|(name, kind)| kind.parquet_type(name).map(Arc::new))
            .collect::<parquet::errors::Result<Vec<_>>>()
            .map_err(io_error)?;
        let schema = Type::group_type_builder(ROOT)
            .with_fields(fields)
            .build()
            .map_err(io_error)?;
        let properties = properties(header, &kinds)?;
        self.send(Message::Start(Arc::new(schema), Arc::new(properties)))?;
        self.started = true;
        Ok(())
    }

    fn send_held(&mut self) -> io::Result<()> {
        for batch in std::mem::take(&mut self.held) {
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
        if !self.started {
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
fn io_error(e: ParquetError) -> io::Error {
    match e {
        ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(io) => *io,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

/// A buffer that a column chunk's pages are written to and that its row group reads them
/// back from: shared, since the column writer owns (and drops) its page writer.
#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// The bytes written so far, leaving the buffer empty.
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The page writer of a column chunk: pages serialized as in the file (header, then data)
/// into memory, with offsets from the chunk's start, until the row group is complete and
/// its chunks are copied to the file one after the other.
struct MemoryPages {
    sink: TrackedWrite<SharedBuffer>,
}

impl PageWriter for MemoryPages {
    fn write_page(&mut self, page: CompressedPage) -> parquet::errors::Result<PageWriteSpec> {
        SerializedPageWriter::new(&mut self.sink).write_page(page)
    }

    fn close(&mut self) -> parquet::errors::Result<()> {
        self.sink.flush()?;
        Ok(())
    }
}

/// One column of the row group being encoded: its writer and the buffer of its pages.
struct Chunk {
    writer: ColumnWriter<'static>,
    pages: SharedBuffer,
}

impl Chunk {
    fn new(column: &ColumnDescPtr, properties: &WriterPropertiesPtr) -> Chunk {
        let pages = SharedBuffer::default();
        let page_writer = MemoryPages {
            sink: TrackedWrite::new(pages.clone()),
        };
        Chunk {
            writer: get_column_writer(
                Arc::clone(column),
                Arc::clone(properties),
                Box::new(page_writer),
            ),
            pages,
        }
    }
}

/// Writes rows of a batch's column with its chunk's `writer`: their definition `levels` and
/// the `range` of the column's values that they hold; `text` is the strings' bytes of a text
/// column, `scratch` a buffer for its values.
fn write_rows(
    writer: &mut ColumnWriter<'static>,
    levels: &[i16],
    values: &Values,
    range: Range<usize>,
    text: &Bytes,
    scratch: &mut Vec<ByteArray>,
) -> parquet::errors::Result<()> {
    let levels = Some(levels);
    match (writer, values) {
        (ColumnWriter::BoolColumnWriter(w), Values::Bool(v)) => {
            w.write_batch(&v[range], levels, None)?;
        }
        (ColumnWriter::Int32ColumnWriter(w), Values::Int32(v)) => {
            w.write_batch(&v[range], levels, None)?;
        }
        (ColumnWriter::Int64ColumnWriter(w), Values::Int64(v)) => {
            w.write_batch(&v[range], levels, None)?;
        }
        (ColumnWriter::FloatColumnWriter(w), Values::Float(v)) => {
            w.write_batch(&v[range], levels, None)?;
        }
        (ColumnWriter::DoubleColumnWriter(w), Values::Double(v)) => {
            w.write_batch(&v[range], levels, None)?;
        }
        (ColumnWriter::ByteArrayColumnWriter(w), Values::Text { ends, .. }) => {
            let mut start = match range.start {
                0 => 0,
                i => ends[i - 1] as usize,
            };
            // Each value is a view of the batch's bytes: no copy, no allocation.
            scratch.extend(ends[range].iter().map(|&end| {
                let value = ByteArray::from(text.slice(start..end as usize));
                start = end as usize;
                value
            }));
            let written = w.write_batch(scratch, levels, None);
            scratch.clear();
            written?;
        }
        // Nulls only: the null type, or a batch from before the column had a type.
        (ColumnWriter::BoolColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        (ColumnWriter::Int32ColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        (ColumnWriter::Int64ColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        (ColumnWriter::FloatColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        (ColumnWriter::DoubleColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        (ColumnWriter::ByteArrayColumnWriter(w), Values::None) => {
            w.write_batch(&[], levels, None)?;
        }
        _ => {
            return Err(ParquetError::General(
                "a batch whose values are not of their column's type".into(),
            ));
        }
    }
    Ok(())
}

/// The Parquet file being written: the file writer, and the columns of the row group under
/// way.
struct Encoder<W: Write + Send> {
    file: SerializedFileWriter<W>,
    columns: Vec<ColumnDescPtr>,
    properties: WriterPropertiesPtr,
    chunks: Vec<Chunk>,
    /// Rows in the row group under way.
    rows: usize,
    /// A buffer for the values of a string column.
    scratch: Vec<ByteArray>,
    /// Definition levels of 1 (a value in every row), for the columns of a batch without a
    /// null.
    ones: Vec<i16>,
}

impl<W: Write + Send> Encoder<W> {
    fn new(
        out: W,
        schema: TypePtr,
        properties: WriterPropertiesPtr,
    ) -> parquet::errors::Result<Self> {
        let file = SerializedFileWriter::new(out, schema, Arc::clone(&properties))?;
        let columns = file.schema_descr().columns().to_vec();
        let chunks = columns.iter().map(|c| Chunk::new(c, &properties)).collect();
        Ok(Encoder {
            file,
            columns,
            properties,
            chunks,
            rows: 0,
            scratch: Vec::new(),
            ones: Vec::new(),
        })
    }

    /// Encodes `batch`, ending the row group under way when it is full (a batch may end one
    /// row group and begin the next).
    fn write(&mut self, batch: Batch) -> parquet::errors::Result<()> {
        if batch.columns.len() != self.chunks.len()
            || batch
                .columns
                .iter()
                .any(|c| !c.levels.is_empty() && c.levels.len() != batch.rows)
        {
            return Err(ParquetError::General(
                "a batch whose columns are not its rows".into(),
            ));
        }
        // Per column: its values, its strings' bytes, and its first value not yet written.
        let mut columns: Vec<(ColumnBatch, Bytes, usize)> = batch
            .columns
            .into_iter()
            .map(|mut c| {
                let text = match &mut c.values {
                    Values::Text { bytes, .. } => Bytes::from(std::mem::take(bytes)),
                    _ => Bytes::new(),
                };
                (c, text, 0)
            })
            .collect();
        let mut row = 0;
        while row < batch.rows {
            let rows = (batch.rows - row).min(ROW_GROUP_ROWS - self.rows);
            for (chunk, (column, text, next)) in self.chunks.iter_mut().zip(&mut columns) {
                let (levels, present) = if column.levels.is_empty() {
                    // No null in the batch.
                    if self.ones.len() < rows {
                        self.ones.resize(rows, 1);
                    }
                    (&self.ones[..rows], rows)
                } else {
                    let levels = &column.levels[row..row + rows];
                    (levels, levels.iter().filter(|&&l| l == 1).count())
                };
                write_rows(
                    &mut chunk.writer,
                    levels,
                    &column.values,
                    *next..*next + present,
                    text,
                    &mut self.scratch,
                )?;
                *next += present;
            }
            row += rows;
            self.rows += rows;
            if self.rows == ROW_GROUP_ROWS {
                self.end_row_group()?;
            }
        }
        Ok(())
    }

    /// Writes the row group under way to the file: each column's pages, copied from memory.
    fn end_row_group(&mut self) -> parquet::errors::Result<()> {
        let mut group = self.file.next_row_group()?;
        for chunk in std::mem::take(&mut self.chunks) {
            let closed = chunk.writer.close()?;
            group.append_column(&Bytes::from(chunk.pages.take()), closed)?;
        }
        group.close()?;
        // The next group's writers, made once the last ones are gone (each has its own zstd
        // context).
        self.chunks = self
            .columns
            .iter()
            .map(|c| Chunk::new(c, &self.properties))
            .collect();
        self.rows = 0;
        Ok(())
    }

    /// Ends the last row group and writes the footer.
    fn finish(mut self) -> parquet::errors::Result<W> {
        if self.rows > 0 {
            self.end_row_group()?;
        }
        self.file.into_inner()
    }
}

/// The encoding thread: writes each batch into the Parquet file on `out`, then the footer.
fn encode<W: Write + Send>(out: W, rx: Receiver<Message>) -> io::Result<W> {
    let Ok(Message::Start(schema, properties)) = rx.recv() else {
        // The scope failed before its first batch: nothing to write.
        return Err(io::Error::other("no rows were exported"));
    };
    let mut encoder = Encoder::new(out, schema, properties).map_err(io_error)?;
    for message in rx {
        match message {
            Message::Batch(batch) => encoder.write(batch).map_err(io_error)?,
            Message::Start(..) => return Err(io::Error::other("a second schema")),
        }
    }
    encoder.finish().map_err(io_error)
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
            started: false,
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
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
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
        const ROUNDED: &'static [&'static str] = &[];
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

    /// The file `bytes`, row by row, each row its fields.
    fn rows(bytes: Vec<u8>) -> Vec<Vec<Field>> {
        let reader = SerializedFileReader::new(Bytes::from(bytes)).unwrap();
        reader
            .get_row_iter(None)
            .unwrap()
            .map(|row| {
                row.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| f.clone())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_column_typed_after_some_batches_keeps_its_first_nulls() {
        let rows_written = 3 * BATCH_ROWS + 5;
        let nulls = 2 * BATCH_ROWS + 3;
        let bytes = export_late(rows_written, nulls).unwrap();
        let reader = SerializedFileReader::new(Bytes::from(bytes.clone())).unwrap();
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        assert_eq!(schema.column(1).physical_type(), PhysicalType::DOUBLE);
        let read = rows(bytes);
        assert_eq!(read.len(), rows_written);
        for (i, row) in read.iter().enumerate() {
            assert_eq!(row[0], Field::UInt(i as u32));
            if i < nulls {
                assert_eq!(row[1], Field::Null, "row {i}");
            } else {
                assert_eq!(row[1], Field::Double(i as f64 / 2.0), "row {i}");
            }
        }
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

    /// Batches that do not divide a row group: the one that crosses its end is split, its
    /// values (strings and nulls among them) on the right side of the split.
    #[test]
    fn a_batch_across_the_end_of_a_row_group_is_split_there() {
        let header = Header {
            columns: vec!["n".into(), "text".into()],
            title: "split".into(),
            notes: vec![],
            source: String::new(),
            filled_bits: String::new(),
            rounding: String::new(),
        };
        let kinds = [Kind::U32, Kind::Str];
        let schema = Type::group_type_builder(ROOT)
            .with_fields(vec![
                Arc::new(Kind::U32.parquet_type("n").unwrap()),
                Arc::new(Kind::Str.parquet_type("text").unwrap()),
            ])
            .build()
            .unwrap();
        let properties = properties(&header, &kinds).unwrap();
        let mut encoder = Encoder::new(Vec::new(), Arc::new(schema), Arc::new(properties)).unwrap();
        let batch_rows = 700_001;
        let text = |i: usize| (!i.is_multiple_of(3)).then(|| format!("v{}", i % 1000));
        for b in 0..2 {
            let mut n = Column::new();
            let mut t = Column::new();
            for i in b * batch_rows..(b + 1) * batch_rows {
                n.push("n", Value::U32(i as u32)).unwrap();
                let value = text(i);
                t.push("text", value.as_deref().map_or(Value::Null, Value::Str))
                    .unwrap();
            }
            encoder
                .write(Batch {
                    rows: batch_rows,
                    columns: vec![n.take(), t.take()],
                })
                .unwrap();
        }
        let bytes = encoder.finish().unwrap();
        let reader = SerializedFileReader::new(Bytes::from(bytes.clone())).unwrap();
        let groups: Vec<i64> = reader
            .metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows())
            .collect();
        assert_eq!(
            groups,
            [
                ROW_GROUP_ROWS as i64,
                (2 * batch_rows - ROW_GROUP_ROWS) as i64
            ]
        );
        let read = rows(bytes);
        assert_eq!(read.len(), 2 * batch_rows);
        for (i, row) in read.iter().enumerate() {
            assert_eq!(row[0], Field::UInt(i as u32));
            assert_eq!(row[1], text(i).map_or(Field::Null, Field::Str), "row {i}");
        }
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
