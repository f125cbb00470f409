//! The `ARROW:schema` key-value metadata: the file's columns as an Arrow schema, which Arrow
//! readers (pyarrow and pandas, polars, DuckDB's Arrow path) take their column types from.
//!
//! Parquet alone says that `dice` is UTF-8 text and `upper` a 32-bit integer annotated as an
//! unsigned 8-bit one; the Arrow schema says that `dice` is `dictionary<int32, utf8>` (read
//! as a categorical) and `upper` is `uint8`. Arrow's own Parquet writer stores it, and so do
//! we, in the same form: base64 of an Arrow IPC encapsulated message (the continuation marker
//! `0xFFFFFFFF`, the metadata's length as a little-endian `i32`, then a `Message` flatbuffer
//! holding a `Schema`, padded to 8 bytes), following Arrow's `format/Message.fbs` and
//! `format/Schema.fbs`. Only the types that export columns have are written.

use base64::Engine;
use flatbuffers::{FlatBufferBuilder, TableFinishedWIPOffset, WIPOffset};

/// The Arrow type of a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ArrowType {
    /// The null type: a column with no value.
    Null,
    Bool,
    /// An integer of `bits` bits, signed or not.
    Int {
        bits: u8,
        signed: bool,
    },
    Float32,
    Float64,
    /// UTF-8 text, dictionary-encoded with `int32` indices.
    DictionaryUtf8,
}

/// The slot of a table's field number `n` (its offset in the table's vtable).
const fn slot(n: u16) -> u16 {
    4 + 2 * n
}

/// `Schema.fbs`: the members of the `Type` union used here.
mod type_id {
    pub const NULL: u8 = 1;
    pub const INT: u8 = 2;
    pub const FLOATING_POINT: u8 = 3;
    pub const UTF8: u8 = 5;
    pub const BOOL: u8 = 6;
}

/// `Message.fbs`: `MessageHeader.Schema`.
const HEADER_SCHEMA: u8 = 1;
/// `Schema.fbs`: `MetadataVersion.V5`, the current one.
const METADATA_V5: i16 = 4;
/// `Schema.fbs`: `Precision.SINGLE` and `Precision.DOUBLE`.
const PRECISION_SINGLE: i16 = 1;
const PRECISION_DOUBLE: i16 = 2;

type Table = WIPOffset<TableFinishedWIPOffset>;

/// `table Int { bitWidth: int; is_signed: bool; }`
fn int(fbb: &mut FlatBufferBuilder<'_>, bits: u8, signed: bool) -> Table {
    let start = fbb.start_table();
    fbb.push_slot::<i32>(slot(0), i32::from(bits), 0);
    fbb.push_slot::<bool>(slot(1), signed, false);
    fbb.end_table(start)
}

/// A table with no field (`Null`, `Bool`, `Utf8`).
fn empty(fbb: &mut FlatBufferBuilder<'_>) -> Table {
    let start = fbb.start_table();
    fbb.end_table(start)
}

/// `table FloatingPoint { precision: Precision; }`
fn floating_point(fbb: &mut FlatBufferBuilder<'_>, precision: i16) -> Table {
    let start = fbb.start_table();
    fbb.push_slot::<i16>(slot(0), precision, 0);
    fbb.end_table(start)
}

