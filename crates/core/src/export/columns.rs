//! The typed column stream: the rows of any export scope rendered as tagged values, for a
//! columnar writer (the `yahtzee-parquet` crate turns it into a Parquet file) to read back.
//!
//! A scope writes its rows in parallel chunks into byte buffers and writes those buffers in
//! order, whatever the format; a columnar file instead needs one writer that sees every row
//! in order and ends with a footer. So [`ColumnsExporter`] renders rows like the other
//! formats, as a stream of frames, and the writer reads the frames back ([`read_frame`],
//! [`read_value`]) to build its columns. A frame is a kind byte, the payload length (u64,
//! little-endian) and the payload: one [`Header`] frame (JSON: the column names, the title,
//! the notes), then frames of rows, each row one tagged value per column in column order,
//! taken from the row's `Serialize` impl: a new row type needs nothing here. Rows whose
//! columns are known only at run time (a simulation's games, one column per box of the
//! rules) are written the same way, by [`Header::write`] and [`write_values`]: the writer
//! reads the column names from the header, never from a row type.
//!
//! Values are the Rust types of the rows' fields: unsigned and signed integers of 8 to 64
//! bits, `bool`, `f32`, `f64`, strings (and unit enum variants, written as their names) and
//! `Option`s of those (`None` is [`tag::NULL`]). Anything else (a list, a nested struct) is
//! refused with an error naming it.

use std::io;

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::{Exporter, Meta, Row};

/// The frame kinds.
const FRAME_HEADER: u8 = b'H';
const FRAME_ROWS: u8 = b'R';

/// Bytes of a frame's head: its kind and its length.
const FRAME_HEAD: usize = 9;

/// Value tags inside a rows frame, one per serialized value: one tag per value type, and
/// [`tag::NULL`] for a missing value.
pub mod tag {
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

/// Renders rows into the typed column stream ([`Format::Columns`](super::Format::Columns)).
pub struct ColumnsExporter;

fn frame(kind: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
}

impl<R: Row> Exporter<R> for ColumnsExporter {
    fn begin(&self, meta: &Meta, out: &mut Vec<u8>) {
        let columns = R::COLUMNS.iter().map(|c| c.to_string()).collect();
        Header::of(meta, columns, super::rounding::<R>()).write(out);
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

/// Appends a frame of rows whose columns are known only at run time (their names in the
/// [`Header`] written first, [`Header::write`]): `values`, row after row, one per column in
/// column order, as a row type's fields would be written.
pub fn write_values<'v>(values: impl IntoIterator<Item = Value<'v>>, out: &mut Vec<u8>) {
    let mut payload = Vec::new();
    for value in values {
        value.write(&mut payload);
    }
    if !payload.is_empty() {
        frame(FRAME_ROWS, &payload, out);
    }
}

/// What a document says before its rows: the column names, and the title and notes that the
/// file keeps as key-value metadata.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// The column names, in the order of every row's values.
    pub columns: Vec<String>,
    /// The document's title.
    pub title: String,
    /// The document's notes, one per line.
    pub notes: Vec<String>,
    /// Where the rows come from, as one JSON object ([`Meta::source`]); empty when not known.
    #[serde(default)]
    pub source: String,
    /// The box of each bit of `filled` ([`Meta::filled_bits`]) as a JSON array of names;
    /// empty when not known.
    #[serde(default)]
    pub filled_bits: String,
    /// Which columns are rounded ([`super::rounding`]).
    #[serde(default)]
    pub rounding: String,
}

impl Header {
    /// The header of a document `meta` whose rows have `columns` (their names, in order) and
    /// whose rounding is `rounding` (empty when there is nothing to say).
    pub fn of(meta: &Meta, columns: Vec<String>, rounding: String) -> Header {
        Header {
            columns,
            title: meta.title.clone(),
            notes: meta.notes.clone(),
            source: meta.source.clone(),
            filled_bits: if meta.filled_bits.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&meta.filled_bits).expect("names serialize")
            },
            rounding,
        }
    }

    /// Appends the header's frame: the stream's first.
    pub fn write(&self, out: &mut Vec<u8>) {
        let payload = serde_json::to_vec(self).expect("a header serializes");
        frame(FRAME_HEADER, &payload, out);
    }
}

/// A row that cannot be written as columns (a field of a type rows do not have).
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
        "a row of columns holds numbers, booleans, strings and options of them, not {what}"
    )))
}

/// Serializes one row: a flat struct of scalar fields, each written as a tag and its bytes.
struct ValueWriter<'a> {
    out: &'a mut Vec<u8>,
    values: usize,
}

