//! Reading and changing job items. A change is an update conditional on the
//! version read (the table offers no other compare-and-set), so of two
//! workers acting on the same reading only one wins.

use super::item::key;
use super::model::Job;
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, UpdateOp, Write};

/// The write that creates a queued job.
pub fn create(job: &Job) -> Write {
    Write::Put {
        item: job.to_item(),
        condition: Some(Condition::Absent),
    }
}

/// The job, unless it does not exist or has expired.
pub async fn load(ports: &Ports, id: &str) -> Result<Option<Job>, TableError> {
    ports
        .table
        .get(&key(id))
        .await?
        .map(|item| Job::from_item(&item))
        .transpose()
}

/// The job after `change`, with its version raised, and the update that
/// makes it so if the stored job is still `before`.
pub fn transition(before: &Job, change: impl FnOnce(&mut Job)) -> (Job, Write) {
    let mut after = before.clone();
    change(&mut after);
    after.version = before.version + 1;
    let (old, new) = (before.to_item().attrs, after.to_item().attrs);
    let mut ops: Vec<UpdateOp> = new
        .iter()
        .filter(|(name, value)| old.get(*name) != Some(value))
        .map(|(name, value)| UpdateOp::Set(name.clone(), value.clone()))
        .collect();
    ops.extend(
        old.keys()
            .filter(|name| !new.contains_key(*name))
            .map(|name| UpdateOp::Remove(name.clone())),
    );
    let write = Write::Update {
        key: key(&before.id),
        ops,
        condition: Some(Condition::equals("version", before.version)),
    };
    (after, write)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::jobs::model::tests::caller;
    use crate::app::jobs::model::{Kind, Status};
    use crate::app::test_ports;

    #[tokio::test]
    async fn a_transition_holds_only_on_the_version_read() {
        let (ports, _dir) = test_ports();
        let job = Job::new(&caller(), Kind::Extract, None, ports.clock.now());
        ports.table.transact(vec![create(&job)]).await.unwrap();
        let (running, first) = transition(&job, |j| {
            j.status = Status::Running;
            j.lease_until = Some(j.created_at);
        });
        let (_, second) = transition(&job, |j| j.status = Status::Failed);
        ports.table.transact(vec![first]).await.unwrap();
        assert!(matches!(
            ports.table.transact(vec![second]).await,
            Err(TableError::ConditionFailed { .. })
        ));
        assert_eq!(load(&ports, &job.id).await.unwrap(), Some(running.clone()));
        let (released, write) = transition(&running, |j| j.lease_until = None);
        ports.table.transact(vec![write]).await.unwrap();
        let stored = load(&ports, &job.id).await.unwrap().unwrap();
        assert_eq!(stored, released);
        assert_eq!(stored.version, 3);
    }
}