/// `table Field { name; nullable; type (union: type_type, type); dictionary; children;
/// custom_metadata; }`: a nullable field of `arrow_type`; `dictionary_id` numbers the
/// dictionaries of the schema in field order, as Arrow's writer does.
fn field(
    fbb: &mut FlatBufferBuilder<'_>,
    name: &str,
    arrow_type: ArrowType,
    dictionary_id: &mut i64,
) -> Table {
    let name = fbb.create_string(name);
    let (type_id, type_table) = match arrow_type {
        ArrowType::Null => (type_id::NULL, empty(fbb)),
        ArrowType::Bool => (type_id::BOOL, empty(fbb)),
        ArrowType::Int { bits, signed } => (type_id::INT, int(fbb, bits, signed)),
        ArrowType::Float32 => (
            type_id::FLOATING_POINT,
            floating_point(fbb, PRECISION_SINGLE),
        ),
        ArrowType::Float64 => (
            type_id::FLOATING_POINT,
            floating_point(fbb, PRECISION_DOUBLE),
        ),
        // A dictionary field has its values' type; the dictionary says how it is encoded.
        ArrowType::DictionaryUtf8 => (type_id::UTF8, empty(fbb)),
    };
    let dictionary = (arrow_type == ArrowType::DictionaryUtf8).then(|| {
        // table DictionaryEncoding { id: long; indexType: Int; isOrdered: bool;
        // dictionaryKind: DictionaryKind; }
        let index = int(fbb, 32, true);
        let start = fbb.start_table();
        fbb.push_slot::<i64>(slot(0), *dictionary_id, 0);
        fbb.push_slot_always(slot(1), index);
        *dictionary_id += 1;
        fbb.end_table(start)
    });
    // Some readers expect an empty list of children rather than none.
    let children = fbb.create_vector::<Table>(&[]);
    let start = fbb.start_table();
    fbb.push_slot_always(slot(0), name);
    fbb.push_slot::<bool>(slot(1), true, false);
    fbb.push_slot::<u8>(slot(2), type_id, 0);
    fbb.push_slot_always(slot(3), type_table);
    if let Some(dictionary) = dictionary {
        fbb.push_slot_always(slot(4), dictionary);
    }
    fbb.push_slot_always(slot(5), children);
    fbb.end_table(start)
}

/// The IPC message of the schema whose fields are `columns` (all nullable), as it is stored
/// in the metadata before base64: marker, length, flatbuffer, padding.
fn message(columns: &[(&str, ArrowType)]) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let mut dictionary_id = 0;
    let fields: Vec<Table> = columns
        .iter()
        .map(|&(name, arrow_type)| field(&mut fbb, name, arrow_type, &mut dictionary_id))
        .collect();
    let fields = fbb.create_vector(&fields);
    // table Schema { endianness (Little, the default); fields; custom_metadata; features; }
    let start = fbb.start_table();
    fbb.push_slot_always(slot(1), fields);
    let schema = fbb.end_table(start);
    // table Message { version; header (union: header_type, header); bodyLength (0: a schema
    // has no body); custom_metadata; }
    let start = fbb.start_table();
    fbb.push_slot::<i16>(slot(0), METADATA_V5, 0);
    fbb.push_slot::<u8>(slot(1), HEADER_SCHEMA, 0);
    fbb.push_slot_always(slot(2), schema);
    let root = fbb.end_table(start);
    fbb.finish_minimal(root);
    let flatbuffer = fbb.finished_data();
    let padded = flatbuffer.len().next_multiple_of(8);
    let mut out = Vec::with_capacity(8 + padded);
    out.extend_from_slice(&[0xFF; 4]);
    // A schema of a few hundred columns takes a few kilobytes, far below i32::MAX.
    out.extend_from_slice(&(padded as u32).to_le_bytes());
    out.extend_from_slice(flatbuffer);
    out.resize(8 + padded, 0);
    out
}

/// The value of the `ARROW:schema` key for a file whose columns are `columns`.
pub(crate) fn encode(columns: &[(&str, ArrowType)]) -> String {
    base64::engine::general_purpose::STANDARD.encode(message(columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_framed_and_padded() {
        let bytes = message(&[
            ("dice", ArrowType::DictionaryUtf8),
            (
                "n",
                ArrowType::Int {
                    bits: 8,
                    signed: false,
                },
            ),
        ]);
        assert_eq!(bytes[..4], [0xFF; 4]);
        let len = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        assert_eq!(len % 8, 0);
        assert_eq!(bytes.len(), 8 + len);
    }
}
