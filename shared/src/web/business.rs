//! Business: the issuer details printed on the account's invoices (name,
//! NIF checked by the tax engine, address, province, country), and the
//! VERI*FACTU certificate: upload a `.p12`/`.pfx` with its password (the
//! checks and messages of `svc issuer certificate`), see its holder, NIF,
//! authority and expiry, remove it. The certificate is the owner's.

use std::collections::HashMap;

use axum::extract::{Multipart, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, html};
use zeroize::Zeroizing;

use crate::app::accounts::{self, AccountError};
use crate::app::verifactu::certificates;
use crate::domain::account::{Account, Issuer, IssuerFields};
use crate::domain::lang::Lang;
use crate::http::AppState;
use crate::verifactu::certificate::CertificateInfo;

use super::form::Submitted;
use super::page::{self, Errors, Field, csrf_field, see_other};
use super::visit::{SignedIn, Visit};

/// Larger files are not certificates (an FNMT .p12 is a few KB), as the CLI says.
const MAX_P12_BYTES: usize = 1024 * 1024;

/// The form's values: as stored, or as typed when the form came back.
struct Values {
    name: String,
    nif: String,
    address: String,
    postal_code: String,
    city: String,
    province: String,
    country: String,
    /// Opted into the cash-accounting regime (`Account::cash_accounting`).
    cash_accounting: bool,
}

impl Values {
    fn stored(issuer: &Issuer, cash_accounting: bool) -> Self {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        Values {
            name: text(&issuer.name),
            nif: issuer
                .nif
                .as_ref()
                .map(|n| n.to_string())
                .unwrap_or_default(),
            address: text(&issuer.address),
            postal_code: text(&issuer.postal_code),
            city: text(&issuer.city),
            province: text(&issuer.province),
            country: issuer.country.clone().unwrap_or_else(|| "ES".into()),
            cash_accounting,
        }
    }

    fn typed(form: &Submitted) -> Self {
        let text = |name: &str| form.text(name).to_string();
        Values {
            name: text("name"),
            nif: text("nif"),
            address: text("address"),
            postal_code: text("postal_code"),
            city: text("city"),
            province: text("province"),
            country: text("country"),
            cash_accounting: form.text("cash_accounting") == "yes",
        }
    }
}

/// The message of a field's problem in the page's language.
fn field_problem(lang: Lang, field: &str, problem: &str) -> String {
    match field {
        "nif" => format!("{}: {problem}", lang.pick("NIF no válido", "Invalid NIF")),
        "country" => lang
            .pick(
                "Usa el código de dos letras (ES).",
                "Use the two-letter code (ES).",
            )
            .into(),
        _ => lang
            .pick("Este campo es obligatorio.", "This field is required.")
            .into(),
    }
}

fn certificate_section(
    visit: &Visit,
    info: Option<&CertificateInfo>,
    issuer_nif: Option<&str>,
    message: Option<&str>,
    error: Option<&str>,
) -> Markup {
    let lang = visit.lang;
    let owner = visit
        .signed_in()
        .is_some_and(|s| s.person.role.manages_account());
    html! {
        section aria-labelledby="certificate" {
            h2 id="certificate" { (lang.pick("Certificado VERI*FACTU", "VERI*FACTU certificate")) }
            @if let Some(message) = message { p role="status" class="notice" { (message) } }
            @match info {
                Some(info) => {
                    table { tbody {
                        tr { th scope="row" { (lang.pick("Titular", "Holder")) } td { (info.holder) } }
                        tr { th scope="row" { "NIF" } td { (info.nif.as_deref().unwrap_or("—")) } }
                        tr { th scope="row" { (lang.pick("Emitido por", "Issued by")) } td { (info.issuer) } }
                        tr { th scope="row" { (lang.pick("Válido hasta", "Valid until")) } td { (info.not_after.date_naive()) } }
                    } }
                    @if let Some(note) = certificates::nif_note(info, issuer_nif) {
                        p class="notice" { (lang.pick("Aviso: ", "Note: ")) (note) }
                    }
                    @if owner {
                        form method="post" action="/business/certificate/remove" {
                            (csrf_field(visit))
                            label { input type="checkbox" name="confirm" value="yes" required; (lang.pick(" Confirmo", " I confirm")) }
                            button type="submit" class="secondary" { (lang.pick("Quitar el certificado", "Remove the certificate")) }
                        }
                    }
                }
                None => p { (lang.pick("No hay certificado: las facturas reales quedan pendientes de envío a la AEAT.", "No certificate: live invoices stay pending for the AEAT.")) },
            }
            @if owner {
                form method="post" action="/business/certificate" enctype="multipart/form-data" {
                    (csrf_field(visit))
                    label for="p12" {
                        (lang.pick("Archivo del certificado (.p12 o .pfx)", "Certificate file (.p12 or .pfx)"))
                        input id="p12" name="p12" type="file" accept=".p12,.pfx,application/x-pkcs12" required
                            aria-invalid=[error.map(|_| "true")] aria-describedby=[error.map(|_| "p12-error")];
                        @if let Some(error) = error { small id="p12-error" class="error" { (error) } }
                    }
                    label for="p12-password" {
                        (lang.pick("Contraseña del certificado", "Certificate password"))
                        input id="p12-password" name="password" type="password" autocomplete="off";
                    }
                    button type="submit" { (lang.pick("Subir el certificado", "Upload the certificate")) }
                }
            } @else {
                p { (lang.pick("El certificado lo gestiona la persona propietaria de la cuenta.", "The account's owner manages the certificate.")) }
            }
        }
    }
}

