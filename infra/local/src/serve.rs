//! `svc serve`: every endpoint group in one process, with the background work
//! of the embedded host: the dispatcher of the feed, the jobs and webhook
//! deliveries workers, the VERI*FACTU submitter, the scheduler timer and the
//! blobs' lifecycle; and the receiver of the uploads' presigned PUTs.
//! And `svc aeat-simulator`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use shared::adapters::webhook_http::HttpWebhookSender;
use shared::app::verifactu::certificates;
use shared::app::{accounts, idempotency, keys};
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::embedded::feed::Feed;
use shared::embedded::file_blobs::{FileBlobs, LIFETIME};
use shared::embedded::{
    aeat_simulator, delivery_worker, dispatcher, job_worker, processes, scheduler, verifactu_worker,
};
use shared::http::{AppState, blob_put, service_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;

/// Prints a line for the person running the server; a closed stdout must not stop it.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

/// On an empty store, creates a demo account with one live and one test key
/// and prints them, so a first run gives a working API at once.
async fn seed_demo(ports: &Ports) -> Result<(), String> {
    if accounts::any(ports).await.map_err(|e| e.to_string())? {
        return Ok(());
    }
    let account = accounts::create(ports, "Demo", Plan::Pro, None)
        .await
        .map_err(|e| e.to_string())?;
    accounts::set_issuer(ports, &account.id, &Issuer::demo())
        .await
        .map_err(|e| e.to_string())?;
    let (_, live) = keys::create(ports, &account.id, Mode::Live)
        .await
        .map_err(|e| e.to_string())?;
    let (_, test) = keys::create(ports, &account.id, Mode::Test)
        .await
        .map_err(|e| e.to_string())?;
    say(&format!(
        "Created demo account {} (plan pro). Its keys, shown only this once:",
        account.id
    ));
    say(&format!("  live key: {}", live.reveal()));
    say(&format!("  test key: {}", test.reveal()));
    Ok(())
}

/// How often the blobs older than their lifetime are removed.
const LIFECYCLE_EVERY: Duration = Duration::from_secs(60 * 60);

/// The staging bucket's lifecycle rule, on the files under the data directory.
async fn blobs_lifecycle(blobs: Arc<FileBlobs>) {
    let mut ticks = tokio::time::interval(LIFECYCLE_EVERY);
    loop {
        ticks.tick().await;
        match blobs.expire(LIFETIME).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "expired blobs removed"),
            Err(e) => tracing::warn!(error = %e, "expired blobs not removed; next round retries"),
        }
    }
}

/// `feed`: the embedded engine's, dispatched in-process, with the blobs
/// under `data`; None on a DynamoDB table, whose stream the `dispatcher`
/// function reads, and which has no blobs here.
pub async fn serve(
    ports: Ports,
    feed: Option<Feed>,
    data: &Path,
    addr: &str,
) -> Result<(), String> {
    let mut config = Config::from_env()?;
    let ports = ports.with_sender(Arc::new(HttpWebhookSender::from_config(&config)));
    let ports = infra_aws::environment::with_verifactu(ports, &config).await;
    let ports = infra_aws::environment::with_mailer(ports, &config).await?;
    certificates::check_key(&ports).await?;
    seed_demo(&ports).await?;
    // Every writer of the embedded file runs on this machine: the keys held
    // by requests of a process that died are free at once.
    if feed.is_some() {
        let released = idempotency::release_orphans(&ports, processes::alive)
            .await
            .map_err(|e| e.to_string())?;
        if released > 0 {
            tracing::info!(
                released,
                "freed the idempotency keys of requests a process that died left running"
            );
        }
    }
    let mut background = vec![
        scheduler::spawn(ports.clone()),
        verifactu_worker::spawn(ports.clone()),
    ];
    // The queues live beside the feed in the embedded file; on a DynamoDB
    // table the AWS functions do this work.
    let blobs = feed.is_some().then(|| Arc::new(FileBlobs::new(data)));
    if let Some(feed) = feed {
        background.push(dispatcher::spawn(ports.clone(), feed));
        background.push(tokio::spawn(job_worker::run(ports.clone())));
        background.push(tokio::spawn(delivery_worker::run(ports.clone())));
        background.push(tokio::spawn(verifactu_worker::on_messages(ports.clone())));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    say(&format!("svc listening on http://{local}"));
    say(&format!(
        "  try: curl -H \"Authorization: Bearer <key>\" http://{local}/api/v1/usage"
    ));
    if config.public_url.is_none() {
        config.public_url = Some(own_origin(local));
        say(&format!(
            "  emailed links point at {}; behind a proxy or on another host, set SVC_PUBLIC_URL",
            own_origin(local)
        ));
    }
    let clock = ports.clock.clone();
    let state = AppState::new(ports, config);
    let mut api = service_router(state.clone());
    if let Some(blobs) = blobs {
        background.push(tokio::spawn(blobs_lifecycle(blobs.clone())));
        api = api.merge(blob_put::router(blobs, clock));
    }
    let app = shared::web::beside(api, state);
    say(&format!("  the application: http://{local}/sign-up"));
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown())
    .await
    .map_err(|e| e.to_string());
    for task in background {
        task.abort();
    }
    served
}

/// The origin of emailed links and upload URLs when `SVC_PUBLIC_URL` is
/// unset: the address bound (port 0 resolved), over plain HTTP; an
/// unspecified address (`0.0.0.0`, `[::]`) is reached at loopback there.
fn own_origin(local: SocketAddr) -> String {
    let ip = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, local.port()))
}

/// `svc aeat-simulator`: the AEAT simulator on `addr` until stopped.
pub async fn aeat_simulator(addr: &str, wait_seconds: u32) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    say(&format!(
        "AEAT simulator listening on http://{local}{}",
        aeat_simulator::AEAT_PATH
    ));
    let app = aeat_simulator::router(Arc::new(SystemClock), wait_seconds);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
        .map_err(|e| e.to_string())
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::own_origin;

    #[test]
    fn the_default_origin_is_the_bound_address_reachable_from_this_machine() {
        for (bound, origin) in [
            ("127.0.0.1:41234", "http://127.0.0.1:41234"),
            ("0.0.0.0:8080", "http://127.0.0.1:8080"),
            ("[::]:8080", "http://[::1]:8080"),
            ("[::1]:3000", "http://[::1]:3000"),
            ("192.0.2.10:80", "http://192.0.2.10:80"),
        ] {
            assert_eq!(own_origin(bound.parse().unwrap()), origin, "{bound}");
        }
    }
}
