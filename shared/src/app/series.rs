//! Numbering series of an account and mode: list, define, change and delete
//! them, and choose the one an invoice is numbered in. The four built-in
//! series (`F`, `S`, `R`, `RS`) exist without being stored; a change to one
//! stores it. Each series keeps its counters (`store::counter`); a series
//! whose counters have numbered an invoice keeps its pattern and purpose and
//! cannot be deleted. Issuing checks the version of the series it numbers
//! in, so a change committed meanwhile makes the issue run again.

use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::invoices::error::InvoiceError;
use super::invoices::store;
use crate::app::keys::Caller;
use crate::app::race;
use crate::domain::account::Mode;
use crate::domain::madrid;
use crate::invoice::number::{self, Code, Pattern};
use crate::invoice::series::{Numbered, Purpose, Series};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, Write};

/// At most this many series per account and mode, built-in ones included.
pub const MAX_SERIES: usize = 50;

/// A series as the API shows it.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq)]
pub struct SeriesView {
    /// `series`.
    pub object: String,
    /// 1–10 capital letters; the number's leading letters.
    pub code: String,
    /// `{code}`, `{year}`, `{n}` or `{n:0W}` and literal `A–Z a–z 0–9 - / _ .`.
    pub pattern: String,
    /// Numbering starts again at 1 every calendar year (the pattern has `{year}`).
    pub yearly_restart: bool,
    pub purpose: Purpose,
    /// Used for invoices of its purpose that name no series.
    pub default: bool,
    /// One of the four series every account has (`F`, `S`, `R`, `RS`); it cannot be deleted.
    pub builtin: bool,
    /// The series has numbered invoices: its pattern, restart and purpose are fixed and it cannot be deleted.
    pub used: bool,
    /// The number the next invoice in it would get if issued today.
    pub next_number: String,
    pub description: Option<String>,
}

/// A new series.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "TK", "pattern": "{code}{year}/{n:05}", "purpose": "simplified",
    "default": true, "description": "Tickets de la tienda"}))]
pub struct SeriesCreate {
    /// 1–10 capital letters A–Z, unique in the account.
    pub code: String,
    /// Default `{code}{year}-{n:06}`. Starts with `{code}`, not followed by a
    /// letter; `{n}` exactly once; `{year}` when the series restarts yearly; at most 30 characters.
    pub pattern: Option<String>,
    /// Default true.
    pub yearly_restart: Option<bool>,
    pub purpose: Purpose,
    /// Make it the default of its purpose (the previous default stops being one). Default false.
    #[serde(default)]
    pub default: bool,
    /// Up to 200 characters.
    pub description: Option<String>,
}

/// Changes to a series; absent fields keep their value.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesUpdate {
    /// Only while the series has numbered no invoice.
    pub pattern: Option<String>,
    /// Only while the series has numbered no invoice.
    pub yearly_restart: Option<bool>,
    /// Only while the series has numbered no invoice.
    pub purpose: Option<Purpose>,
    /// `true` makes it the default of its purpose; a default stops being one
    /// only when another series becomes the default.
    pub default: Option<bool>,
    pub description: Option<String>,
}

#[derive(Debug)]
pub enum SeriesError {
    Invalid {
        code: &'static str,
        param: String,
        message: String,
    },
    NotFound(String),
    Conflict {
        code: &'static str,
        message: String,
    },
    Storage(TableError),
}

impl From<TableError> for SeriesError {
    fn from(e: TableError) -> Self {
        SeriesError::Storage(e)
    }
}

fn invalid(param: &str, message: impl Into<String>) -> SeriesError {
    SeriesError::Invalid {
        code: "parameter_invalid",
        param: param.into(),
        message: message.into(),
    }
}

/// A series with the version it was read at (`None`: a built-in never stored).
#[derive(Clone, Debug)]
pub struct Stored {
    pub series: Series,
    pub version: Option<i64>,
}

#[derive(Serialize, Deserialize)]
struct Doc {
    pattern: String,
    yearly_restart: bool,
    purpose: Purpose,
    default: bool,
    description: Option<String>,
    created_at: DateTime<Utc>,
}

fn series_pk(caller: &Caller) -> String {
    format!("SERIES#{}#{}", caller.account_id, caller.mode.as_str())
}

fn key(caller: &Caller, code: &Code) -> Key {
    Key::new(series_pk(caller), code.as_str())
}

