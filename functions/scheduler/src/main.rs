//! The scheduled work as a Lambda function, triggered by an EventBridge
//! schedule (its event carries nothing the work needs): the fiscal deadline
//! reminders due now, the `invoice.overdue` events of instalments that fell
//! overdue, then the issuers' certificates' days to expiry as a metric.

use lambda_runtime::{LambdaEvent, service_fn};
use serde_json::{Value, json};
use shared::app::fiscal_deadlines;
use shared::app::invoices::overdue;
use shared::app::verifactu::certificates;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    shared::http::observe::init_logging();
    let ports = infra_aws::environment::ports().await?;
    lambda_runtime::run(service_fn(move |_: LambdaEvent<Value>| {
        let ports = ports.clone();
        async move {
            let sent = fiscal_deadlines::run(&ports, ports.clock.now()).await?;
            let overdue = overdue::run(&ports, ports.clock.now()).await?;
            if let Err(e) = certificates::report_expiry(&ports).await {
                tracing::warn!(error = %e, "the certificates' expiry was not measured");
            }
            Ok::<_, lambda_runtime::Error>(
                json!({ "fiscal_deadline_reminders": sent, "overdue_instalments": overdue }),
            )
        }
    }))
    .await
}
