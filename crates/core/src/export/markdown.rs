//! Markdown: a title and notes, then one table per group of rows (a number of rolls left, a
//! pattern of the cheat sheet, a state of the policy). Numbers with decimals are shown to
//! three decimals, absent values as empty cells: a document to read and print, not to load.

use std::io;

use serde_json::Value;

use super::{Exporter, Meta, Row};

/// Renders rows as Markdown tables.
pub struct MarkdownExporter;

fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.replace('|', "\\|"),
        Some(Value::Number(n)) if n.is_f64() => format!("{:.3}", n.as_f64().unwrap_or(f64::NAN)),
        Some(other) => other.to_string(),
    }
}

impl<R: Row> Exporter<R> for MarkdownExporter {
    fn begin(&self, meta: &Meta, out: &mut Vec<u8>) {
        let mut s = format!("# {}\n", meta.title);
        for note in &meta.notes {
            s.push('\n');
            s.push_str(note);
            s.push('\n');
        }
        out.extend_from_slice(s.as_bytes());
    }

    fn table(&self, title: Option<&str>, out: &mut Vec<u8>) {
        let mut s = String::from("\n");
        if let Some(t) = title {
            s.push_str(&format!("## {t}\n\n"));
        }
        s.push_str(&format!("| {} |\n", R::TITLES.join(" | ")));
        s.push_str(&format!("|{}\n", " --- |".repeat(R::TITLES.len())));
        out.extend_from_slice(s.as_bytes());
    }

    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()> {
        for row in rows {
            let value = serde_json::to_value(row).map_err(io::Error::other)?;
            let cells: Vec<String> = R::COLUMNS.iter().map(|c| cell(value.get(c))).collect();
            out.extend_from_slice(format!("| {} |\n", cells.join(" | ")).as_bytes());
        }
        Ok(())
    }
}
