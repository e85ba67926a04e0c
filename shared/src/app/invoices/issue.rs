//! Issuing: an ordinary invoice from a request, and the common last step that
//! numbers any invoice (ordinary or rectifying), builds its VERI*FACTU record
//! and produces the writes of its ONE transaction: ID counter, series counter,
//! invoice, chain head and record, ledger entry (live only) and outbox event.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde_json::json;

use super::due_index;
use super::error::InvoiceError;
use super::form::{self, Asked};
use super::record::{RecordInput, registration, total_text};
use super::replace::{self, Replaced};
use super::request::{self, IssueRequest, MAX_GROUPS};
use super::schedule;
use super::store;
use super::test_options;
use crate::app::keys::Caller;
use crate::app::series;
use crate::app::verifactu::reason;
use crate::app::{accounts, customers, ledger, outbox};
use crate::domain::account::Account;
use crate::domain::madrid;
use crate::invoice::combinations;
use crate::invoice::kind::Kind;
use crate::invoice::line::Line;
use crate::invoice::model::{
    GroupView, HistoryEvent, HistoryKind, Invoice, InvoiceLink, IssuerView, LineView, Payment,
    Rectifies, VerifactuView,
};
use crate::invoice::number;
use crate::invoice::party::{Party, PartyInput};
use crate::invoice::payments::{self, Instalment};
use crate::invoice::series::Numbered;
use crate::invoice::status::Status;
use crate::invoice::totals::{self, Prices, Totals};
use crate::invoice::warnings::{self, Warning};
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::tax::indirect::IndirectTax;
use crate::tax::ledger_entry::{LedgerEntry, RateGroup, accrual_of};
use crate::tax::money::{MAX_INTEGER_DIGITS, as_number};
use crate::tax::money::{Money, Percent};
use crate::verifactu::aeat::{Operation, RecordError};
use crate::verifactu::status::RecordStatus;
use crate::verifactu::{Rectification, Simplification, SystemInfo, qr_url};
use crate::webhooks::event_type::EventType;

/// Everything an invoice is made of before it is numbered.
pub struct Draft {
    pub kind: Kind,
    /// The series the request names; none: the default of its purpose.
    pub series: Option<String>,
    pub numbered: Numbered,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    pub due_date: Option<NaiveDate>,
    /// The due dates (see `schedule`); empty for rectifying invoices.
    pub instalments: Vec<Instalment>,
    pub customer: Option<Party>,
    pub customer_id: Option<String>,
    pub lines: Vec<Line>,
    pub prices: Prices,
    /// The issuer's tax when the lines were checked.
    pub tax: IndirectTax,
    pub totals: Totals,
    pub qualified_simplified: bool,
    pub without_recipient_id: bool,
    /// An F3: the tickets it replaces, as read.
    pub replaced: Vec<(Invoice, i64)>,
    pub notes: Option<String>,
    pub payment: Option<Payment>,
    pub rectifies: Option<Rectifies>,
    pub rectification: Option<Rectification>,
    /// Signed per-group amounts the ledger records (for a substitution: the difference).
    pub ledger_groups: Vec<RateGroup>,
    pub ledger_irpf: Decimal,
    /// Test invoices only: the AEAT error the simulator answers its record with.
    pub simulated_error: Option<RecordError>,
    pub warnings: Vec<Warning>,
}

pub fn today(ports: &Ports) -> NaiveDate {
    madrid::date(ports.clock.now())
}

pub fn check_totals(totals: &Totals) -> Result<(), InvoiceError> {
    if totals.groups.len() > MAX_GROUPS {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            "lines".into(),
            format!("at most {MAX_GROUPS} distinct VAT rate / exemption groups per invoice"),
        ));
    }
    if totals.gross().abs() >= Decimal::from(10i64.pow(MAX_INTEGER_DIGITS)) {
        return Err(InvoiceError::invalid(
            "amount_too_large",
            "lines".into(),
            format!("the invoice total has more than {MAX_INTEGER_DIGITS} integer digits"),
        ));
    }
    Ok(())
}

