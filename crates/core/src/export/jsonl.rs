//! JSON lines: first the document's metadata (`{"metadata": {...}}`: the title, the notes,
//! the columns, the box of each bit of `filled`, the rounding and the source: rules, version,
//! commit, dice generator, table checksum), then one object per row, keys
//! in column order, absent values as `null`.

use std::io;

use super::{Exporter, Meta, Row};

/// Renders rows as one JSON object per line.
pub struct JsonlExporter;

impl<R: Row> Exporter<R> for JsonlExporter {
    fn begin(&self, meta: &Meta, out: &mut Vec<u8>) {
        let mut metadata = serde_json::Map::new();
        metadata.insert("title".into(), meta.title.clone().into());
        metadata.insert("notes".into(), meta.notes.clone().into());
        metadata.insert("columns".into(), R::COLUMNS.to_vec().into());
        if !meta.filled_bits.is_empty() {
            metadata.insert("filled_bits".into(), meta.filled_bits.clone().into());
        }
        metadata.insert("rounding".into(), super::rounding::<R>().into());
        if let Ok(serde_json::Value::Object(source)) = serde_json::from_str(&meta.source) {
            metadata.extend(source);
        }
        let line = serde_json::json!({ "metadata": metadata });
        serde_json::to_writer(&mut *out, &line).expect("a JSON value serializes");
        out.push(b'\n');
    }

    fn table(&self, _title: Option<&str>, _out: &mut Vec<u8>) {}

    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()> {
        for row in rows {
            serde_json::to_writer(&mut *out, row).map_err(io::Error::other)?;
            out.push(b'\n');
        }
        Ok(())
    }
}
