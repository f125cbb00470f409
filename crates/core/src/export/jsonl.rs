//! JSON lines: one object per row, keys in column order, absent values as `null`.

use std::io;

use super::{Exporter, Meta, Row};

/// Renders rows as one JSON object per line.
pub struct JsonlExporter;

impl<R: Row> Exporter<R> for JsonlExporter {
    fn begin(&self, _meta: &Meta, _out: &mut Vec<u8>) {}

    fn table(&self, _title: Option<&str>, _out: &mut Vec<u8>) {}

    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()> {
        for row in rows {
            serde_json::to_writer(&mut *out, row).map_err(io::Error::other)?;
            out.push(b'\n');
        }
        Ok(())
    }
}
