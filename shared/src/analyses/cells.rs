//! A file's cells column by column, the form the engine reads: one small
//! slot per row and column, and each distinct number and text of a column
//! stored once.
//! Read straight from the JSON body (`request::read`) or made from rows built
//! in code (`detect::File for Sheet`); both go through `Builder`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::request::{Cell, Row, Sheet};
use super::sniff::Value;

/// One cell (8 bytes): numbers and texts are indexes into their column's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Empty,
    Bool(bool),
    Num(u32),
    Text(u32),
    /// A date the engine made (a melted period column).
    Date(NaiveDate),
}

/// One column: a slot per row, the column's distinct numbers and texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Column {
    pub slots: Vec<Slot>,
    pub numbers: Vec<Decimal>,
    pub texts: Vec<Box<str>>,
}

impl Column {
    pub fn value(&self, slot: Slot) -> Value<'_> {
        match slot {
            Slot::Empty => Value::Empty,
            Slot::Bool(b) => Value::Bool(b),
            Slot::Num(i) => Value::Num(self.numbers[i as usize]),
            Slot::Text(id) => Value::Text(&self.texts[id as usize]),
            Slot::Date(d) => Value::Date(d),
        }
    }
}

/// A file: its columns in the order they first came.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cells {
    pub name: String,
    pub headers: Vec<String>,
    pub columns: Vec<Column>,
    pub rows: usize,
    /// The full row count when the client sent a cut of the sheet.
    pub total_rows: Option<u64>,
}

impl Cells {
    /// Whether every cell is empty.
    pub fn all_empty(&self) -> bool {
        self.columns
            .iter()
            .all(|c| c.slots.iter().all(|s| *s == Slot::Empty))
    }

    /// The rows picked by `rows` (ascending), every column kept.
    pub fn select(&self, rows: impl Iterator<Item = usize>) -> Cells {
        let mut b = Builder::default();
        for (header, _) in self.headers.iter().zip(&self.columns) {
            b.column(header, b.width());
        }
        for i in rows {
            for (j, column) in self.columns.iter().enumerate() {
                b.set(j, column.value(column.slots[i]));
            }
            b.end_row();
        }
        b.finish(self.name.clone(), self.total_rows)
    }
}

/// The rows of a file, every column in each (an absent cell is empty).
impl From<Cells> for Sheet {
    fn from(cells: Cells) -> Sheet {
        let keys: Vec<Arc<str>> = cells.headers.iter().map(|h| Arc::from(&**h)).collect();
        let rows = (0..cells.rows)
            .map(|i| {
                Row(keys
                    .iter()
                    .zip(&cells.columns)
                    .map(|(k, c)| {
                        let cell = match c.slots[i] {
                            Slot::Num(id) => Cell::Number(c.numbers[id as usize]),
                            Slot::Text(id) => Cell::Text(c.texts[id as usize].to_string()),
                            Slot::Bool(b) => Cell::Bool(b),
                            Slot::Empty | Slot::Date(_) => Cell::Empty,
                        };
                        (k.clone(), cell)
                    })
                    .collect())
            })
            .collect();
        Sheet {
            name: cells.name,
            rows,
            total_rows: cells.total_rows,
        }
    }
}

/// Cells written row by row: `column` finds or adds a column, `set` writes
/// the current row's cell, `end_row` leaves the columns not written empty.
#[derive(Default)]
pub struct Builder {
    headers: Vec<String>,
    columns: Vec<Growing>,
    rows: usize,
}

#[derive(Default)]
struct Growing {
    slots: Vec<Slot>,
    numbers: Vec<Decimal>,
    /// A number's id by its exact form (1.0 and 1.00 are two numbers).
    number_ids: HashMap<[u8; 16], u32>,
    text_ids: HashMap<Box<str>, u32>,
    /// The last text written and its id: a text equal to it (a sorted or
    /// grouped column) takes the id without hashing.
    last: Option<(String, u32)>,
}

impl Growing {
    /// The id of number `n`, added when new.
    fn number(&mut self, n: Decimal) -> u32 {
        let next = self.numbers.len() as u32;
        let id = *self.number_ids.entry(n.serialize()).or_insert(next);
        if id == next {
            self.numbers.push(n);
        }
        id
    }

    /// The id of text `t`, added when new.
    fn text(&mut self, t: &str) -> u32 {
        if let Some((last, id)) = &self.last
            && last == t
        {
            return *id;
        }
        let id = match self.text_ids.get(t) {
            Some(id) => *id,
            None => {
                let id = self.text_ids.len() as u32;
                self.text_ids.insert(t.into(), id);
                id
            }
        };
        let (last, last_id) = self.last.get_or_insert_with(|| (String::new(), id));
        last.clear();
        last.push_str(t);
        *last_id = id;
        id
    }
}

impl Builder {
    /// Columns so far.
    pub fn width(&self) -> usize {
        self.headers.len()
    }

    /// The index of the column named `key` (looked for first at `at`, its
    /// place in the previous rows), or None.
    pub fn find(&self, key: &str, at: usize) -> Option<usize> {
        if self.headers.get(at).is_some_and(|h| h == key) {
            return Some(at);
        }
        self.headers.iter().position(|h| h == key)
    }

    /// The index of the column named `key`, added (empty in the rows above)
    /// when new.
    pub fn column(&mut self, key: &str, at: usize) -> usize {
        if let Some(j) = self.find(key, at) {
            return j;
        }
        self.headers.push(key.to_string());
        self.columns.push(Growing {
            slots: vec![Slot::Empty; self.rows],
            ..Growing::default()
        });
        self.columns.len() - 1
    }

    /// Whether the current row's cell of column `j` is written.
    pub fn is_set(&self, j: usize) -> bool {
        self.columns[j].slots.len() > self.rows
    }

    /// Writes the current row's cell of column `j` (once: a second value
    /// for the same cell is dropped).
    pub fn set(&mut self, j: usize, value: Value) {
        if self.is_set(j) {
            return;
        }
        let column = &mut self.columns[j];
        let slot = match value {
            Value::Empty => Slot::Empty,
            Value::Bool(b) => Slot::Bool(b),
            Value::Num(n) => Slot::Num(column.number(n)),
            Value::Text(t) => Slot::Text(column.text(t)),
            Value::Date(d) => Slot::Date(d),
        };
        column.slots.push(slot);
    }

    pub fn end_row(&mut self) {
        self.rows += 1;
        for column in &mut self.columns {
            column.slots.resize(self.rows, Slot::Empty);
        }
    }

    /// The cells, without the room the columns had left to grow.
    pub fn finish(self, name: String, total_rows: Option<u64>) -> Cells {
        let columns = self
            .columns
            .into_iter()
            .map(|mut c| {
                let mut texts = vec![Box::<str>::default(); c.text_ids.len()];
                for (text, id) in c.text_ids {
                    texts[id as usize] = text;
                }
                c.slots.shrink_to_fit();
                c.numbers.shrink_to_fit();
                Column {
                    slots: c.slots,
                    numbers: c.numbers,
                    texts,
                }
            })
            .collect();
        Cells {
            name,
            headers: self.headers,
            columns,
            rows: self.rows,
            total_rows,
        }
    }
}
