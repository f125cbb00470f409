//! CSV: one header line with the column names, then one line per row. Absent values (no
//! runner-up) are empty fields; booleans are `true`/`false`; numbers are plain decimals.

use std::io;

use super::{Exporter, Meta, Row};

/// Renders rows as comma-separated values.
pub struct CsvExporter;

impl<R: Row> Exporter<R> for CsvExporter {
    fn begin(&self, _meta: &Meta, out: &mut Vec<u8>) {
        out.extend_from_slice(R::COLUMNS.join(",").as_bytes());
        out.push(b'\n');
    }

    fn table(&self, _title: Option<&str>, _out: &mut Vec<u8>) {}

    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        for row in rows {
            w.serialize(row).map_err(io::Error::other)?;
        }
        w.flush()
    }
}
