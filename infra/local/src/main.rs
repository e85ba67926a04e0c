//! `svc`: the service on the embedded engine (or a DynamoDB table), plus the
//! admin commands of the application side. Output is plain: ids and keys alone
//! on stdout, errors on stderr with a non-zero exit.

mod admin;
mod cli;
mod serve;

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use shared::embedded::SqliteTable;
use shared::embedded::feed::Feed;
use shared::ports::clock::SystemClock;
use shared::ports::{Clock, Ports};

use cli::{Cli, Command, TableCommand};

// A request allocates and frees many small buffers across threads (a
// request's task, the SQLite writer, the checkpointer); glibc's allocator
// took about a tenth of the server's time issuing invoices.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc asks for transparent huge pages on its arena, so the first touch
/// of fresh memory zeroes a whole 2 MiB page: in the sandboxed child that
/// reads each upload, and in the server once the allocator has given freed
/// request buffers back. That was about half the time of reading a large PDF
/// (a 1.3 MB electricity bill through HTTP: 35–115 ms with them, 21–43 ms
/// without). The process takes 4 KiB pages, as mimalloc's own `allow_thp=0`
/// would do before its first allocation (too early to set from here).
fn small_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and only sets a flag
    // of this process (inherited by its children).
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

/// The ports on the embedded engine in `data` (items and queues in svc.db,
/// blobs under blobs/), or on the DynamoDB table `table` without queues or
/// blobs.
async fn ports(data: &Path, table: Option<&str>) -> Result<Ports, String> {
    Ok(host(data, table).await?.0)
}

/// The ports, and the feed of the embedded engine when it is the store.
async fn host(data: &Path, table: Option<&str>) -> Result<(Ports, Option<Feed>), String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    if let Some(name) = table {
        infra_aws::sdk::require_region().await?;
        let table = infra_aws::DynamoTable::from_env(name, clock.clone()).await;
        return Ok((shared::adapters::ports(Arc::new(table), clock), None));
    }
    let path = data.join("svc.db");
    let table =
        SqliteTable::open(&path, clock.clone()).map_err(|e| format!("{}: {e}", path.display()))?;
    let feed = table.feed();
    let ports = infra_aws::environment::with_embedded_queues_and_blobs(
        shared::adapters::ports(Arc::new(table), clock),
        data,
    )?;
    Ok((ports, Some(feed)))
}

async fn run(cli: Cli) -> Result<String, String> {
    let Cli {
        data,
        table,
        command,
    } = cli;
    let table = table.as_deref();
    match command {
        Command::Openapi => serde_json::to_string_pretty(&shared::http::openapi::document())
            .map_err(|e| e.to_string()),
        Command::Table(TableCommand::Create) => {
            let name = table.ok_or("`svc table create` needs --table NAME")?;
            infra_aws::sdk::require_region().await?;
            let dynamo = infra_aws::DynamoTable::from_env(name, Arc::new(SystemClock)).await;
            dynamo.create_table().await.map_err(|e| e.to_string())?;
            Ok(String::new())
        }
        Command::Serve { addr } => {
            let (ports, feed) = host(&data, table).await?;
            let ports = ports.with_ocr(infra_aws::environment::ocr_from_env().await?);
            let config = shared::config::Config::from_env()?;
            let ports = infra_aws::environment::with_ai(ports, &config).await?;
            serve::serve(ports, feed, &data, &addr)
                .await
                .map(|()| String::new())
        }
        Command::AeatSimulator { addr, wait_seconds } => serve::aeat_simulator(&addr, wait_seconds)
            .await
            .map(|()| String::new()),
        Command::Accounts(c) => admin::accounts(&ports(&data, table).await?, c).await,
        Command::Keys(c) => admin::keys(&ports(&data, table).await?, c).await,
        Command::Issuer(c) => {
            let config = shared::config::Config::from_env()?;
            let ports =
                infra_aws::environment::with_secrets(ports(&data, table).await?, &config).await;
            admin::issuer(&ports, c).await
        }
        Command::SecretsKey => Ok(shared::secrets_key::SecretsKey::generate()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    small_pages();
    shared::http::observe::init_logging();
    match run(Cli::parse()).await {
        Ok(out) => {
            if !out.is_empty() {
                println!("{out}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("svc: {e}");
            ExitCode::FAILURE
        }
    }
}
