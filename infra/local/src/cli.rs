//! The command line of `svc`: the server and the admin commands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "svc",
    version,
    about = "Invoicing, analysis and tax-tools API: server and admin commands"
)]
pub struct Cli {
    /// Directory of the embedded engine's database (svc.db: items and queues)
    /// and of its blobs (blobs/).
    #[arg(long, global = true, env = "SVC_DATA_DIR", default_value = "./data")]
    pub data: PathBuf,
    /// Use this DynamoDB table instead of the embedded engine (endpoint and
    /// credentials from the AWS SDK's standard environment variables).
    #[arg(long, global = true, env = "SVC_TABLE")]
    pub table: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve every endpoint group on one address.
    Serve {
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
    },
    /// Accounts and their plans.
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// The issuer details printed on an account's invoices.
    #[command(subcommand)]
    Issuer(IssuerCommand),
    /// The DynamoDB table (with --table).
    #[command(subcommand)]
    Table(TableCommand),
    /// Print the OpenAPI document.
    Openapi,
    /// Print a new random key for SVC_SECRETS_KEY (it seals the issuers'
    /// certificates on the embedded engine; keep it as safe as the data).
    SecretsKey,
    /// A local stand-in for the AEAT's VERI*FACTU service: SOAP at the AEAT's
    /// path, checking chains and fingerprints, with a control API under
    /// /simulator/ to inject record errors, faults and timeouts.
    AeatSimulator {
        #[arg(long, default_value = "127.0.0.1:8089")]
        addr: String,
        /// The TiempoEsperaEnvio it asks for, in seconds.
        #[arg(long, default_value_t = shared::verifactu::simulator::DEFAULT_WAIT_SECONDS)]
        wait_seconds: u32,
    },
}

#[derive(Subcommand)]
pub enum AccountsCommand {
    /// Create an account; prints its id.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_parser = ["mini", "pro", "max"])]
        plan: String,
        /// The issuer's tax id (NIF/NIE/CIF).
        #[arg(long)]
        nif: Option<String>,
    },
    /// Change an account's plan.
    SetPlan {
        account_id: String,
        #[arg(value_parser = ["mini", "pro", "max"])]
        plan: String,
    },
}

#[derive(Subcommand)]
pub enum KeysCommand {
    /// Create a key; prints the key, which is shown only this once (and its
    /// id, for `keys revoke`, on standard error).
    Create {
        #[arg(long)]
        account: String,
        #[arg(long, value_parser = ["live", "test"])]
        mode: String,
    },
    /// Revoke a key by its id (key_…).
    Revoke { key_id: String },
}

#[derive(Subcommand)]
pub enum IssuerCommand {
    /// Set the issuer details of an account.
    Set(IssuerArgs),
    /// Store (or with --remove, delete) the certificate an account's live
    /// VERI*FACTU records are sent with: the issuer's or its representative's,
    /// a PKCS#12 file (.p12/.pfx). Its password is read from the variable
    /// --password-env names, or else from standard input (never an argument).
    /// Stored sealed with SVC_SECRETS_KEY (or SVC_KMS_KEY_ID with --table).
    Certificate(CertificateArgs),
    /// Set the days from issue to the default due date of an account's
    /// invoices: 0 to 60 (Ley 3/2004 art. 4.3); 30 until set (art. 4.1).
    PaymentTerms {
        #[arg(long)]
        account: String,
        #[arg(long)]
        days: i64,
    },
    /// Set the most a simplified invoice (ticket) of an account may amount
    /// to, VAT included: 400 € (RD 1619/2012 art. 4.1; the default) or 3000 €
    /// when the account carries on an activity art. 4.2 lists (retail,
    /// restaurants and cafés, hospitality, …).
    SimplifiedLimit {
        #[arg(long)]
        account: String,
        #[arg(long)]
        euros: i64,
    },
}

#[derive(Args)]
pub struct CertificateArgs {
    #[arg(long)]
    pub account: String,
    /// The PKCS#12 file.
    #[arg(long, value_name = "FILE", required_unless_present = "remove")]
    pub p12: Option<PathBuf>,
    /// The environment variable holding the file's password.
    #[arg(long, value_name = "VAR", conflicts_with = "remove")]
    pub password_env: Option<String>,
    /// Delete the account's certificate instead.
    #[arg(long, conflicts_with = "p12")]
    pub remove: bool,
}

#[derive(Args)]
pub struct IssuerArgs {
    #[arg(long)]
    pub account: String,
    #[arg(long)]
    pub name: String,
    #[arg(long)]
    pub nif: String,
    #[arg(long)]
    pub address: String,
    #[arg(long)]
    pub postal_code: String,
    #[arg(long)]
    pub city: String,
    #[arg(long)]
    pub province: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[arg(long, default_value = "ES")]
    pub country: String,
}

#[derive(Subcommand)]
pub enum TableCommand {
    /// Create the DynamoDB table (as template.yaml declares it) if absent.
    Create,
}
