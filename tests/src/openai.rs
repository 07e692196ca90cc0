//! A fake OpenAI-compatible API on 127.0.0.1 for the retrieval tests: `POST /v1/embeddings`
//! and `POST /v1/chat/completions` with the real service's request and response shapes.
//! Embeddings are hashed bags of words (so texts sharing words are close), of a size that can
//! be changed to play a misconfigured endpoint; answers can be delayed or refused.

use crate::serve::Server;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

type ChatFn = dyn Fn(&str) -> String + Send + Sync;

pub struct FakeOpenAi {
    pub base: String,
    pub dims: Arc<AtomicUsize>,
    pub delay_ms: Arc<AtomicU64>,
    /// Answer every request with this HTTP status (0: answer normally).
    pub fail_status: Arc<AtomicU16>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    chat: Arc<Mutex<Box<ChatFn>>>,
    /// Serves while the fake lives; stops when it is dropped.
    _server: Server,
}

/// The fake's vector of a text: words hashed into `dims` buckets, unit length.
pub fn bag_of_words(text: &str, dims: usize) -> Vec<f32> {
    let mut v = vec![0f32; dims];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
    {
        let mut h: u64 = 1469598103934665603;
        for b in w.bytes() {
            h = (h ^ b as u64).wrapping_mul(1099511628211);
        }
        v[(h % dims as u64) as usize] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    } else {
        v[0] = 1.0;
    }
    v
}

impl FakeOpenAi {
    pub fn start(dims: usize) -> FakeOpenAi {
        let dims = Arc::new(AtomicUsize::new(dims));
        let delay: Arc<AtomicU64> = Arc::default();
        let fail: Arc<AtomicU16> = Arc::default();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let chat: Arc<Mutex<Box<ChatFn>>> =
            Arc::new(Mutex::new(Box::new(|_| "I cannot tell.".to_string())));
        let mut server = Server::bind();
        {
            let (dims, delay, fail, seen, chat) = (
                dims.clone(),
                delay.clone(),
                fail.clone(),
                seen.clone(),
                chat.clone(),
            );
            server.serve(4, move |mut req| {
                    let mut raw = String::new();
                    let _ = req.as_reader().read_to_string(&mut raw);
                    let body: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
                    let path = req.url().to_string();
                    let authorization = req
                        .headers()
                        .iter()
                        .find(|h| h.field.equiv("Authorization"))
                        .map(|h| h.value.to_string());
                    seen.lock().unwrap().push(Seen {
                        path: path.clone(),
                        authorization,
                        body: body.clone(),
                    });
                    let wait = delay.load(Ordering::SeqCst);
                    if wait > 0 {
                        thread::sleep(Duration::from_millis(wait));
                    }
                    let status = fail.load(Ordering::SeqCst);
                    let (code, out) = if status != 0 {
                        (
                            status,
                            json!({"error": {"message": "the fake is told to fail", "type": "server_error"}}),
                        )
                    } else if path.ends_with("/embeddings") {
                        let d = dims.load(Ordering::SeqCst);
                        let inputs: Vec<String> = match &body["input"] {
                            Value::String(s) => vec![s.clone()],
                            Value::Array(a) => a
                                .iter()
                                .map(|x| x.as_str().unwrap_or("").to_string())
                                .collect(),
                            _ => vec![],
                        };
                        let data: Vec<Value> = inputs
                            .iter()
                            .enumerate()
                            .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": bag_of_words(t, d)}))
                            .collect();
                        let tokens: usize =
                            inputs.iter().map(|t| t.split_whitespace().count()).sum();
                        (
                            200,
                            json!({"object": "list", "data": data, "model": body["model"],
                                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}),
                        )
                    } else if path.ends_with("/chat/completions") {
                        let user = body["messages"][1]["content"]
                            .as_str()
                            .unwrap_or("")
                            .to_string();
                        let text = (chat.lock().unwrap())(&user);
                        let pt = user.split_whitespace().count();
                        let ct = text.split_whitespace().count();
                        (
                            200,
                            json!({"id": "chatcmpl-fake", "object": "chat.completion", "model": body["model"],
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": text}}],
                                     "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}}),
                        )
                    } else {
                        (
                            404,
                            json!({"error": {"message": format!("no route {path}")}}),
                        )
                    };
                    let resp = tiny_http::Response::from_string(out.to_string())
                        .with_status_code(code)
                        .with_header(
                            "Content-Type: application/json"
                                .parse::<tiny_http::Header>()
                                .unwrap(),
                        );
                    let _ = req.respond(resp);
                });
        }
        FakeOpenAi {
            base: format!("{}/v1", server.base),
            dims,
            delay_ms: delay,
            fail_status: fail,
            seen,
            chat,
            _server: server,
        }
    }

    /// What the chat model answers, given the user message.
    pub fn on_chat(&self, f: impl Fn(&str) -> String + Send + Sync + 'static) {
        *self.chat.lock().unwrap() = Box::new(f);
    }

    pub fn requests(&self, path_suffix: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.path.ends_with(path_suffix))
            .cloned()
            .collect()
    }
}
