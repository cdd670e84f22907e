//! CSV as RFC 4180 writes it, for the reports' `format=csv`.
//!
//! Hand-written rather than the `csv` crate: the reports only write (never read) a few flat
//! tables of numbers, codes and identifiers, and the writing rule fits in a few lines, while
//! the crate would bring `csv-core` and a serde bridge to every build for it.
//!
//! - A field is quoted when it holds a comma, a double quote, CR or LF; inside quotes a double
//!   quote is doubled.
//! - Merchant-chosen text (a transaction id) that a spreadsheet would run as a formula (it
//!   starts with `=`, `+`, `-`, `@`, a tab or CR) gets a leading `'`, as OWASP recommends
//!   against CSV injection. Numbers we write are [`Cell::Number`] and never changed, so a
//!   negative amount stays a number.

/// One field of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell<'a> {
    /// A value the gateway produced: a number, a code, a time, an id of ours.
    Number(i64),
    Plain(&'a str),
    /// Text a client chose: guarded against being read as a formula.
    Text(&'a str),
    Empty,
}

/// One record, without its line ending.
pub fn record(cells: &[Cell<'_>]) -> String {
    cells.iter().map(field).collect::<Vec<_>>().join(",")
}

/// A whole document: the header then each record, every line ended by CRLF (RFC 4180).
pub fn document(header: &[&str], records: impl IntoIterator<Item = String>) -> String {
    let header: Vec<Cell> = header.iter().map(|h| Cell::Plain(h)).collect();
    let mut out = record(&header);
    out.push_str("\r\n");
    for line in records {
        out.push_str(&line);
        out.push_str("\r\n");
    }
    out
}

fn field(cell: &Cell<'_>) -> String {
    match cell {
        Cell::Number(n) => n.to_string(),
        Cell::Plain(text) => quoted(text),
        Cell::Text(text) if text.starts_with(['=', '+', '-', '@', '\t', '\r']) => quoted(&format!("'{text}")),
        Cell::Text(text) => quoted(text),
        Cell::Empty => String::new(),
    }
}

fn quoted(text: &str) -> String {
    if text.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_separators_quotes_or_line_breaks_are_quoted_and_quotes_doubled() {
        assert_eq!(
            record(&[
                Cell::Plain("plain"),
                Cell::Text("a,b"),
                Cell::Text("say \"hi\""),
                Cell::Text("two\nlines"),
                Cell::Text("cr\rhere"),
                Cell::Empty,
                Cell::Number(-1015),
            ]),
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",,-1015"
        );
        assert_eq!(record(&[Cell::Text("")]), "");
        assert_eq!(record(&[Cell::Text("\"")]), "\"\"\"\"");
    }

    #[test]
    fn client_text_that_a_spreadsheet_would_run_as_a_formula_is_defused() {
        assert_eq!(
            record(&[
                Cell::Text("=HYPERLINK(\"x\")"),
                Cell::Text("+1"),
                Cell::Text("-2"),
                Cell::Text("@SUM(A1)"),
                Cell::Text("order-=1"),
            ]),
            "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@SUM(A1),order-=1"
        );
        assert_eq!(
            record(&[Cell::Plain("-2"), Cell::Number(-2)]),
            "-2,-2",
            "our own values are left alone"
        );
    }

    #[test]
    fn a_document_is_the_header_then_each_record_each_ended_by_crlf() {
        assert_eq!(
            document(&["a", "b"], vec![record(&[Cell::Number(1), Cell::Plain("x")])]),
            "a,b\r\n1,x\r\n"
        );
        assert_eq!(document(&["a"], Vec::new()), "a\r\n");
    }
}
