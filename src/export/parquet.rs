//! Parquet: typed columns, zstd, row groups, written in a stream with bounded memory.
//!
//! Every scope writes Parquet through the same rows and the same [`Exporter`] calls as CSV,
//! with no code of its own: a Parquet file needs one writer that sees every row in order and
//! ends with a footer, while the scopes render chunks of rows in parallel into byte buffers and
//! write those buffers in order. So the work is split in two:
//!
//! - [`ParquetExporter`] renders rows, in parallel like the other formats, into a compact typed
//!   stream (one tag and the bytes of each value, in column order), taking each row's values
//!   from its `Serialize` impl: a new row type needs nothing here;
//! - [`write`] gives the scope a writer that reads that stream back, builds Arrow columns,
//!   and hands a batch of rows at a time to a second thread that encodes them into Parquet
//!   on the real output, then writes the footer once the scope is done.
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
use serde::Serialize;
use serde::ser::{self, Impossible};

use super::{Exporter, Meta, Row};

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

/// Frames of the stream between [`ParquetExporter`] and the writer of [`write`]: a kind byte,
/// the payload length (u64, little-endian), the payload.
const FRAME_HEADER: u8 = b'H';
const FRAME_ROWS: u8 = b'R';

/// Value tags inside a rows frame, one per serialized value.
mod tag {
    pub const NULL: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const U8: u8 = 2;
    pub const U16: u8 = 3;
    pub const U32: u8 = 4;
    pub const U64: u8 = 5;
    pub const I8: u8 = 6;
    pub const I16: u8 = 7;
    pub const I32: u8 = 8;
    pub const I64: u8 = 9;
    pub const F32: u8 = 10;
    pub const F64: u8 = 11;
    pub const STR: u8 = 12;
}

/// Renders rows into the typed stream that the writer of [`write`] turns into Parquet. Its
/// output is not a Parquet file by itself: only [`write`] makes one.
pub struct ParquetExporter;

fn frame(kind: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
}

impl<R: Row> Exporter<R> for ParquetExporter {
    fn begin(&self, meta: &Meta, out: &mut Vec<u8>) {
        let header = Header {
            columns: R::COLUMNS.iter().map(|c| c.to_string()).collect(),
            title: meta.title.clone(),
            notes: meta.notes.clone(),
        };
        let payload = serde_json::to_vec(&header).expect("a header serializes");
        frame(FRAME_HEADER, &payload, out);
    }

    fn table(&self, _title: Option<&str>, _out: &mut Vec<u8>) {}

    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut payload = Vec::with_capacity(rows.len() * R::COLUMNS.len() * 6);
        for row in rows {
            let before = payload.len();
            row.serialize(&mut ValueWriter {
                out: &mut payload,
                values: 0,
            })
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.0))?;
            debug_assert!(payload.len() > before);
        }
        frame(FRAME_ROWS, &payload, out);
        Ok(())
    }
}

/// What a document says before its rows: the column names, and the title and notes that the
/// file keeps as key-value metadata.
#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    columns: Vec<String>,
    title: String,
    notes: Vec<String>,
}

/// A row that cannot be written as Parquet columns (a field of a type rows do not have).
#[derive(Debug)]
struct Unsupported(String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!(
        "a Parquet row holds numbers, booleans, strings and options of them, not {what}"
    )))
}

/// Serializes one row: a flat struct of scalar fields, each written as a tag and its bytes.
struct ValueWriter<'a> {
    out: &'a mut Vec<u8>,
    values: usize,
}