pub fn ledger_groups(totals: &Totals) -> Vec<RateGroup> {
    totals
        .groups
        .iter()
        .map(|g| RateGroup {
            vat_rate: g.vat_rate,
            base: g.base,
            vat_amount: g.vat_amount,
            surcharge_rate: g.surcharge_rate,
            surcharge_amount: g.surcharge_amount,
            treatment: g.treatment,
        })
        .collect()
}

async fn customer(
    ports: &Ports,
    caller: &Caller,
    req: &mut IssueRequest,
) -> Result<(Option<Party>, Option<String>), InvoiceError> {
    match (req.customer.take(), req.customer_id.take()) {
        (Some(_), Some(_)) => Err(InvoiceError::invalid(
            "parameter_invalid",
            "customer_id".into(),
            "send either customer or customer_id, not both",
        )),
        (None, Some(id)) => match customers::get(ports, caller, &id).await {
            Ok(c) => Ok((Some(c.party()), Some(id))),
            Err(customers::CustomerError::Storage(e)) => Err(e.into()),
            Err(_) => Err(InvoiceError::invalid(
                "parameter_invalid",
                "customer_id".into(),
                format!("no customer {id}"),
            )),
        },
        (Some(fields), None) => {
            let input: PartyInput = fields.into_input();
            Party::parse(input).map(|p| (Some(p), None)).map_err(|e| {
                InvoiceError::invalid(
                    "parameter_invalid",
                    format!("customer.{}", e.field),
                    e.message,
                )
            })
        }
        (None, None) => Ok((None, None)),
    }
}

/// Validates an issue request into a draft.
pub async fn draft(
    ports: &Ports,
    caller: &Caller,
    mut req: IssueRequest,
) -> Result<Draft, InvoiceError> {
    let today = today(ports);
    let issue_date = req.issue_date.unwrap_or(today);
    if issue_date > today {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            "issue_date".into(),
            format!("{issue_date} is in the future (today is {today} in Madrid)"),
        ));
    }
    let irpf_rate = request::irpf(req.irpf_rate)?;
    let simulated_error = test_options::simulated_error(req.test_options.take(), caller.mode)?;
    let (customer, customer_id) = customer(ports, caller, &mut req).await?;
    let tax_date = req.operation_date.unwrap_or(issue_date);
    // The account as authentication just read it: its tax, limits and terms.
    let account = accounts::get_recent(ports, &caller.account_id).await?;
    let tax =
        IndirectTax::of_postal_code(account.issuer.postal_code.as_deref().unwrap_or_default());
    let replaced = match req.replaces.take() {
        Some(ids) => Some(replace::read(ports, caller, &ids).await?),
        None => None,
    };
    let (lines, prices) = match &replaced {
        Some(Replaced { lines, prices, .. }) => {
            if !req.lines.is_empty() {
                return Err(InvoiceError::invalid(
                    "parameter_invalid",
                    "lines".into(),
                    "an invoice replacing tickets takes their lines; send none",
                ));
            }
            (lines.clone(), *prices)
        }
        None => (
            request::lines(&req.lines, tax_date, req.equivalence_surcharge, false, tax)?,
            request::prices(req.prices_include_vat, req.equivalence_surcharge)?,
        ),
    };
    combinations::surcharge_with_withholding(req.equivalence_surcharge, irpf_rate)?;
    let totals = totals::compute_with(&lines, irpf_rate, prices);
    check_totals(&totals)?;
    let form = form::decide(&Asked {
        customer: customer.as_ref(),
        simplified: req.simplified,
        replaces_tickets: replaced.is_some(),
        lines: &lines,
        gross: totals.gross(),
        irpf_rate,
        limit: account.simplified_limit,
    })?;
    combinations::intra_eu_supply(&lines, customer.as_ref())?;
    let ledger = match &replaced {
        Some(r) => super::rectify::difference(&ledger_groups(&totals), &replace::ledger_of(r)),
        None => ledger_groups(&totals),
    };
    if let Some(due) = req.due_date
        && due < issue_date
    {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            "due_date".into(),
            "due_date is before issue_date",
        ));
    }
    let by_terms = form.numbered == Numbered::Full && replaced.is_none();
    let by_dates = req.due_dates.is_some();
    let instalments = schedule::instalments(
        req.due_date,
        req.due_dates.take(),
        issue_date,
        totals.total,
        by_terms.then_some(account.payment_terms_days),
    )?;
    let business = customer.as_ref().is_some_and(|c| c.tax_id.is_some());
    let warnings = warnings::payment_terms(business, tax_date, &instalments, by_dates);
    let notes = req
        .notes
        .as_deref()
        .map(|n| request::text(n, 1000, "notes", false))
        .transpose()?
        .flatten();
    Ok(Draft {
        kind: form.kind,
        series: req.series.take(),
        numbered: form.numbered,
        qualified_simplified: form.qualified_simplified,
        without_recipient_id: form.without_recipient_id,
        replaced: replaced.map(|r| r.invoices).unwrap_or_default(),
        prices,
        tax,
        issue_date,
        operation_date: req.operation_date,
        due_date: instalments.last().map(|i| i.date).or(req.due_date),
        instalments,
        payment: request::payment(req.payment)?,
        customer,
        customer_id,
        ledger_groups: ledger,
        ledger_irpf: totals.irpf_amount,
        lines,
        totals,
        notes,
        rectifies: None,
        rectification: None,
        simulated_error,
        warnings,
    })
}