struct Shown<'a> {
    values: Values,
    errors: Errors,
    status: StatusCode,
    saved: bool,
    certificate_message: Option<&'a str>,
    certificate_error: Option<&'a str>,
}

async fn show(state: &AppState, visit: &Visit, account: &Account, shown: Shown<'_>) -> Response {
    let lang = visit.lang;
    let info = match certificates::info(&state.ports, &account.id).await {
        Ok(info) => info,
        Err(e) => return page::failure(lang, &e),
    };
    let issuer_nif = account.issuer.nif.as_ref().map(|n| n.to_string());
    let v = &shown.values;
    let e = &shown.errors;
    page::respond(
        visit,
        shown.status,
        lang.pick("Tu negocio", "Your business"),
        html! {
            @if shown.saved { p role="status" class="notice" { (lang.pick("Datos guardados.", "Details saved.")) } }
            section aria-labelledby="issuer" {
                h2 id="issuer" { (lang.pick("Datos del emisor", "Issuer details")) }
                p { (lang.pick("Aparecen en cada factura que emites.", "They appear on every invoice you issue.")) " "
                a href="/business/series" { (lang.pick("Series de numeración", "Numbering series")) } }
                form method="post" action="/business" novalidate {
                    (csrf_field(visit))
                    (Field { label: lang.pick("Nombre o razón social", "Name or company name"), name: "name", kind: "text", value: &v.name, autocomplete: "organization", error: e.get("name") }.render())
                    (Field { label: "NIF", name: "nif", kind: "text", value: &v.nif, autocomplete: "off", error: e.get("nif") }.render())
                    (Field { label: lang.pick("Dirección", "Address"), name: "address", kind: "text", value: &v.address, autocomplete: "street-address", error: e.get("address") }.render())
                    (Field { label: lang.pick("Código postal", "Postal code"), name: "postal_code", kind: "text", value: &v.postal_code, autocomplete: "postal-code", error: e.get("postal_code") }.render())
                    (Field { label: lang.pick("Municipio", "City"), name: "city", kind: "text", value: &v.city, autocomplete: "address-level2", error: e.get("city") }.render())
                    label for="province" {
                        (lang.pick("Provincia (opcional)", "Province (optional)"))
                        input id="province" name="province" type="text" value=(v.province) autocomplete="address-level1";
                    }
                    (Field { label: lang.pick("País (código ISO)", "Country (ISO code)"), name: "country", kind: "text", value: &v.country, autocomplete: "country", error: e.get("country") }.render())
                    label for="cash_accounting" {
                        input id="cash_accounting" name="cash_accounting" type="checkbox" value="yes" checked[v.cash_accounting];
                        " " (lang.pick(
                            "Régimen especial del criterio de caja (art. 163 decies LIVA): el IVA de tus facturas se devenga al cobrarlas, o el 31 de diciembre del año siguiente. Para un volumen de operaciones de hasta 2.000.000 €; la opción se ejerce en la declaración censal (modelo 036/037).",
                            "Cash-accounting regime (art. 163 decies LIVA): the VAT of your invoices accrues when they are paid, or on 31 December of the next year. For a volume of operations up to 2,000,000 €; the option is made in the census declaration (Modelo 036/037).",
                        ))
                    }
                    button type="submit" { (lang.pick("Guardar", "Save")) }
                }
            }
            (certificate_section(visit, info.as_ref(), issuer_nif.as_deref(), shown.certificate_message, shown.certificate_error))
        },
    )
}

fn shown(values: Values) -> Shown<'static> {
    Shown {
        values,
        errors: Errors::default(),
        status: StatusCode::OK,
        saved: false,
        certificate_message: None,
        certificate_error: None,
    }
}

async fn account(state: &AppState, visit: &Visit) -> Result<Account, Response> {
    let Some(session) = visit.signed_in() else {
        return Err(page::not_found(visit));
    };
    accounts::get(&state.ports, &session.person.account_id)
        .await
        .map_err(|e| page::failure(visit.lang, &e))
}

/// The page; `?saved=1` after a save says so.
pub async fn view(
    State(state): State<AppState>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let account = match account(&state, &visit).await {
        Ok(account) => account,
        Err(response) => return response,
    };
    let saved = query.contains_key("saved");
    show(
        &state,
        &visit,
        &account,
        Shown {
            saved,
            ..shown(Values::stored(&account.issuer, account.cash_accounting))
        },
    )
    .await
}