impl ValueWriter<'_> {
    fn put(&mut self, tag: u8, bytes: &[u8]) -> Result<(), Unsupported> {
        self.out.push(tag);
        self.out.extend_from_slice(bytes);
        self.values += 1;
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for &'a mut ValueWriter<'b> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Impossible<(), Unsupported>;
    type SerializeTuple = Impossible<(), Unsupported>;
    type SerializeTupleStruct = Impossible<(), Unsupported>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Impossible<(), Unsupported>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.put(tag::BOOL, &[u8::from(v)])
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.put(tag::I8, &v.to_le_bytes())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.put(tag::I16, &v.to_le_bytes())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.put(tag::I32, &v.to_le_bytes())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        self.put(tag::I64, &v.to_le_bytes())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.put(tag::U8, &[v])
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.put(tag::U16, &v.to_le_bytes())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.put(tag::U32, &v.to_le_bytes())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        self.put(tag::U64, &v.to_le_bytes())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        self.put(tag::F32, &v.to_le_bytes())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        self.put(tag::F64, &v.to_le_bytes())
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        let len = u32::try_from(v.len()).map_err(|_| Unsupported("a string over 4 GB".into()))?;
        self.out.push(tag::STR);
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(v.as_bytes());
        self.values += 1;
        Ok(())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Unsupported> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.put(tag::NULL, &[])
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unsupported> {
        unsupported("an enum with data")
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        unsupported("a list")
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unsupported> {
        unsupported("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        unsupported("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        unsupported("an enum with data")
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        unsupported("a map")
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        if self.values > 0 {
            return unsupported("a nested struct");
        }
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        unsupported("an enum with data")
    }
}

impl<'a, 'b> ser::SerializeStruct for &'a mut ValueWriter<'b> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        let before = self.values;
        value.serialize(&mut **self)?;
        if self.values != before + 1 {
            return unsupported("a nested struct");
        }
        Ok(())
    }

    fn end(self) -> Result<(), Unsupported> {
        Ok(())
    }
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

macro_rules! number {
    ($bytes:expr, $at:expr, $t:ty) => {{
        const N: usize = std::mem::size_of::<$t>();
        let v = <$t>::from_le_bytes(take::<N>($bytes, $at)?);
        v
    }};
}

fn take<const N: usize>(bytes: &[u8], at: &mut usize) -> io::Result<[u8; N]> {
    let end = *at + N;
    let slice = bytes
        .get(*at..end)
        .ok_or_else(|| broken("a value is cut off"))?;
    *at = end;
    Ok(slice.try_into().expect("N bytes"))
}

fn broken(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the rows given to the Parquet writer are not its stream: {what}"),
    )
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

    fn name_of(tag: u8) -> &'static str {
        match tag {
            tag::BOOL => "boolean",
            tag::U8 => "u8",
            tag::U16 => "u16",
            tag::U32 => "u32",
            tag::U64 => "u64",
            tag::I8 => "i8",
            tag::I16 => "i16",
            tag::I32 => "i32",
            tag::I64 => "i64",
            tag::F32 => "f32",
            tag::F64 => "f64",
            tag::STR => "string",
            _ => "null",
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

    /// Appends the value of `tag` at `bytes[*at..]`; `name` names the column in errors.
    fn push(&mut self, name: &str, tag: u8, bytes: &[u8], at: &mut usize) -> io::Result<()> {
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
                other => format!("type {}", Column::name_of(other.tag().unwrap_or(0))),
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "column `{name}` has {had}, and then a value of type {}",
                    Column::name_of(tag)
                ),
            ));
        }
        match self {
            Column::Bool(b) => b.append_value(take::<1>(bytes, at)?[0] != 0),
            Column::U8(b) => b.append_value(number!(bytes, at, u8)),
            Column::U16(b) => b.append_value(number!(bytes, at, u16)),
            Column::U32(b) => b.append_value(number!(bytes, at, u32)),
            Column::U64(b) => b.append_value(number!(bytes, at, u64)),
            Column::I8(b) => b.append_value(number!(bytes, at, i8)),
            Column::I16(b) => b.append_value(number!(bytes, at, i16)),
            Column::I32(b) => b.append_value(number!(bytes, at, i32)),
            Column::I64(b) => b.append_value(number!(bytes, at, i64)),
            Column::F32(b) => b.append_value(number!(bytes, at, f32)),
            Column::F64(b) => b.append_value(number!(bytes, at, f64)),
            Column::Str(b) => {
                let len = u32::from_le_bytes(take::<4>(bytes, at)?) as usize;
                let text = bytes
                    .get(*at..*at + len)
                    .and_then(|s| std::str::from_utf8(s).ok())
                    .ok_or_else(|| broken("a string is cut off"))?;
                *at += len;
                b.append(text).map_err(io::Error::other)?;
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
        while let Some(head) = bytes.get(at..at + 9) {
            let len = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
            let Some(payload) = usize::try_from(len)
                .ok()
                .and_then(|len| bytes.get(at + 9..at + 9 + len))
            else {
                break;
            };
            match head[0] {
                FRAME_HEADER => self.begin(payload)?,
                FRAME_ROWS => self.decode(payload)?,
                _ => return Err(broken("an unknown frame")),
            }
            at += 9 + payload.len();
        }
        Ok(at)
    }

    fn begin(&mut self, payload: &[u8]) -> io::Result<()> {
        if self.header.is_some() {
            return Err(broken("a second header"));
        }
        let header: Header =
            serde_json::from_slice(payload).map_err(|_| broken("a header that does not read"))?;
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
                let tag = *payload.get(at).ok_or_else(|| broken("a row is cut off"))?;
                at += 1;
                column.push(name, tag, payload, &mut at)?;
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

/// Writes a Parquet file on `out` from the rows that `scope` exports in
/// [`Format::Parquet`](super::Format::Parquet) to the writer it is given (any scope's
/// `write_*` function), and returns what `scope` returns with `out`. The rows are encoded on
/// a second thread while the scope renders the next ones. If `scope` fails, its error is
/// returned and `out` has a partial file: write through [`crate::files::write_file`].
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
        let exporter: Box<dyn Exporter<Late>> = Box::new(ParquetExporter);
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
        let exporter: Box<dyn Exporter<Late>> = Box::new(ParquetExporter);
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

    #[test]
    fn rows_of_nested_values_are_refused() {
        #[derive(Serialize)]
        struct Nested {
            faces: Vec<u8>,
        }
        impl Row for Nested {
            const COLUMNS: &'static [&'static str] = &["faces"];
            const TITLES: &'static [&'static str] = &["faces"];
        }
        let mut buf = Vec::new();
        let e = ParquetExporter
            .rows(&[Nested { faces: vec![1] }], &mut buf)
            .unwrap_err();
        assert!(e.to_string().contains("not a list"), "{e}");
    }
}