impl ValueWriter<'_> {
    fn put(&mut self, value: Value<'_>) -> Result<(), Unsupported> {
        value.write(self.out);
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
        self.put(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.put(Value::I8(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.put(Value::I16(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.put(Value::I32(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        self.put(Value::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.put(Value::U8(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.put(Value::U16(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.put(Value::U32(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        self.put(Value::U64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        self.put(Value::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        self.put(Value::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        if u32::try_from(v.len()).is_err() {
            return Err(Unsupported("a string over 4 GB".into()));
        }
        self.put(Value::Str(v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Unsupported> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.put(Value::Null)
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

/// One frame of the stream.
pub enum Frame<'a> {
    /// The header: the first frame.
    Header(Header),
    /// Rows: one tagged value per column, row after row (see [`read_value`]).
    Rows(&'a [u8]),
}

/// The first frame of `bytes` and the bytes it takes, or `None` while `bytes` does not hold a
/// whole frame yet (a writer may be given a frame in pieces).
pub fn read_frame(bytes: &[u8]) -> io::Result<Option<(Frame<'_>, usize)>> {
    let Some(head) = bytes.get(..FRAME_HEAD) else {
        return Ok(None);
    };
    let len = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
    let Some(payload) = usize::try_from(len)
        .ok()
        .and_then(|len| bytes.get(FRAME_HEAD..FRAME_HEAD + len))
    else {
        return Ok(None);
    };
    let frame = match head[0] {
        FRAME_HEADER => Frame::Header(
            serde_json::from_slice(payload).map_err(|_| broken("a header that does not read"))?,
        ),
        FRAME_ROWS => Frame::Rows(payload),
        _ => return Err(broken("an unknown frame")),
    };
    Ok(Some((frame, FRAME_HEAD + payload.len())))
}

/// One value of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Str(&'a str),
}

impl Value<'_> {
    /// Appends the value as a rows frame holds it: its tag, then its bytes (little-endian; a
    /// string's length as a u32 before them, which the caller keeps under 4 GiB), what
    /// [`read_value`] reads back.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.tag());
        match *self {
            Value::Null => {}
            Value::Bool(v) => out.push(u8::from(v)),
            Value::U8(v) => out.push(v),
            Value::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I8(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Str(v) => {
                out.extend_from_slice(&(v.len() as u32).to_le_bytes());
                out.extend_from_slice(v.as_bytes());
            }
        }
    }

    /// The tag of the value's type.
    pub fn tag(&self) -> u8 {
        match self {
            Value::Null => tag::NULL,
            Value::Bool(_) => tag::BOOL,
            Value::U8(_) => tag::U8,
            Value::U16(_) => tag::U16,
            Value::U32(_) => tag::U32,
            Value::U64(_) => tag::U64,
            Value::I8(_) => tag::I8,
            Value::I16(_) => tag::I16,
            Value::I32(_) => tag::I32,
            Value::I64(_) => tag::I64,
            Value::F32(_) => tag::F32,
            Value::F64(_) => tag::F64,
            Value::Str(_) => tag::STR,
        }
    }
}

/// The name of the type of `tag`, for errors.
pub fn type_name(tag: u8) -> &'static str {
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

macro_rules! number {
    ($bytes:expr, $at:expr, $t:ty) => {{
        const N: usize = std::mem::size_of::<$t>();
        <$t>::from_le_bytes(take::<N>($bytes, $at)?)
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

/// The value at `payload[*at..]` of a rows frame, moving `at` past it.
pub fn read_value<'a>(payload: &'a [u8], at: &mut usize) -> io::Result<Value<'a>> {
    let tag = *payload.get(*at).ok_or_else(|| broken("a row is cut off"))?;
    *at += 1;
    Ok(match tag {
        tag::NULL => Value::Null,
        tag::BOOL => Value::Bool(take::<1>(payload, at)?[0] != 0),
        tag::U8 => Value::U8(number!(payload, at, u8)),
        tag::U16 => Value::U16(number!(payload, at, u16)),
        tag::U32 => Value::U32(number!(payload, at, u32)),
        tag::U64 => Value::U64(number!(payload, at, u64)),
        tag::I8 => Value::I8(number!(payload, at, i8)),
        tag::I16 => Value::I16(number!(payload, at, i16)),
        tag::I32 => Value::I32(number!(payload, at, i32)),
        tag::I64 => Value::I64(number!(payload, at, i64)),
        tag::F32 => Value::F32(number!(payload, at, f32)),
        tag::F64 => Value::F64(number!(payload, at, f64)),
        tag::STR => {
            let len = u32::from_le_bytes(take::<4>(payload, at)?) as usize;
            let text = payload
                .get(*at..*at + len)
                .and_then(|s| std::str::from_utf8(s).ok())
                .ok_or_else(|| broken("a string is cut off"))?;
            *at += len;
            Value::Str(text)
        }
        _ => return Err(broken("an unknown value tag")),
    })
}

/// The error of bytes that are not the stream.
pub fn broken(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the rows given to the columnar writer are not its stream: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Mixed {
        a: u8,
        b: Option<f64>,
        c: &'static str,
        d: i64,
        e: bool,
    }

    impl Row for Mixed {
        const COLUMNS: &'static [&'static str] = &["a", "b", "c", "d", "e"];
        const TITLES: &'static [&'static str] = &["a", "b", "c", "d", "e"];
        const ROUNDED: &'static [&'static str] = &[];
    }

    #[test]
    fn rows_read_back_as_written() {
        let mut out = Vec::new();
        let meta = Meta {
            title: "t".into(),
            notes: vec!["n".into()],
            source: r#"{"rules":"yacht"}"#.into(),
            filled_bits: vec!["ones".into()],
        };
        Exporter::<Mixed>::begin(&ColumnsExporter, &meta, &mut out);
        let rows = [
            Mixed {
                a: 7,
                b: None,
                c: "keep 3 3",
                d: -5,
                e: true,
            },
            Mixed {
                a: 255,
                b: Some(2.5),
                c: "",
                d: i64::MAX,
                e: false,
            },
        ];
        ColumnsExporter.rows(&rows, &mut out).unwrap();
        // Cut anywhere before its end, a frame is not whole yet.
        assert!(read_frame(&out[..5]).unwrap().is_none());
        let (Frame::Header(h), used) = read_frame(&out).unwrap().unwrap() else {
            panic!("the header first")
        };
        assert_eq!(
            (h.columns.len(), h.title.as_str(), h.notes.len()),
            (5, "t", 1)
        );
        let (Frame::Rows(payload), rest) = read_frame(&out[used..]).unwrap().unwrap() else {
            panic!("then rows")
        };
        assert_eq!(used + rest, out.len());
        let mut at = 0;
        let values: Vec<Value<'_>> = (0..10)
            .map(|_| read_value(payload, &mut at).unwrap())
            .collect();
        assert_eq!(at, payload.len());
        assert_eq!(
            values,
            [
                Value::U8(7),
                Value::Null,
                Value::Str("keep 3 3"),
                Value::I64(-5),
                Value::Bool(true),
                Value::U8(255),
                Value::F64(2.5),
                Value::Str(""),
                Value::I64(i64::MAX),
                Value::Bool(false),
            ]
        );
    }

    /// Rows of columns named at run time: the header's names, then every value as written,
    /// each type as the row types' fields are.
    #[test]
    fn values_of_run_time_columns_read_back_as_written() {
        let meta = Meta {
            title: "games".into(),
            ..Meta::default()
        };
        let mut out = Vec::new();
        Header::of(&meta, vec!["game".into(), "chance".into()], String::new()).write(&mut out);
        let values = [
            Value::U64(0),
            Value::U16(23),
            Value::U64(1),
            Value::Null,
            Value::I8(-3),
            Value::Str("keep 3 3"),
            Value::F32(0.5),
            Value::Bool(true),
        ];
        write_values(values, &mut out);
        // No values, no frame.
        write_values([], &mut out);
        let (Frame::Header(h), used) = read_frame(&out).unwrap().unwrap() else {
            panic!("the header first")
        };
        assert_eq!(
            (h.columns, h.title),
            (vec!["game".into(), "chance".into()], "games".into())
        );
        let (Frame::Rows(payload), rest) = read_frame(&out[used..]).unwrap().unwrap() else {
            panic!("then rows")
        };
        assert_eq!(used + rest, out.len());
        let mut at = 0;
        let read: Vec<Value<'_>> = values
            .iter()
            .map(|_| read_value(payload, &mut at).unwrap())
            .collect();
        assert_eq!((read.as_slice(), at), (values.as_slice(), payload.len()));
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
            const ROUNDED: &'static [&'static str] = &[];
        }
        let mut buf = Vec::new();
        let e = ColumnsExporter
            .rows(&[Nested { faces: vec![1] }], &mut buf)
            .unwrap_err();
        assert!(e.to_string().contains("not a list"), "{e}");
    }
}