/// The account's issuer details as an invoice shows them (409 when incomplete).
pub async fn account_issuer(ports: &Ports, caller: &Caller) -> Result<IssuerView, InvoiceError> {
    let account = accounts::get(ports, &caller.account_id).await?;
    issuer_view(&account)
}

fn issuer_view(account: &Account) -> Result<IssuerView, InvoiceError> {
    let issuer = &account.issuer;
    let missing = issuer.missing_fields();
    if !missing.is_empty() {
        return Err(InvoiceError::IssuerIncomplete(missing));
    }
    Ok(IssuerView {
        name: issuer.name.clone().unwrap_or_default(),
        tax_id: issuer
            .nif
            .as_ref()
            .map(|n| n.to_string())
            .unwrap_or_default(),
        address: issuer.address.clone().unwrap_or_default(),
        postal_code: issuer.postal_code.clone().unwrap_or_default(),
        city: issuer.city.clone().unwrap_or_default(),
        province: issuer.province.clone(),
        country: issuer.country.clone().unwrap_or_else(|| "ES".into()),
    })
}

fn line_views(lines: &[Line], totals: &Totals, prices: Prices) -> Vec<LineView> {
    let bases = totals::line_bases(lines, totals, prices);
    lines
        .iter()
        .zip(bases)
        .map(|(l, base)| {
            let (unit_price, unit_price_with_vat) = match prices {
                Prices::WithoutVat => (l.unit_price, None),
                Prices::VatIncluded => (totals::unit_price_of(l, base), Some(l.unit_price)),
            };
            LineView {
                description: l.description.clone(),
                quantity: l.quantity,
                unit_price: Money::from(unit_price),
                unit_price_with_vat: unit_price_with_vat.map(Money::from),
                discount_percent: Percent::from(l.discount_percent),
                vat_rate: Percent::from(l.vat_rate),
                surcharge_rate: Percent::from(l.surcharge_rate),
                exemption: l
                    .treatment
                    .wording()
                    .map(|_| l.treatment.code().to_string()),
                base: Money::from(base),
            }
        })
        .collect()
}

fn group_views(totals: &Totals) -> Vec<GroupView> {
    totals
        .groups
        .iter()
        .map(|g| GroupView {
            vat_rate: Percent::from(g.vat_rate),
            base: Money::from(g.base),
            vat_amount: Money::from(g.vat_amount),
            surcharge_rate: Percent::from(g.surcharge_rate),
            surcharge_amount: Money::from(g.surcharge_amount),
            exemption: g
                .treatment
                .wording()
                .map(|_| g.treatment.code().to_string()),
        })
        .collect()
}