fn decode(item: &Item) -> Result<Stored, TableError> {
    let unreadable =
        |e: String| TableError::Unavailable(format!("unreadable series {}: {e}", item.key));
    let doc: Doc = serde_json::from_str(item.s("doc").unwrap_or_default())
        .map_err(|e| unreadable(e.to_string()))?;
    let code = Code::parse(&item.key.sk).map_err(unreadable)?;
    let pattern = Pattern::parse(&doc.pattern, doc.yearly_restart).map_err(unreadable)?;
    Ok(Stored {
        series: Series {
            code,
            pattern,
            yearly_restart: doc.yearly_restart,
            purpose: doc.purpose,
            default: doc.default,
            description: doc.description,
        },
        version: item.n("version"),
    })
}

/// Every series of the caller's space: the stored ones and the built-ins
/// not stored, by code.
pub async fn all(ports: &Ports, caller: &Caller) -> Result<Vec<Stored>, TableError> {
    let query = Query::new(series_pk(caller), SortKey::All).limit(MAX_SERIES);
    let page = ports.table.query(&query).await?;
    let mut stored = page
        .items
        .iter()
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?;
    for builtin in Series::builtins() {
        if !stored.iter().any(|s| s.series.code == builtin.code) {
            stored.push(Stored {
                series: builtin,
                version: None,
            });
        }
    }
    stored.sort_by(|a, b| a.series.code.cmp(&b.series.code));
    Ok(stored)
}

/// The write that stores `series` over what was read at `version`.
fn put(caller: &Caller, series: &Series, version: Option<i64>, now: DateTime<Utc>) -> Write {
    let doc = Doc {
        pattern: series.pattern.as_str().to_string(),
        yearly_restart: series.yearly_restart,
        purpose: series.purpose,
        default: series.default,
        description: series.description.clone(),
        created_at: now,
    };
    let item = Item::new(key(caller, &series.code))
        .with(
            "doc",
            serde_json::to_string(&doc).expect("series serialise"),
        )
        .with("version", version.unwrap_or(0) + 1);
    Write::Put {
        item,
        condition: Some(unchanged(version)),
    }
}

fn unchanged(version: Option<i64>) -> Condition {
    match version {
        Some(v) => Condition::equals("version", v),
        None => Condition::Absent,
    }
}

/// The caller's counters as they stand, read at once for every series: a
/// series has numbered invoices when one of its counters has moved.
struct Counters(Vec<(String, u64)>);

impl Counters {
    async fn read(ports: &Ports, caller: &Caller) -> Result<Counters, TableError> {
        let mut counters = Vec::new();
        let mut cursor = None;
        loop {
            let query = Query::new(store::counters_pk(caller), SortKey::All)
                .limit(1000)
                .after(cursor);
            let page = ports.table.query(&query).await?;
            counters.extend(page.items.iter().map(|item| {
                let n = item.n("n").unwrap_or(0).max(0) as u64;
                (item.key.sk.clone(), n)
            }));
            match page.next {
                Some(next) => cursor = Some(next),
                None => return Ok(Counters(counters)),
            }
        }
    }

    fn used(&self, code: &Code) -> bool {
        self.0
            .iter()
            .any(|(name, n)| number::counts_for(name, code) && *n > 0)
    }

    /// The number the series' next invoice in `year` gets.
    fn next(&self, series: &Series, year: i32) -> u64 {
        let name = number::counter_name(&series.code, series.yearly_restart, year);
        let value = self
            .0
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, n)| *n);
        value + 1
    }
}

fn view(series: &Series, counters: &Counters, year: i32, mode: Mode) -> SeriesView {
    SeriesView {
        object: "series".into(),
        code: series.code.to_string(),
        pattern: series.pattern.as_str().to_string(),
        yearly_restart: series.yearly_restart,
        purpose: series.purpose,
        default: series.default,
        builtin: series.is_builtin(),
        used: counters.used(&series.code),
        next_number: series
            .pattern
            .format(&series.code, year, counters.next(series, year), mode),
        description: series.description.clone(),
    }
}

/// Every series and the counters, read at once.
async fn read(ports: &Ports, caller: &Caller) -> Result<(Vec<Stored>, Counters), TableError> {
    tokio::try_join!(all(ports, caller), Counters::read(ports, caller))
}

fn this_year(ports: &Ports) -> i32 {
    madrid::date(ports.clock.now()).year()
}

pub async fn list(ports: &Ports, caller: &Caller) -> Result<Vec<SeriesView>, SeriesError> {
    let (all, counters) = read(ports, caller).await?;
    let year = this_year(ports);
    Ok(all
        .iter()
        .map(|stored| view(&stored.series, &counters, year, caller.mode))
        .collect())
}

fn find<'a>(all: &'a [Stored], raw: &str) -> Result<&'a Stored, SeriesError> {
    all.iter()
        .find(|s| s.series.code.as_str() == raw)
        .ok_or_else(|| SeriesError::NotFound(format!("no series {raw}")))
}

