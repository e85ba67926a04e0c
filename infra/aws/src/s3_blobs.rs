//! The S3 engine of the `Blobs` port: objects of the staging bucket, whose
//! lifecycle rule (`template.yaml`) removes what a job or an upload left
//! behind. Presigned PUTs are SigV4 query-signed URLs whose signed headers
//! include `Content-Type` and `Content-Length`, so S3 refuses another type
//! or size.

use std::time::SystemTime;

use async_trait::async_trait;
use aws_sdk_s3::Client;
use aws_sdk_s3::error::{DisplayErrorContext, SdkError};
use aws_sdk_s3::operation::get_object::GetObjectError;
use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{BucketLocationConstraint, CreateBucketConfiguration};
use chrono::{DateTime, Utc};
use shared::ports::blobs::{BlobError, Blobs, PresignedPut, is_valid_key};

pub struct S3Blobs {
    client: Client,
    bucket: String,
}

fn unavailable(err: impl std::error::Error) -> BlobError {
    BlobError::Unavailable(DisplayErrorContext(&err).to_string())
}

fn checked(key: &str) -> Result<&str, BlobError> {
    if is_valid_key(key) {
        Ok(key)
    } else {
        Err(BlobError::InvalidKey(key.to_string()))
    }
}

impl S3Blobs {
    /// The bucket `bucket`, reached through the SDK's standard configuration
    /// (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_S3]`; see
    /// `sdk::require_region`). With an endpoint configured (an
    /// emulator, which has no host name per bucket) requests name the bucket
    /// in the path.
    pub async fn from_env(bucket: &str) -> S3Blobs {
        let shared = crate::sdk::config().await;
        let emulated = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
        let config = aws_sdk_s3::config::Builder::from(&shared)
            .force_path_style(emulated)
            .build();
        S3Blobs::new(Client::from_conf(config), bucket)
    }

    pub fn new(client: Client, bucket: impl Into<String>) -> S3Blobs {
        S3Blobs {
            client,
            bucket: bucket.into(),
        }
    }

    /// Creates the bucket in the client's region (the stack creates it on
    /// AWS; tests and benches on an emulator).
    pub async fn create_bucket(&self) -> Result<(), BlobError> {
        let region = self.client.config().region().map(|r| r.to_string());
        self.client
            .create_bucket()
            .bucket(&self.bucket)
            .create_bucket_configuration(
                CreateBucketConfiguration::builder()
                    .set_location_constraint(
                        region.map(|r| BucketLocationConstraint::from(r.as_str())),
                    )
                    .build(),
            )
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}

#[async_trait]
impl Blobs for S3Blobs {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(checked(key)?)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        let got = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(checked(key)?)
            .send()
            .await;
        let object = match got {
            Ok(object) => object,
            Err(SdkError::ServiceError(e)) if matches!(e.err(), GetObjectError::NoSuchKey(_)) => {
                return Ok(None);
            }
            Err(err) => return Err(unavailable(err)),
        };
        let bytes = object.body.collect().await.map_err(unavailable)?;
        Ok(Some(bytes.to_vec()))
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(checked(key)?)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn presign_put(
        &self,
        key: &str,
        mime: &str,
        size: u64,
        expires: DateTime<Utc>,
    ) -> Result<PresignedPut, BlobError> {
        let key = checked(key)?;
        let now = Utc::now();
        let lifetime = (expires - now)
            .to_std()
            .map_err(|_| BlobError::Unavailable(format!("the expiry {expires} has passed")))?;
        let config = PresigningConfig::builder()
            .start_time(SystemTime::from(now))
            .expires_in(lifetime)
            .build()
            .map_err(unavailable)?;
        let length = i64::try_from(size)
            .map_err(|_| BlobError::Unavailable(format!("{size} bytes is no object size")))?;
        let request = self
            .client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(mime)
            .content_length(length)
            .presigned(config)
            .await
            .map_err(unavailable)?;
        Ok(PresignedPut {
            url: request.uri().to_string(),
            headers: request
                .headers()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
        })
    }
}
