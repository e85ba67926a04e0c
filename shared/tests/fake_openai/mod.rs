//! A fake OpenAI-compatible server for tests: an in-process axum server
//! answering `POST /v1/chat/completions` in the chat-completions shape. It
//! refuses a request without the proposal's JSON-schema `response_format`,
//! keeps the last prompt and schema, and answers what it is told
//! (`ai_contract::Reply`).

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use shared::ports::ai_contract::{FakeModel, Reply};

pub struct FakeOpenAi {
    pub url: String,
    state: Arc<Fake>,
}

struct Fake {
    reply: Mutex<Reply>,
    last: Mutex<Option<(String, Value)>>,
    calls: Mutex<usize>,
}

impl FakeOpenAi {
    pub async fn start() -> FakeOpenAi {
        let state = Arc::new(Fake {
            reply: Mutex::new(Reply::Answer(json!({}))),
            last: Mutex::new(None),
            calls: Mutex::new(0),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeOpenAi { url, state }
    }

    /// How many requests it has received.
    pub fn calls(&self) -> usize {
        *self.state.calls.lock().unwrap()
    }
}

impl FakeModel for FakeOpenAi {
    fn reply(&self, reply: Reply) {
        *self.state.reply.lock().unwrap() = reply;
    }

    fn last_request(&self) -> Option<(String, Value)> {
        self.state.last.lock().unwrap().clone()
    }
}

async fn completions(State(fake): State<Arc<Fake>>, Json(request): Json<Value>) -> Response {
    *fake.calls.lock().unwrap() += 1;
    let format = &request["response_format"];
    let prompt = request["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str());
    let (Some(prompt), "json_schema", Some(model)) = (
        prompt,
        format["type"].as_str().unwrap_or_default(),
        request["model"].as_str(),
    ) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": "expected a model, a user message and a json_schema response_format"}})),
        )
            .into_response();
    };
    *fake.last.lock().unwrap() =
        Some((prompt.to_string(), format["json_schema"]["schema"].clone()));
    let reply = fake.reply.lock().unwrap().clone();
    let content = match reply {
        Reply::Answer(answer) => answer.to_string(),
        Reply::Prose(text) => text,
        Reply::Status(status) => {
            let status = StatusCode::from_u16(status).unwrap();
            return (
                status,
                Json(json!({"error": {"message": "failing as told", "code": status.as_u16()}})),
            )
                .into_response();
        }
        Reply::Delay(pause) => {
            tokio::time::sleep(pause).await;
            "{}".to_string()
        }
    };
    Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }))
    .into_response()
}