pub async fn get(ports: &Ports, caller: &Caller, code: &str) -> Result<SeriesView, SeriesError> {
    let (all, counters) = read(ports, caller).await?;
    let stored = find(&all, code)?;
    Ok(view(
        &stored.series,
        &counters,
        this_year(ports),
        caller.mode,
    ))
}

fn description(raw: Option<String>) -> Result<Option<String>, SeriesError> {
    let Some(text) = raw.map(|d| d.trim().to_string()).filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > 200 {
        return Err(invalid(
            "description",
            "description is longer than 200 characters",
        ));
    }
    Ok(Some(text))
}

fn pattern(raw: &str, yearly: bool) -> Result<Pattern, SeriesError> {
    Pattern::parse(raw, yearly).map_err(|m| invalid("pattern", m))
}

/// The writes that take the default of `purpose` from every other series.
fn others_not_default(
    caller: &Caller,
    all: &[Stored],
    keep: &Code,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> Vec<Write> {
    all.iter()
        .filter(|s| s.series.purpose == purpose && s.series.default && s.series.code != *keep)
        .map(|s| {
            let series = Series {
                default: false,
                ..s.series.clone()
            };
            put(caller, &series, s.version, now)
        })
        .collect()
}

/// The writes that store `series` over what was read at `version` and,
/// when it takes the default of its purpose, take it from the others.
fn storing(
    caller: &Caller,
    all: &[Stored],
    series: &Series,
    version: Option<i64>,
    takes_default: bool,
    now: DateTime<Utc>,
) -> Vec<Write> {
    let mut writes = vec![put(caller, series, version, now)];
    if takes_default {
        writes.extend(others_not_default(
            caller,
            all,
            &series.code,
            series.purpose,
            now,
        ));
    }
    writes
}

pub async fn create(
    ports: &Ports,
    caller: &Caller,
    req: SeriesCreate,
) -> Result<(SeriesView, Vec<Write>), SeriesError> {
    let code = Code::parse(&req.code).map_err(|m| invalid("code", m))?;
    let yearly_restart = req.yearly_restart.unwrap_or(true);
    let pattern = pattern(
        req.pattern.as_deref().unwrap_or(number::DEFAULT_PATTERN),
        yearly_restart,
    )?;
    let (all, counters) = read(ports, caller).await?;
    if all.iter().any(|s| s.series.code == code) {
        return Err(SeriesError::Conflict {
            code: "series_exists",
            message: format!(
                "the series {code} exists; change it with PATCH /api/v1/series/{code}"
            ),
        });
    }
    if all.len() >= MAX_SERIES {
        return Err(SeriesError::Conflict {
            code: "too_many_series",
            message: format!("at most {MAX_SERIES} series per account"),
        });
    }
    if counters.used(&code) {
        return Err(SeriesError::Conflict {
            code: "series_in_use",
            message: format!(
                "invoices were numbered in a series {code} before; define it again with its earlier pattern"
            ),
        });
    }
    let series = Series {
        code,
        pattern,
        yearly_restart,
        purpose: req.purpose,
        default: req.default,
        description: description(req.description)?,
    };
    let writes = storing(
        caller,
        &all,
        &series,
        None,
        series.default,
        ports.clock.now(),
    );
    Ok((
        view(&series, &counters, this_year(ports), caller.mode),
        writes,
    ))
}

/// How many times a change that lost a race with another write of the
/// account's series is read and applied again.
const ATTEMPTS: u32 = 10;

/// Commits a change; false when a concurrent write won and the change must
/// be read and made again.
async fn committed(ports: &Ports, writes: Vec<Write>) -> Result<bool, SeriesError> {
    match ports.table.transact(writes).await {
        Ok(()) => Ok(true),
        Err(TableError::ConditionFailed { .. } | TableError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Applies the changes and commits them.
pub async fn update(
    ports: &Ports,
    caller: &Caller,
    code: &str,
    req: &SeriesUpdate,
) -> Result<SeriesView, SeriesError> {
    for attempt in 0..ATTEMPTS {
        let (view, writes) = changes(ports, caller, code, req).await?;
        if committed(ports, writes).await? {
            return Ok(view);
        }
        race::pause(attempt).await;
    }
    Err(TableError::Conflict.into())
}

/// The series changed, and the writes that store it.
pub async fn changes(
    ports: &Ports,
    caller: &Caller,
    code: &str,
    req: &SeriesUpdate,
) -> Result<(SeriesView, Vec<Write>), SeriesError> {
    let (all, counters) = read(ports, caller).await?;
    let stored = find(&all, code)?.clone();
    let old = &stored.series;
    let renumbers = req.pattern.is_some() || req.yearly_restart.is_some() || req.purpose.is_some();
    if renumbers && counters.used(&old.code) {
        return Err(SeriesError::Conflict {
            code: "series_in_use",
            message: format!(
                "the series {} has numbered invoices: its pattern, restart and purpose cannot change; define a new series",
                old.code
            ),
        });
    }
    if req.default == Some(false) && old.default {
        return Err(invalid(
            "default",
            "every purpose has a default series: make another series the default instead",
        ));
    }
    let purpose = req.purpose.unwrap_or(old.purpose);
    if purpose != old.purpose && old.default {
        return Err(invalid(
            "purpose",
            "the default series of a purpose keeps it: make another series the default first",
        ));
    }
    if purpose != old.purpose && old.is_builtin() {
        return Err(invalid("purpose", "a built-in series keeps its purpose"));
    }
    let yearly_restart = req.yearly_restart.unwrap_or(old.yearly_restart);
    let series = Series {
        code: old.code.clone(),
        pattern: pattern(
            req.pattern.as_deref().unwrap_or(old.pattern.as_str()),
            yearly_restart,
        )?,
        yearly_restart,
        purpose,
        default: req.default.unwrap_or(old.default),
        description: match &req.description {
            Some(d) => description(Some(d.clone()))?,
            None => old.description.clone(),
        },
    };
    let takes_default = series.default && !old.default;
    let now = ports.clock.now();
    let writes = storing(caller, &all, &series, stored.version, takes_default, now);
    Ok((
        view(&series, &counters, this_year(ports), caller.mode),
        writes,
    ))
}

/// Deletes a defined series that numbered no invoice and is not a default.
pub async fn delete(ports: &Ports, caller: &Caller, code: &str) -> Result<(), SeriesError> {
    for attempt in 0..ATTEMPTS {
        if committed(ports, deletion(ports, caller, code).await?).await? {
            return Ok(());
        }
        race::pause(attempt).await;
    }
    Err(TableError::Conflict.into())
}

async fn deletion(ports: &Ports, caller: &Caller, code: &str) -> Result<Vec<Write>, SeriesError> {
    let (all, counters) = read(ports, caller).await?;
    let stored = find(&all, code)?;
    let series = &stored.series;
    let refuse = |code: &'static str, message: String| Err(SeriesError::Conflict { code, message });
    if series.is_builtin() {
        return refuse(
            "series_builtin",
            format!("{} is a built-in series; it cannot be deleted", series.code),
        );
    }
    if series.default {
        return refuse(
            "series_default",
            format!(
                "{} is the default {} series: make another series the default first",
                series.code,
                series.purpose.code()
            ),
        );
    }
    if counters.used(&series.code) {
        return refuse(
            "series_in_use",
            format!(
                "the series {} has numbered invoices; it cannot be deleted",
                series.code
            ),
        );
    }
    Ok(vec![Write::Delete {
        key: key(caller, &series.code),
        condition: Some(unchanged(stored.version)),
    }])
}

/// The series an invoice is numbered in, and the check its transaction
/// carries that the series did not change since it was read.
pub struct Chosen {
    pub series: Series,
    pub check: Write,
}

/// The series named by `requested`, or else the default of the invoice's purpose.
pub async fn choose(
    ports: &Ports,
    caller: &Caller,
    requested: Option<&str>,
    numbered: Numbered,
) -> Result<Chosen, InvoiceError> {
    let all = all(ports, caller).await?;
    let stored = match requested {
        Some(raw) => {
            let stored = all
                .iter()
                .find(|s| s.series.code.as_str() == raw)
                .ok_or_else(|| {
                    InvoiceError::invalid(
                        "parameter_invalid",
                        "series".into(),
                        format!("no series {raw:?}; see GET /api/v1/series"),
                    )
                })?;
            if !stored.series.purpose.holds(numbered) {
                return Err(InvoiceError::invalid(
                    "series_purpose_mismatch",
                    "series".into(),
                    format!(
                        "{} is a {} series; {} goes into a {} series (RD 1619/2012 arts. 6.1.a and 7.1.a)",
                        stored.series.code,
                        stored.series.purpose.code(),
                        numbered.describe(),
                        numbered.purpose().code()
                    ),
                ));
            }
            stored
        }
        None => all
            .iter()
            .find(|s| s.series.purpose == numbered.purpose() && s.series.default)
            .ok_or_else(|| {
                TableError::Unavailable(format!("no {} series", numbered.purpose().code()))
            })?,
    };
    Ok(Chosen {
        series: stored.series.clone(),
        check: Write::Check {
            key: key(caller, &stored.series.code),
            condition: unchanged(stored.version),
        },
    })
}
