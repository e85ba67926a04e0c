//! The admin commands: accounts, plans, keys and issuer details.

use shared::app::{accounts, keys};
use shared::domain::account::{AccountId, Issuer, Mode, Plan};
use shared::ports::Ports;
use shared::tax::nif::Nif;

use crate::cli::{AccountsCommand, IssuerArgs, IssuerCommand, KeysCommand};

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
            let (_, key) = keys::create(ports, &account_id(&account)?, mode)
                .await
                .map_err(|e| e.to_string())?;
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
    let IssuerCommand::Set(args) = command;
    let id = account_id(&args.account)?;
    accounts::set_issuer(ports, &id, &issuer_details(args)?)
        .await
        .map_err(|e| e.to_string())?;
    Ok(String::new())
}

fn issuer_details(args: IssuerArgs) -> Result<Issuer, String> {
    let country = args.country.trim().to_ascii_uppercase();
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "--country {:?}: use a two-letter ISO code such as ES",
            args.country
        ));
    }
    Ok(Issuer {
        name: Some(non_empty("--name", &args.name)?),
        nif: Some(nif(&args.nif)?),
        address: Some(non_empty("--address", &args.address)?),
        postal_code: Some(non_empty("--postal-code", &args.postal_code)?),
        city: Some(non_empty("--city", &args.city)?),
        province: args
            .province
            .map(|p| non_empty("--province", &p))
            .transpose()?,
        country: Some(country),
    })
}
