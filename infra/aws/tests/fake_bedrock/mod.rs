//! A fake Bedrock Runtime endpoint for tests: an in-process axum server
//! answering `POST /model/{modelId}/converse` in the Converse REST shape. It
//! refuses a request without the forced tool and its JSON schema, keeps the
//! last prompt and schema, and answers what it is told
//! (`ai_contract::Reply`), errors with Bedrock's error types.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use shared::ports::ai_contract::{FakeModel, Reply};

pub struct FakeBedrock {
    pub url: String,
    state: Arc<Fake>,
}

struct Fake {
    reply: Mutex<Reply>,
    last: Mutex<Option<(String, Value)>>,
    models: Mutex<Vec<String>>,
}

impl FakeBedrock {
    pub async fn start() -> FakeBedrock {
        let state = Arc::new(Fake {
            reply: Mutex::new(Reply::Answer(json!({}))),
            last: Mutex::new(None),
            models: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/model/{model}/converse", post(converse))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeBedrock { url, state }
    }

    /// The model ids of the requests received.
    pub fn models(&self) -> Vec<String> {
        self.state.models.lock().unwrap().clone()
    }
}

impl FakeModel for FakeBedrock {
    fn reply(&self, reply: Reply) {
        *self.state.reply.lock().unwrap() = reply;
    }

    fn last_request(&self) -> Option<(String, Value)> {
        self.state.last.lock().unwrap().clone()
    }
}

fn error(status: StatusCode, error_type: &str) -> Response {
    (
        status,
        [("x-amzn-errortype", error_type)],
        Json(json!({"message": "failing as told"})),
    )
        .into_response()
}

async fn converse(
    State(fake): State<Arc<Fake>>,
    Path(model): Path<String>,
    Json(request): Json<Value>,
) -> Response {
    fake.models.lock().unwrap().push(model);
    let tool = &request["toolConfig"];
    let spec = &tool["tools"][0]["toolSpec"];
    let prompt = request["messages"][0]["content"][0]["text"].as_str();
    let forced = tool["toolChoice"]["tool"]["name"] == spec["name"];
    let (Some(prompt), true, Some(schema)) = (prompt, forced, spec["inputSchema"].get("json"))
    else {
        return error(StatusCode::BAD_REQUEST, "ValidationException");
    };
    *fake.last.lock().unwrap() = Some((prompt.to_string(), schema.clone()));
    let reply = fake.reply.lock().unwrap().clone();
    let (content, stop) = match reply {
        Reply::Answer(input) => (
            json!({"toolUse": {"toolUseId": "tooluse_1", "name": spec["name"], "input": input}}),
            "tool_use",
        ),
        Reply::Prose(text) => (json!({"text": text}), "end_turn"),
        Reply::Status(status) => {
            let error_type = match status {
                400 => "ValidationException",
                401 | 403 => "AccessDeniedException",
                429 => "ThrottlingException",
                503 => "ServiceUnavailableException",
                _ => "InternalServerException",
            };
            return error(StatusCode::from_u16(status).unwrap(), error_type);
        }
        Reply::Delay(pause) => {
            tokio::time::sleep(pause).await;
            (json!({"text": "late"}), "end_turn")
        }
    };
    Json(json!({
        "output": {"message": {"role": "assistant", "content": [content]}},
        "stopReason": stop,
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }))
    .into_response()
}