pub async fn save(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let account = match account(&state, visit).await {
        Ok(account) => account,
        Err(response) => return response,
    };
    let values = Values::typed(&form);
    let typed = IssuerFields {
        name: &values.name,
        nif: &values.nif,
        address: &values.address,
        postal_code: &values.postal_code,
        city: &values.city,
        province: &values.province,
        country: &values.country,
    };
    let mut errors = Errors::default();
    match Issuer::parse(&typed) {
        Ok(issuer) => match save_details(&state, &account, &issuer, values.cash_accounting).await {
            Ok(()) => return see_other(visit, "/business?saved=1", Vec::new()),
            Err(AccountError::NifTaken(_)) => errors.add(
                "nif",
                lang.pick(
                    "Otra cuenta ya emite con este NIF.",
                    "Another account already issues with this NIF.",
                ),
            ),
            Err(e) => return page::failure(lang, &e),
        },
        Err(problems) => {
            for (field, problem) in problems {
                errors.add(field, field_problem(lang, field, &problem));
            }
        }
    }
    let shown = Shown {
        errors,
        status: StatusCode::UNPROCESSABLE_ENTITY,
        ..shown(values)
    };
    show(&state, visit, &account, shown).await
}

/// The issuer details, then the regime when it changed.
async fn save_details(
    state: &AppState,
    account: &Account,
    issuer: &Issuer,
    cash_accounting: bool,
) -> Result<(), AccountError> {
    accounts::set_issuer(&state.ports, &account.id, issuer).await?;
    if cash_accounting != account.cash_accounting {
        accounts::set_cash_accounting(&state.ports, &account.id, cash_accounting).await?;
    }
    Ok(())
}

/// The upload: a multipart form with its CSRF token, the file and its password.
pub async fn upload(
    State(state): State<AppState>,
    visit: Visit,
    mut multipart: Multipart,
) -> Response {
    let lang = visit.lang;
    let Some(session) = visit
        .signed_in()
        .filter(|s| s.person.role.manages_account())
    else {
        return page::not_found(&visit);
    };
    let account_id = session.person.account_id.clone();
    let (mut token, mut p12, mut password) =
        (String::new(), Vec::new(), Zeroizing::new(String::new()));
    let mut too_large = false;
    loop {
        match multipart.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or_default().to_string();
                let Ok(bytes) = field.bytes().await else {
                    too_large = true;
                    break;
                };
                match name.as_str() {
                    "_csrf" => token = String::from_utf8_lossy(&bytes).into_owned(),
                    "password" => *password = String::from_utf8_lossy(&bytes).into_owned(),
                    "p12" if bytes.len() > MAX_P12_BYTES => too_large = true,
                    "p12" => p12 = bytes.to_vec(),
                    _ => {}
                }
            }
            Ok(None) => break,
            Err(_) => {
                too_large = true;
                break;
            }
        }
    }
    if !visit.csrf_matches(&token) {
        return page::forbidden(&visit);
    }
    let account = match accounts::get(&state.ports, &account_id).await {
        Ok(account) => account,
        Err(e) => return page::failure(lang, &e),
    };
    let problem = if too_large {
        Some(
            lang.pick(
                "El archivo es demasiado grande para ser un certificado.",
                "The file is too large for a certificate file.",
            )
            .to_string(),
        )
    } else if p12.is_empty() {
        Some(
            lang.pick(
                "Elige el archivo del certificado.",
                "Choose the certificate file.",
            )
            .to_string(),
        )
    } else {
        match certificates::import(&state.ports, &account_id, &p12, &password).await {
            Ok(_) => None,
            Err(certificates::ImportError::Certificate(e)) => Some(e.to_string()),
            Err(certificates::ImportError::NoSecrets) => {
                Some(certificates::ImportError::NoSecrets.to_string())
            }
            Err(e) => return page::failure(lang, &e),
        }
    };
    let values = Values::stored(&account.issuer, account.cash_accounting);
    match problem {
        None => {
            let message = lang.pick(
                "Certificado guardado, sellado.",
                "Certificate stored, sealed.",
            );
            show(
                &state,
                &visit,
                &account,
                Shown {
                    certificate_message: Some(message),
                    ..shown(values)
                },
            )
            .await
        }
        Some(error) => {
            let shown = Shown {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                certificate_error: Some(&error),
                ..shown(values)
            };
            show(&state, &visit, &account, shown).await
        }
    }
}

pub async fn remove(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let Some(session) = visit
        .signed_in()
        .filter(|s| s.person.role.manages_account())
    else {
        return page::not_found(visit);
    };
    if form.text("confirm") != "yes" {
        return see_other(visit, "/business", Vec::new());
    }
    match certificates::remove(&state.ports, &session.person.account_id).await {
        Ok(_) => see_other(visit, "/business", Vec::new()),
        Err(e) => page::failure(visit.lang, &e),
    }
}
