//! The admin commands: accounts, plans, keys, issuer details and certificates.

use std::io::{BufRead, IsTerminal};

use shared::app::verifactu::certificates;
use shared::app::{accounts, keys};
use shared::domain::account::{AccountId, Issuer, IssuerFields, Mode, Plan};
use shared::ports::Ports;
use shared::tax::nif::Nif;
use shared::verifactu::certificate::CertificateInfo;
use zeroize::Zeroizing;

use crate::cli::{AccountsCommand, CertificateArgs, IssuerArgs, IssuerCommand, KeysCommand};

/// Larger files are not certificates (an FNMT .p12 is a few KB).
const MAX_P12_BYTES: u64 = 1024 * 1024;

fn account_id(raw: &str) -> Result<AccountId, String> {
    raw.parse()
}

fn nif(raw: &str) -> Result<Nif, String> {
    Nif::parse(raw).map_err(|e| format!("--nif {raw:?}: {e}"))
}

fn non_empty(flag: &str, value: &str) -> Result<String, String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(format!("{flag} must not be empty"));
    }
    Ok(trimmed.to_string())
}

pub async fn accounts(ports: &Ports, command: AccountsCommand) -> Result<String, String> {
    match command {
        AccountsCommand::Create {
            name,
            plan,
            nif: raw,
        } => {
            let plan: Plan = plan.parse()?;
            let nif = raw.as_deref().map(nif).transpose()?;
            let account = accounts::create(ports, &non_empty("--name", &name)?, plan, nif)
                .await
                .map_err(|e| e.to_string())?;
            Ok(account.id.to_string())
        }
        AccountsCommand::SetPlan {
            account_id: id,
            plan,
        } => {
            let id = account_id(&id)?;
            accounts::set_plan(ports, &id, plan.parse()?)
                .await
                .map_err(|e| e.to_string())?;
            Ok(String::new())
        }
    }
}

pub async fn keys(ports: &Ports, command: KeysCommand) -> Result<String, String> {
    match command {
        KeysCommand::Create { account, mode } => {
            let mode: Mode = mode.parse()?;
            let (key_id, key) = keys::create(ports, &account_id(&account)?, mode)
                .await
                .map_err(|e| e.to_string())?;
            eprintln!("key id: {key_id} (`svc keys revoke {key_id}` revokes it)");
            Ok(key.reveal())
        }
        KeysCommand::Revoke { key_id } => {
            keys::revoke(ports, &key_id)
                .await
                .map_err(|e| e.to_string())?;
            Ok(String::new())
        }
    }
}

pub async fn issuer(ports: &Ports, command: IssuerCommand) -> Result<String, String> {
    match command {
        IssuerCommand::Set(args) => {
            let id = account_id(&args.account)?;
            accounts::set_issuer(ports, &id, &issuer_details(args)?)
                .await
                .map_err(|e| e.to_string())?;
            Ok(String::new())
        }
        IssuerCommand::Certificate(args) => certificate(ports, args).await,
        IssuerCommand::PaymentTerms { account, days } => {
            let id = account_id(&account)?;
            let days = shared::domain::account::payment_terms(days)?;
            accounts::set_payment_terms(ports, &id, days)
                .await
                .map_err(|e| e.to_string())?;
            Ok(String::new())
        }
        IssuerCommand::SimplifiedLimit { account, euros } => {
            let id = account_id(&account)?;
            let limit = shared::domain::account::simplified_limit(euros)?;
            accounts::set_simplified_limit(ports, &id, limit)
                .await
                .map_err(|e| e.to_string())?;
            Ok(String::new())
        }
    }
}

async fn certificate(ports: &Ports, args: CertificateArgs) -> Result<String, String> {
    let id = account_id(&args.account)?;
    let Some(path) = args.p12 else {
        return if certificates::remove(ports, &id)
            .await
            .map_err(|e| e.to_string())?
        {
            Ok(format!("Certificate of {id} removed."))
        } else {
            Err(format!("{id} has no certificate stored"))
        };
    };
    let shown = path.display();
    let size = std::fs::metadata(&path)
        .map_err(|e| format!("--p12 {shown}: {e}"))?
        .len();
    if size > MAX_P12_BYTES {
        return Err(format!(
            "--p12 {shown}: {size} bytes is too large for a certificate file"
        ));
    }
    let p12 = std::fs::read(&path).map_err(|e| format!("--p12 {shown}: {e}"))?;
    let password = password(args.password_env.as_deref())?;
    let info = certificates::import(ports, &id, &p12, &password)
        .await
        .map_err(|e| format!("--p12 {shown}: {e}"))?;
    let issuer_nif = accounts::get(ports, &id)
        .await
        .map_err(|e| e.to_string())?
        .issuer
        .nif
        .map(|n| n.to_string());
    Ok(describe(&id, &info, issuer_nif.as_deref()))
}

/// The password from the variable `env`, else one line of standard input
/// (asked for without echo on a terminal).
fn password(env: Option<&str>) -> Result<Zeroizing<String>, String> {
    if let Some(var) = env {
        return std::env::var(var)
            .map(Zeroizing::new)
            .map_err(|_| format!("--password-env {var}: the variable is not set"));
    }
    if std::io::stdin().is_terminal() {
        return rpassword::prompt_password("PKCS#12 password: ")
            .map(Zeroizing::new)
            .map_err(|e| format!("reading the password: {e}"));
    }
    let mut line = Zeroizing::new(String::new());
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("reading the password from standard input: {e}"))?;
    let trimmed = line.trim_end_matches(['\r', '\n']).len();
    line.truncate(trimmed);
    Ok(line)
}

fn describe(account: &AccountId, info: &CertificateInfo, issuer_nif: Option<&str>) -> String {
    let nif = info.nif.as_deref().unwrap_or("none found");
    let mut out = format!(
        "Certificate stored for {account}, sealed.\n  holder:      {}\n  NIF:         {nif}\n  issued by:   {}\n  valid until: {}\n  sha-256:     {}",
        info.holder,
        info.issuer,
        info.not_after.date_naive(),
        info.fingerprint
    );
    if let Some(note) = certificates::nif_note(info, issuer_nif) {
        out.push_str(&format!("\nNote: {note}"));
    }
    out
}

fn issuer_details(args: IssuerArgs) -> Result<Issuer, String> {
    let typed = IssuerFields {
        name: &args.name,
        nif: &args.nif,
        address: &args.address,
        postal_code: &args.postal_code,
        city: &args.city,
        province: args.province.as_deref().unwrap_or_default(),
        country: &args.country,
    };
    Issuer::parse(&typed).map_err(|problems| {
        let (field, problem) = &problems[0];
        let value = match *field {
            "name" => &args.name,
            "nif" => &args.nif,
            "address" => &args.address,
            "postal_code" => &args.postal_code,
            "city" => &args.city,
            _ => &args.country,
        };
        format!("--{} {value:?}: {problem}", field.replace('_', "-"))
    })
}