/// The data of an `invoice.*` event: `object`, the invoice summary (id,
/// object, number, kind, status, livemode, issue_date, customer_id and the
/// amounts), with the same member types as the invoice itself.
pub fn event_data(invoice: &Invoice) -> serde_json::Value {
    let amount =
        |x: &Decimal| as_number(x, serde_json::value::Serializer).expect("amounts serialise");
    json!({ "object": {
        "id": invoice.id,
        "object": invoice.object,
        "number": invoice.number,
        "kind": invoice.kind,
        "status": invoice.status,
        "livemode": invoice.livemode,
        "issue_date": invoice.issue_date,
        "customer_id": invoice.customer_id,
        "base": amount(&invoice.base.value()),
        "vat_amount": amount(&invoice.vat_amount.value()),
        "irpf_amount": amount(&invoice.irpf_amount.value()),
        "total": amount(&invoice.total.value()),
    }})
}

/// Numbers the draft and returns the invoice with the writes of its transaction.
pub async fn finalize(
    ports: &Ports,
    caller: &Caller,
    system: &SystemInfo,
    draft: Draft,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let year = draft.issue_date.year();
    // Independent reads, at once: one round trip's wait instead of four.
    let (account, ids, chosen, status_reason) = tokio::try_join!(
        async {
            accounts::get(ports, &caller.account_id)
                .await
                .map_err(InvoiceError::from)
        },
        store::counter(ports, caller, "ID"),
        series::choose(ports, caller, draft.series.as_deref(), draft.numbered),
        async {
            reason::unsendable(ports, &caller.account_id, caller.mode)
                .await
                .map_err(InvoiceError::from)
        },
    )?;
    let issuer = issuer_view(&account)?;
    let cash_accounting = account.cash_accounting && draft.tax == IndirectTax::Iva;
    if IndirectTax::of_postal_code(&issuer.postal_code) != draft.tax {
        return Err(InvoiceError::InvalidState(
            "the issuer's address changed while the invoice was being issued; send it again".into(),
        ));
    }
    let numbering = &chosen.series;
    let series_name = number::counter_name(&numbering.code, numbering.yearly_restart, year);
    let chain = store::chain_pk(caller, &issuer.tax_id);
    let (series, head, owner) = tokio::try_join!(
        store::counter(ports, caller, &series_name),
        store::chain_head(ports, &chain),
        store::chain_owner(ports, caller, &issuer.tax_id),
    )?;
    if let Some(last) = series.last_date
        && draft.issue_date < last
    {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            "issue_date".into(),
            format!(
                "{} is before the last invoice of the series {} ({last})",
                draft.issue_date, numbering.code
            ),
        ));
    }
    let number = numbering
        .pattern
        .format(&numbering.code, year, series.next(), caller.mode);
    let now: DateTime<Utc> = ports.clock.now();
    let descriptions: Vec<&str> = draft.lines.iter().map(|l| l.description.as_str()).collect();
    let built = registration(RecordInput {
        issuer_nif: &issuer.tax_id,
        issuer_name: &issuer.name,
        number: &number,
        issue_date: draft.issue_date,
        operation_date: draft.operation_date,
        kind: draft.kind,
        customer: draft.customer.as_ref(),
        descriptions,
        totals: &draft.totals,
        tax: draft.tax,
        cash_accounting,
        rectification: draft.rectification.clone(),
        simplification: Simplification {
            qualified: draft.qualified_simplified,
            without_recipient: draft.without_recipient_id,
            replaced: draft
                .replaced
                .iter()
                .map(|(ticket, _)| {
                    super::record::invoice_ref(&issuer.tax_id, &replace::link(ticket))
                })
                .collect(),
        },
        previous: head.as_ref(),
        system,
        now,
    })
    .build();
    super::record::check(&built, crate::domain::madrid::date(now))?;
    let qr = qr_url(
        &issuer.tax_id,
        &number,
        draft.issue_date,
        &total_text(&built.json),
        caller.mode.is_live(),
    );
    let mut invoice = Invoice {
        id: ids.next(),
        object: "invoice".into(),
        number,
        kind: draft.kind,
        series: Some(numbering.code.to_string()),
        qualified_simplified: draft.qualified_simplified,
        without_recipient_id: draft.without_recipient_id,
        prices_include_vat: draft.prices == Prices::VatIncluded,
        tax: draft.tax,
        cash_accounting,
        status: Status::Issued,
        livemode: caller.mode.is_live(),
        issue_date: draft.issue_date,
        operation_date: draft.operation_date,
        due_date: draft.due_date,
        issuer,
        lines: line_views(&draft.lines, &draft.totals, draft.prices),
        breakdown: group_views(&draft.totals),
        base: Money::from(draft.totals.base),
        vat_amount: Money::from(draft.totals.vat_amount),
        surcharge_amount: Money::from(draft.totals.surcharge_amount),
        irpf_rate: Percent::from(draft.totals.irpf_rate),
        irpf_amount: Money::from(draft.totals.irpf_amount),
        total: Money::from(draft.totals.total),
        currency: "EUR".into(),
        notes: draft.notes,
        payment: draft.payment,
        instalments: draft.instalments,
        payments: Vec::new(),
        payment_status: Default::default(),
        amount_paid: Money::from(Decimal::ZERO),
        amount_due: Money::from(Decimal::ZERO),
        rectifications_total: Money::from(Decimal::ZERO),
        paid_at: None,
        customer: draft.customer,
        customer_id: draft.customer_id,
        rectifies: draft.rectifies,
        rectified_by: Vec::new(),
        replaces: draft
            .replaced
            .iter()
            .map(|(t, _)| replace::link(t))
            .collect::<Vec<InvoiceLink>>(),
        replaced_by: None,
        events: vec![HistoryEvent {
            kind: HistoryKind::Issued,
            at: now,
            detail: None,
        }],
        warnings: draft.warnings,
        verifactu: VerifactuView {
            status: RecordStatus::Pending,
            status_reason,
            answer: None,
            hash: built.hash.clone(),
            previous_hash: head.as_ref().map(|h| h.hash.clone()),
            qr_url: qr,
            record: built.json.clone(),
            cancellation: None,
            cancellation_status: None,
            cancellation_answer: None,
        },
        created_at: now,
    };
    payments::refresh(&mut invoice, madrid::date(now));
    let mut writes = vec![
        ids.advance(None),
        series.advance(Some(draft.issue_date)),
        chosen.check,
        store::insert(caller, &invoice),
    ];
    writes.extend(store::append(
        &chain,
        head.as_ref(),
        &built,
        &store::RecordOwner {
            account: &caller.account_id,
            invoice_id: invoice.id,
            number: &invoice.number,
            issue_date: invoice.issue_date,
            issuer_name: &invoice.issuer.name,
            operation: Operation::Alta,
            simulated_error: draft.simulated_error.as_ref(),
        },
    ));
    writes.extend(owner);
    writes.extend(replace::mark(caller, draft.replaced, &invoice, now));
    writes.extend(due_index::changes(
        &[],
        &invoice,
        caller.mode,
        &caller.account_id,
    ));
    if caller.mode.is_live() {
        let total = draft
            .ledger_groups
            .iter()
            .map(|g| g.base + g.vat_amount + g.surcharge_amount)
            .sum::<Decimal>()
            - draft.ledger_irpf;
        let entry = LedgerEntry {
            invoice_id: invoice.id.to_string(),
            number: invoice.number.clone(),
            kind: invoice.kind,
            tax: invoice.tax,
            issue_date: invoice.issue_date,
            operation_date: invoice.operation_date,
            accrual_date: Some(accrual_of(
                invoice.kind,
                invoice.issue_date,
                invoice.operation_date,
                &draft.ledger_groups,
            )),
            customer_country: invoice.customer.as_ref().map(|c| c.country.clone()),
            cash_accounting: invoice.cash_accounting,
            groups: draft.ledger_groups,
            irpf_rate: invoice.irpf_rate.value(),
            irpf_amount: draft.ledger_irpf,
            total,
        };
        writes.push(ledger::record(&caller.account_id, &entry));
    }
    writes.push(outbox::record(
        &caller.account_id,
        caller.mode,
        EventType::InvoiceIssued,
        event_data(&invoice),
        now,
    ));
    Ok((invoice, writes))
}
