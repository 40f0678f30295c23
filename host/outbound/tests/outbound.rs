//! The tests of hive-mind-outbound, in one binary: LLM wire formats,
//! retries, concurrency and configuration; the guarded fetch's rules and
//! address classification. No network: every server is a scripted loopback
//! server (`support::TestServer`), and every address a test expects to be
//! refused is refused before any connection is made.

// Test code: helpers outside `#[test]` functions may unwrap and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use hive_mind_outbound::llm::{
    ApiKey, CompletionRequest, LanguageModel, LlmClient, LlmConfig, LlmError, ModelTier,
    ProviderKind, RetryPolicy,
};
use serde_json::{Value, json};
use support::{Reply, TestServer};

const KEY: &str = "sk-test-key-0123456789";

/// A config for `provider` pointed at `server`, with a key, fast retries.
fn config_for(provider: ProviderKind, server: &TestServer) -> LlmConfig {
    let mut config = LlmConfig::for_provider(provider);
    config.base_url = match provider {
        ProviderKind::Openai => format!("{}/v1", server.url()),
        _ => server.url(),
    };
    config.api_key = Some(ApiKey::new(KEY));
    config.fast_model = "fast-model".into();
    config.capable_model = "capable-model".into();
    config.timeout = Duration::from_secs(5);
    config.retry = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(60),
    };
    config
}

fn client(config: &LlmConfig) -> LlmClient {
    LlmClient::new(config).expect("a configured client")
}

fn ask(tier: ModelTier, system: &str, prompt: &str, json: bool) -> CompletionRequest {
    CompletionRequest {
        tier,
        system: system.into(),
        prompt: prompt.into(),
        max_tokens: 256,
        json,
    }
}

fn openai_answer(content: &str, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "fast-model-2025-04-14",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish_reason,
        }],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    })
}

mod llm_wire {
    use super::*;

    #[test]
    fn openai_plain_request_on_the_fast_tier() {
        let server = TestServer::always(Reply::json(openai_answer("hello", "stop")));
        let client = client(&config_for(ProviderKind::Openai, &server));
        let answer = client
            .complete(&ask(ModelTier::Fast, "Be brief.", "Say hello.", false))
            .unwrap();
        assert_eq!(answer.text, "hello");
        assert_eq!(answer.model, "fast-model-2025-04-14");
        assert_eq!(
            (answer.usage.input_tokens, answer.usage.output_tokens),
            (12, 3)
        );
        assert_eq!(answer.retries, 0);
        assert!(!answer.truncated);

        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        let request = &requests[0];
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(&*format!("Bearer {KEY}"))
        );
        assert!(request.header("x-api-key").is_none());
        assert!(
            request
                .header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
        let body = request.json();
        assert_eq!(body["model"], "fast-model");
        assert_eq!(body["max_tokens"], 256);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Say hello."},
            ])
        );
        assert!(body.get("response_format").is_none(), "{body}");

        let totals = client.usage();
        assert_eq!((totals.completions, totals.failures), (1, 0));
        assert_eq!((totals.input_tokens, totals.output_tokens), (12, 3));
        assert_eq!((totals.http_requests, totals.retries), (1, 0));
    }

    #[test]
    fn openai_json_request_on_the_capable_tier() {
        let server = TestServer::always(Reply::json(openai_answer("{\"facts\": []}", "stop")));
        let client = client(&config_for(ProviderKind::Openai, &server));
        let answer = client
            .complete(&ask(
                ModelTier::Capable,
                "Extract the facts.",
                "Rust is fast.",
                true,
            ))
            .unwrap();
        assert_eq!(answer.text, "{\"facts\": []}");
        let body = server.requests()[0].json();
        assert_eq!(body["model"], "capable-model");
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        // json_object mode needs the word JSON in the messages: added.
        assert_eq!(
            body["messages"][0]["content"],
            "Extract the facts.\n\nAnswer in JSON."
        );

        // A system text that already asks for JSON is sent as written.
        client
            .complete(&ask(ModelTier::Capable, "Return JSON.", "x", true))
            .unwrap();
        assert_eq!(
            server.requests()[1].json()["messages"][0]["content"],
            "Return JSON."
        );
    }

    #[test]
    fn openai_without_key_or_system_sends_neither() {
        let server = TestServer::always(Reply::json(openai_answer("ok", "stop")));
        let mut config = config_for(ProviderKind::Openai, &server);
        config.api_key = None;
        client(&config)
            .complete(&ask(ModelTier::Fast, "", "hi", false))
            .unwrap();
        let request = &server.requests()[0];
        assert!(request.header("authorization").is_none());
        assert_eq!(
            request.json()["messages"],
            json!([{"role": "user", "content": "hi"}])
        );
    }

    #[test]
    fn openai_cut_prose_is_returned_marked_truncated() {
        let server = TestServer::always(Reply::json(openai_answer("Once upon a", "length")));
        let client = client(&config_for(ProviderKind::Openai, &server));
        let answer = client
            .complete(&ask(ModelTier::Fast, "", "story", false))
            .unwrap();
        assert!(answer.truncated);
        assert_eq!(answer.text, "Once upon a");
    }

    #[test]
    fn openai_cut_json_fails_without_retry_and_still_counts_tokens() {
        let server = TestServer::always(Reply::json(openai_answer("{\"facts\": [\"a", "length")));
        let client = client(&config_for(ProviderKind::Openai, &server));
        let error = client
            .complete(&ask(ModelTier::Fast, "", "json", true))
            .unwrap_err();
        let LlmError::Failed(message) = &error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("openai") && message.contains("max_tokens (256)"),
            "{message}"
        );
        assert_eq!(server.request_count(), 1, "a cut answer is not retried");
        let totals = client.usage();
        assert_eq!(
            (totals.failures, totals.input_tokens, totals.output_tokens),
            (1, 12, 3)
        );
    }

    #[test]
    fn openai_refusal_is_failed_not_retried() {
        let server = TestServer::always(Reply::json(json!({
            "model": "m",
            "choices": [{"message": {"role": "assistant", "content": null,
                                     "refusal": "I can't help with that."},
                         "finish_reason": "stop"}],
        })));
        let error = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::Failed(m) if m.contains("refused") && m.contains("can't help")),
            "{error:?}"
        );
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn anthropic_request_and_answer() {
        let server = TestServer::always(Reply::json(json!({
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-20250101",
            "content": [
                {"type": "text", "text": "hel"},
                {"type": "tool_use", "id": "t", "name": "x", "input": {}},
                {"type": "text", "text": "lo"},
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 20, "output_tokens": 4, "cache_read_input_tokens": 5},
        })));
        let client = client(&config_for(ProviderKind::Anthropic, &server));
        let answer = client
            .complete(&ask(ModelTier::Capable, "Be kind.", "Greet me.", false))
            .unwrap();
        assert_eq!(answer.text, "hello");
        assert_eq!(answer.model, "claude-test-20250101");
        assert_eq!(
            (answer.usage.input_tokens, answer.usage.output_tokens),
            (25, 4)
        );
        assert!(!answer.truncated);

        let request = &server.requests()[0];
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert!(request.header("authorization").is_none());
        let body = request.json();
        assert_eq!(body["model"], "capable-model");
        assert_eq!(body["max_tokens"], 256);
        assert_eq!(body["system"], "Be kind.");
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "Greet me."}])
        );
    }

    #[test]
    fn anthropic_json_is_asked_for_in_the_system_text_and_fences_are_stripped() {
        let server = TestServer::always(Reply::json(json!({
            "type": "message",
            "model": "claude-test",
            "content": [{"type": "text", "text": "```json\n{\"a\": 1}\n```"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        })));
        let client = client(&config_for(ProviderKind::Anthropic, &server));
        let answer = client
            .complete(&ask(ModelTier::Fast, "Return JSON.", "x", true))
            .unwrap();
        assert_eq!(answer.text, "{\"a\": 1}");
        let body = server.requests()[0].json();
        assert_eq!(body["model"], "fast-model");
        let system = body["system"].as_str().unwrap();
        assert!(
            system.starts_with("Return JSON.\n\n") && system.contains("JSON only"),
            "{system}"
        );
        assert!(body.get("response_format").is_none());

        // No system text: none sent for a prose request.
        client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert!(server.requests()[1].json().get("system").is_none());
    }

    #[test]
    fn anthropic_max_tokens_stop_is_truncated() {
        let server = TestServer::always(Reply::json(json!({
            "type": "message", "model": "m",
            "content": [{"type": "text", "text": "partial"}],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 1, "output_tokens": 256},
        })));
        let answer = client(&config_for(ProviderKind::Anthropic, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert!(answer.truncated);
    }

    #[test]
    fn ollama_request_and_answer() {
        let server = TestServer::always(Reply::json(json!({
            "model": "fast-model",
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "{\"a\": 1}"},
            "done": true,
            "done_reason": "stop",
            "prompt_eval_count": 30,
            "eval_count": 5,
        })));
        let mut config = config_for(ProviderKind::Ollama, &server);
        config.api_key = None;
        let client = client(&config);
        let answer = client
            .complete(&ask(ModelTier::Fast, "Sys.", "Give JSON.", true))
            .unwrap();
        assert_eq!(answer.text, "{\"a\": 1}");
        assert_eq!(
            (answer.usage.input_tokens, answer.usage.output_tokens),
            (30, 5)
        );

        let request = &server.requests()[0];
        assert_eq!(request.path, "/api/chat");
        assert!(request.header("authorization").is_none());
        let body = request.json();
        assert_eq!(body["model"], "fast-model");
        assert_eq!(body["stream"], false);
        assert_eq!(body["format"], "json");
        assert_eq!(body["options"], json!({"num_predict": 256}));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "Sys."},
                {"role": "user", "content": "Give JSON."},
            ])
        );

        client
            .complete(&ask(ModelTier::Capable, "", "prose", false))
            .unwrap();
        let body = server.requests()[1].json();
        assert_eq!(body["model"], "capable-model");
        assert!(body.get("format").is_none());
    }

    #[test]
    fn ollama_length_stop_is_truncated_and_missing_counts_are_zero() {
        let server = TestServer::always(Reply::json(json!({
            "model": "m", "message": {"role": "assistant", "content": "cut"},
            "done": true, "done_reason": "length", "eval_count": 9,
        })));
        let answer = client(&config_for(ProviderKind::Ollama, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert!(answer.truncated);
        assert_eq!(
            (answer.usage.input_tokens, answer.usage.output_tokens),
            (0, 9)
        );
    }
}

mod llm_retry {
    use super::*;
    use hive_mind_outbound::retry::{parse_retry_after, parse_retry_after_ms};

    fn rate_limited(retry_after: &str) -> Reply {
        Reply::json_status(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}),
        )
        .header("retry-after", retry_after)
    }

    #[test]
    fn a_429_storm_then_success() {
        let server = TestServer::scripted(vec![
            rate_limited("0"),
            rate_limited("0"),
            rate_limited("0"),
            Reply::json(openai_answer("finally", "stop")),
        ]);
        let client = client(&config_for(ProviderKind::Openai, &server));
        let answer = client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert_eq!(answer.text, "finally");
        assert_eq!(answer.retries, 3);
        assert_eq!(server.request_count(), 4);
        let totals = client.usage();
        assert_eq!(
            (totals.http_requests, totals.retries, totals.completions),
            (4, 3, 1)
        );
    }

    #[test]
    fn only_429s_is_rate_limited_after_max_retries() {
        let server = TestServer::always(rate_limited("0"));
        let mut config = config_for(ProviderKind::Anthropic, &server);
        config.retry.max_retries = 2;
        let client = client(&config);
        let error = client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        let LlmError::RateLimited(message) = &error else {
            panic!("{error:?}")
        };
        assert!(message.starts_with("anthropic: HTTP 429"), "{message}");
        assert!(message.contains("Rate limit reached"), "{message}");
        assert!(message.ends_with("(after 2 retries)"), "{message}");
        assert_eq!(server.request_count(), 3);
        assert_eq!(client.usage().failures, 1);
    }

    #[test]
    fn an_exhausted_quota_is_not_retried() {
        let server = TestServer::always(Reply::json_status(
            429,
            json!({"error": {"message": "You exceeded your current quota",
                             "type": "insufficient_quota", "code": "insufficient_quota"}}),
        ));
        let error = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::RateLimited(m) if m.contains("quota is used up")),
            "{error:?}"
        );
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn retry_after_in_seconds_is_honoured() {
        let server = TestServer::scripted(vec![
            rate_limited("1"),
            Reply::json(openai_answer("ok", "stop")),
        ]);
        let client = client(&config_for(ProviderKind::Openai, &server));
        let started = Instant::now();
        client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert!(
            started.elapsed() >= Duration::from_millis(950),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn retry_after_ms_is_honoured_on_a_5xx() {
        let server = TestServer::scripted(vec![
            Reply::status(503).header("retry-after-ms", "300"),
            Reply::json(openai_answer("ok", "stop")),
        ]);
        let client = client(&config_for(ProviderKind::Openai, &server));
        let started = Instant::now();
        let answer = client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert_eq!(answer.retries, 1);
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(290), "{elapsed:?}");
    }

    #[test]
    fn a_retry_after_over_the_cap_gives_up_at_once() {
        let server = TestServer::always(rate_limited("3600"));
        let client = client(&config_for(ProviderKind::Openai, &server));
        let started = Instant::now();
        let error = client
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(
            matches!(&error, LlmError::RateLimited(m) if m.contains("3600 s") && m.contains("60 s")),
            "{error:?}"
        );
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn server_errors_then_success() {
        let server = TestServer::scripted(vec![
            Reply::status(503),
            Reply::json_status(500, json!({"error": "boom"})),
            Reply::json_status(
                529,
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            ),
            Reply::json(openai_answer("ok", "stop")),
        ]);
        let answer = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert_eq!(answer.retries, 3);
        assert_eq!(server.request_count(), 4);
    }

    #[test]
    fn server_errors_past_max_retries_fail_with_the_status() {
        let server = TestServer::always(Reply::json_status(
            502,
            json!({"error": {"message": "bad gateway"}}),
        ));
        let mut config = config_for(ProviderKind::Ollama, &server);
        config.retry.max_retries = 1;
        let error = client(&config)
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert_eq!(
            error,
            LlmError::Failed("ollama: HTTP 502: bad gateway (after 1 retry)".into())
        );
        assert_eq!(server.request_count(), 2);
    }

    #[test]
    fn a_client_error_is_not_retried() {
        let server = TestServer::always(Reply::json_status(
            404,
            json!({"error": "model 'nope' not found"}),
        ));
        let error = client(&config_for(ProviderKind::Ollama, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert_eq!(
            error,
            LlmError::Failed("ollama: HTTP 404: model 'nope' not found".into())
        );
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn an_echoed_api_key_never_reaches_the_message() {
        let server = TestServer::always(Reply::json_status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}."),
                             "type": "invalid_request_error"}}),
        ));
        let error = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("HTTP 401") && message.contains("<redacted>"),
            "{message}"
        );
        assert!(!message.contains(KEY), "{message}");
    }

    #[test]
    fn a_cut_json_body_is_retried_once_then_failed() {
        let cut = r#"{"choices":[{"message":{"content":"hel"#;
        let server = TestServer::always(
            Reply::status(200)
                .header("content-type", "application/json")
                .body(cut),
        );
        let error = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        let LlmError::Failed(message) = &error else {
            panic!("{error:?}")
        };
        assert!(message.starts_with("openai: "), "{message}");
        assert!(message.contains("not valid JSON"), "{message}");
        assert!(message.contains("cut off"), "{message}");
        assert_eq!(
            server.request_count(),
            2,
            "retried once, not max_retries times"
        );
    }

    #[test]
    fn a_cut_json_body_then_a_good_one_succeeds() {
        let server = TestServer::scripted(vec![
            Reply::status(200).body("{\"choi"),
            Reply::json(openai_answer("ok", "stop")),
        ]);
        let answer = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert_eq!((answer.text.as_str(), answer.retries), ("ok", 1));
    }

    #[test]
    fn an_answer_without_the_answer_field_names_it() {
        let server = TestServer::always(Reply::json(json!({"choices": [{"message": {}}]})));
        let error = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::Failed(m) if m.contains("openai") && m.contains("choices[0].message.content")),
            "{error:?}"
        );
        assert_eq!(server.request_count(), 2);

        let server = TestServer::always(Reply::json(json!({"type": "message", "content": []})));
        let error = client(&config_for(ProviderKind::Anthropic, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::Failed(m) if m.contains("anthropic") && m.contains("no `text` block")),
            "{error:?}"
        );
    }

    #[test]
    fn a_body_cut_by_the_connection_is_retried() {
        let cut = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\
                   connection: close\r\n\r\n{\"choices\": [";
        let server = TestServer::scripted(vec![
            Reply::raw(cut),
            Reply::json(openai_answer("ok", "stop")),
        ]);
        let answer = client(&config_for(ProviderKind::Openai, &server))
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap();
        assert_eq!(answer.retries, 1);
    }

    #[test]
    fn a_slow_server_times_out_after_the_retries() {
        let server = TestServer::always(
            Reply::json(openai_answer("late", "stop")).after(Duration::from_millis(1500)),
        );
        let mut config = config_for(ProviderKind::Openai, &server);
        config.timeout = Duration::from_millis(200);
        config.retry.max_retries = 1;
        let started = Instant::now();
        let error = client(&config)
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        let elapsed = started.elapsed();
        let LlmError::Timeout(message) = &error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("within 0.2 s") && message.ends_with("(after 1 retry)"),
            "{message}"
        );
        assert!(elapsed < Duration::from_millis(1200), "{elapsed:?}");
        assert_eq!(server.request_count(), 2);
    }

    #[test]
    fn nothing_listening_is_unavailable_at_once() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let mut config = LlmConfig::for_provider(ProviderKind::Openai);
        config.base_url = format!("http://127.0.0.1:{port}/v1");
        config.retry.base_delay = Duration::from_secs(5);
        let started = Instant::now();
        let error = client(&config)
            .complete(&ask(ModelTier::Fast, "", "x", false))
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::Unavailable(m) if m.contains("connection refused")),
            "{error:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "not retried");
    }

    #[test]
    fn retry_after_values() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        // RFC 850 form, and a date in the past.
        assert_eq!(
            parse_retry_after("Wednesday, 21-Oct-15 07:29:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(
            parse_retry_after_ms("250"),
            Some(Duration::from_millis(250))
        );
        assert_eq!(parse_retry_after_ms("x"), None);
    }

    #[test]
    fn backoff_doubles_within_jitter_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(60),
        };
        for (retry, full) in [(0, 100), (1, 200), (2, 400), (3, 800), (4, 1000), (9, 1000)] {
            for _ in 0..20 {
                let delay = policy.backoff(retry).as_millis();
                assert!(
                    (full / 2..=full).contains(&delay),
                    "retry {retry}: {delay} ms outside [{}, {full}]",
                    full / 2
                );
            }
        }
    }
}

mod llm_many {
    use super::*;
    use hive_mind_outbound::llm::{Completion, complete_concurrently};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Echo the prompt back, slowly.
    fn echo_server(delay: Duration) -> TestServer {
        TestServer::start(move |request, _| {
            let prompt = request.json()["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_string();
            if prompt == "fail" {
                return Reply::json_status(400, json!({"error": {"message": "bad prompt"}}));
            }
            Reply::json(openai_answer(&format!("echo {prompt}"), "stop")).after(delay)
        })
    }

    #[test]
    fn complete_many_respects_the_limit_and_keeps_order() {
        let server = echo_server(Duration::from_millis(150));
        let mut config = config_for(ProviderKind::Openai, &server);
        config.concurrency = 3;
        let client = client(&config);
        let requests: Vec<_> = (0..8)
            .map(|i| ask(ModelTier::Fast, "", &format!("p{i}"), false))
            .collect();
        let started = Instant::now();
        let answers = client.complete_many(&requests);
        let elapsed = started.elapsed();
        let texts: Vec<String> = answers.into_iter().map(|a| a.unwrap().text).collect();
        let expected: Vec<String> = (0..8).map(|i| format!("echo p{i}")).collect();
        assert_eq!(texts, expected);
        assert_eq!(server.request_count(), 8);
        let max = server.max_in_flight();
        assert!(max <= 3, "{max} requests at once, limit 3");
        assert!(max >= 2, "requests ran one at a time ({max})");
        // 8 requests of 150 ms, 3 at a time: 3 rounds, not 8.
        assert!(elapsed < Duration::from_millis(1100), "{elapsed:?}");
        assert_eq!(client.usage().completions, 8);
        assert_eq!(client.usage().input_tokens, 8 * 12);
    }

    #[test]
    fn complete_many_with_concurrency_one_is_sequential() {
        let server = echo_server(Duration::from_millis(30));
        let mut config = config_for(ProviderKind::Openai, &server);
        config.concurrency = 1;
        let requests: Vec<_> = (0..4)
            .map(|i| ask(ModelTier::Fast, "", &format!("p{i}"), false))
            .collect();
        let answers = client(&config).complete_many(&requests);
        assert_eq!(answers.len(), 4);
        assert_eq!(server.max_in_flight(), 1);
    }

    #[test]
    fn complete_many_answers_each_request_on_its_own() {
        let server = echo_server(Duration::ZERO);
        let mut config = config_for(ProviderKind::Openai, &server);
        config.concurrency = 4;
        let requests: Vec<_> = ["a", "fail", "c"]
            .iter()
            .map(|p| ask(ModelTier::Fast, "", p, false))
            .collect();
        let answers = client(&config).complete_many(&requests);
        assert_eq!(answers[0].as_ref().unwrap().text, "echo a");
        assert!(matches!(&answers[1], Err(LlmError::Failed(m)) if m.contains("bad prompt")));
        assert_eq!(answers[2].as_ref().unwrap().text, "echo c");
        assert!(client(&config).complete_many(&[]).is_empty());
    }

    /// A fake model: the trait's default `complete_many` over it.
    struct Fake {
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl LanguageModel for Fake {
        fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            self.running.fetch_sub(1, Ordering::SeqCst);
            if request.prompt == "panic" {
                panic!("a fake that panics");
            }
            Ok(Completion {
                text: request.prompt.clone(),
                model: "fake".into(),
                usage: Default::default(),
                retries: 0,
                truncated: false,
            })
        }
    }

    #[test]
    fn the_default_complete_many_is_sequential_and_a_panicking_request_fails_alone() {
        let fake = Fake {
            running: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        };
        let requests: Vec<_> = (0..3)
            .map(|i| ask(ModelTier::Fast, "", &i.to_string(), false))
            .collect();
        let answers = fake.complete_many(&requests);
        assert_eq!(fake.most.load(Ordering::SeqCst), 1);
        assert_eq!(answers[2].as_ref().unwrap().text, "2");

        let requests: Vec<_> = ["a", "panic", "c", "d"]
            .iter()
            .map(|p| ask(ModelTier::Fast, "", p, false))
            .collect();
        let answers = complete_concurrently(&fake, &requests, 2);
        assert_eq!(answers[0].as_ref().unwrap().text, "a");
        assert!(matches!(&answers[1], Err(LlmError::Failed(m)) if m.contains("internal error")));
        assert_eq!(answers[3].as_ref().unwrap().text, "d");
        assert!(fake.most.load(Ordering::SeqCst) <= 2);
    }
}

mod llm_config {
    use super::*;
    use hive_mind_outbound::OutboundConfig;
    use hive_mind_outbound::config::ConfigError;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        }
    }

    #[test]
    fn nothing_configured_is_no_model() {
        let config = LlmConfig::from_sources(None, env_of(&[("OPENAI_API_KEY", "sk-x")])).unwrap();
        assert_eq!(config.provider, ProviderKind::None);
        assert!(!config.is_configured());
        let error = LlmClient::new(&config).unwrap_err();
        assert!(
            matches!(&error, LlmError::Unavailable(m) if m.contains("HIVE_MIND_LLM_PROVIDER")),
            "{error:?}"
        );
        // A file without [llm] is the same.
        let config =
            LlmConfig::from_sources(Some("[embedder]\nprovider = \"mock\"\n"), env_of(&[]))
                .unwrap();
        assert!(!config.is_configured());
    }

    #[test]
    fn the_file_sets_everything_and_other_tables_are_ignored() {
        let file = r#"
            [embedder]
            anything = "goes here"
            [llm]
            provider = "openai"
            base_url = "http://127.0.0.1:8000/v1/"
            api_key = "file-key"
            fast_model = "small"
            capable_model = "big"
            timeout_secs = 30
            max_retries = 2
            concurrency = 8
        "#;
        let config = LlmConfig::from_sources(Some(file), env_of(&[])).unwrap();
        assert_eq!(config.provider, ProviderKind::Openai);
        assert_eq!(config.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(
            config.api_key.as_ref().map(ApiKey::expose),
            Some("file-key")
        );
        assert_eq!(config.model_for(ModelTier::Fast), "small");
        assert_eq!(config.model_for(ModelTier::Capable), "big");
        assert_eq!(config.timeout, Duration::from_secs(30));
        assert_eq!(config.connect_timeout, Duration::from_secs(10));
        assert_eq!(config.retry.max_retries, 2);
        assert_eq!(config.concurrency, 8);
    }

    #[test]
    fn the_environment_overrides_the_file() {
        let file = "[llm]\nprovider = \"openai\"\nbase_url = \"http://a:1/v1\"\napi_key = \"file-key\"\nfast_model = \"small\"\n";
        let env = env_of(&[
            ("HIVE_MIND_LLM_PROVIDER", "Anthropic"),
            ("HIVE_MIND_LLM_BASE_URL", "https://proxy.example/"),
            ("HIVE_MIND_LLM_API_KEY", "env-key"),
            ("HIVE_MIND_LLM_FAST_MODEL", "env-fast"),
            ("HIVE_MIND_LLM_CAPABLE_MODEL", "env-capable"),
            ("ANTHROPIC_API_KEY", "vendor-key"),
        ]);
        let config = LlmConfig::from_sources(Some(file), env).unwrap();
        assert_eq!(config.provider, ProviderKind::Anthropic);
        assert_eq!(config.base_url, "https://proxy.example");
        assert_eq!(config.api_key.as_ref().map(ApiKey::expose), Some("env-key"));
        assert_eq!(config.fast_model, "env-fast");
        assert_eq!(config.capable_model, "env-capable");
        // Anthropic's defaults for what nobody set.
        assert_eq!(config.timeout, Duration::from_secs(120));
        assert_eq!(config.concurrency, 4);
    }

    #[test]
    fn provider_defaults() {
        let anthropic =
            LlmConfig::from_sources(Some("[llm]\nprovider = \"anthropic\"\n"), env_of(&[]))
                .unwrap();
        assert_eq!(anthropic.base_url, "https://api.anthropic.com");
        assert_eq!(anthropic.fast_model, "claude-haiku-4-5");
        assert_eq!(anthropic.capable_model, "claude-sonnet-4-5");

        let openai =
            LlmConfig::from_sources(None, env_of(&[("HIVE_MIND_LLM_PROVIDER", "litellm")]))
                .unwrap();
        assert_eq!(openai.provider, ProviderKind::Openai);
        assert_eq!(openai.base_url, "https://api.openai.com/v1");
        assert_eq!(
            (openai.fast_model.as_str(), openai.capable_model.as_str()),
            ("gpt-4.1-mini", "gpt-4.1")
        );

        let ollama = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"ollama\"\n"),
            env_of(&[("OLLAMA_HOST", "0.0.0.0:11500")]),
        )
        .unwrap();
        assert_eq!(ollama.base_url, "http://127.0.0.1:11500");
        assert_eq!(ollama.fast_model, "llama3.2");
        assert_eq!(ollama.concurrency, 1);
        assert_eq!(ollama.timeout, Duration::from_secs(300));
        assert!(ollama.api_key.is_none());
        let ollama =
            LlmConfig::from_sources(Some("[llm]\nprovider = \"ollama\"\n"), env_of(&[])).unwrap();
        assert_eq!(ollama.base_url, "http://localhost:11434");
    }

    #[test]
    fn vendor_keys_go_only_to_the_vendor() {
        // Default endpoint: the vendor's key is used.
        let config = LlmConfig::from_sources(
            None,
            env_of(&[
                ("HIVE_MIND_LLM_PROVIDER", "anthropic"),
                ("ANTHROPIC_API_KEY", "ant-key"),
            ]),
        )
        .unwrap();
        assert_eq!(config.api_key.as_ref().map(ApiKey::expose), Some("ant-key"));
        assert!(LlmClient::new(&config).is_ok());

        // Another server set in the file: the OpenAI key is not sent there.
        let config = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"openai\"\nbase_url = \"http://10.1.2.3:8000/v1\"\n"),
            env_of(&[("OPENAI_API_KEY", "sk-openai")]),
        )
        .unwrap();
        assert!(config.api_key.is_none());
        assert!(
            LlmClient::new(&config).is_ok(),
            "a local server needs no key"
        );

        // OPENAI_BASE_URL pairs with OPENAI_API_KEY, as in OpenAI's SDKs.
        let config = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"openai\"\n"),
            env_of(&[
                ("OPENAI_BASE_URL", "http://gateway:4000/v1"),
                ("OPENAI_API_KEY", "sk-openai"),
            ]),
        )
        .unwrap();
        assert_eq!(config.base_url, "http://gateway:4000/v1");
        assert_eq!(
            config.api_key.as_ref().map(ApiKey::expose),
            Some("sk-openai")
        );

        // HIVE_MIND_LLM_BASE_URL pointing at the vendor keeps the vendor key.
        let config = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"openai\"\n"),
            env_of(&[
                ("HIVE_MIND_LLM_BASE_URL", "https://api.openai.com/v1"),
                ("OPENAI_API_KEY", "sk-openai"),
            ]),
        )
        .unwrap();
        assert_eq!(
            config.api_key.as_ref().map(ApiKey::expose),
            Some("sk-openai")
        );
    }

    #[test]
    fn the_vendor_endpoint_without_a_key_is_unavailable() {
        for (provider, variable) in [
            ("openai", "OPENAI_API_KEY"),
            ("anthropic", "ANTHROPIC_API_KEY"),
        ] {
            let config =
                LlmConfig::from_sources(None, env_of(&[("HIVE_MIND_LLM_PROVIDER", provider)]))
                    .unwrap();
            let error = LlmClient::new(&config).unwrap_err();
            assert!(
                matches!(&error, LlmError::Unavailable(m) if m.contains(variable) && m.contains("HIVE_MIND_LLM_API_KEY")),
                "{error:?}"
            );
        }
    }

    #[test]
    fn an_unknown_key_in_llm_is_an_error() {
        let error = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"openai\"\nfast_modle = \"x\"\n"),
            env_of(&[]),
        )
        .unwrap_err();
        assert!(matches!(error, ConfigError::Parse { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("fast_modle") && message.contains("[llm]"),
            "{message}"
        );

        let error = LlmConfig::from_sources(Some("[llm]\nprovider = \"openia\"\n"), env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("openia"), "{error}");
    }

    #[test]
    fn bad_values_are_errors() {
        let error = LlmConfig::from_sources(None, env_of(&[("HIVE_MIND_LLM_PROVIDER", "gpt")]))
            .unwrap_err();
        assert!(
            matches!(&error, ConfigError::Env { name, .. } if name == "HIVE_MIND_LLM_PROVIDER"),
            "{error:?}"
        );
        for (table, key) in [
            ("provider = \"openai\"\nconcurrency = 0", "llm.concurrency"),
            (
                "provider = \"openai\"\ntimeout_secs = -1",
                "llm.timeout_secs",
            ),
            (
                "provider = \"openai\"\nbase_url = \"ftp://x\"",
                "llm.base_url",
            ),
            (
                "provider = \"openai\"\nfast_model = \" \"",
                "llm.fast_model",
            ),
        ] {
            let error = LlmConfig::from_sources(Some(&format!("[llm]\n{table}\n")), env_of(&[]))
                .unwrap_err();
            assert!(
                matches!(&error, ConfigError::Invalid { key: k, .. } if k == key),
                "{table}: {error:?}"
            );
        }
        let error = LlmConfig::from_sources(Some("[llm]\nmax_retries = \"many\"\n"), env_of(&[]))
            .unwrap_err();
        assert!(matches!(error, ConfigError::Parse { .. }));
    }

    #[test]
    fn keys_are_not_printed() {
        let config = LlmConfig::from_sources(
            Some("[llm]\nprovider = \"openai\"\napi_key = \"sk-very-secret\"\n"),
            env_of(&[]),
        )
        .unwrap();
        assert!(!format!("{config:?}").contains("sk-very-secret"));
        let client = LlmClient::new(&config).unwrap();
        assert!(!format!("{client:?}").contains("sk-very-secret"));
        assert_eq!(config.api_key.unwrap().to_string(), "<redacted>");
    }

    #[test]
    fn outbound_config_reads_both_tables_from_a_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "[llm]\nprovider = \"ollama\"\n[fetch]\nmax_redirects = 2\n",
        )
        .unwrap();
        let config = OutboundConfig::from_sources(
            Some(&std::fs::read_to_string(dir.path().join("config.toml")).unwrap()),
            env_of(&[]),
        )
        .unwrap();
        assert_eq!(config.llm.provider, ProviderKind::Ollama);
        assert_eq!(config.fetch.max_redirects, 2);

        // A missing file is the defaults; a broken one names its path.
        let empty = tempfile::tempdir().unwrap();
        assert!(OutboundConfig::load_in(empty.path()).is_ok());
        std::fs::write(dir.path().join("config.toml"), "[llm\n").unwrap();
        let error = OutboundConfig::load_in(dir.path()).unwrap_err().to_string();
        assert!(error.contains("config.toml"), "{error}");
    }
}

mod fetch_rules {
    use super::*;
    use hive_mind_outbound::fetch::{FetchError, FetchPolicy, Fetcher, fetch};

    fn page(body: &str) -> Reply {
        Reply::status(200)
            .header("content-type", "text/html; charset=utf-8")
            .body(body.to_string())
    }

    fn open() -> FetchPolicy {
        FetchPolicy {
            allow_private: true,
            ..FetchPolicy::default()
        }
    }

    fn refused(result: Result<impl std::fmt::Debug, FetchError>) -> String {
        match result {
            Err(FetchError::Refused(message)) => message,
            other => panic!("expected Refused, got {other:?}"),
        }
    }

    #[test]
    fn loopback_is_refused_by_default_before_connecting() {
        let server = TestServer::always(page("secret"));
        let message = refused(fetch(
            &format!("{}/admin", server.url()),
            &FetchPolicy::default(),
        ));
        assert!(
            message.contains("127.0.0.1") && message.contains("loopback (127.0.0.0/8)"),
            "{message}"
        );
        assert!(message.contains("allow_private"), "{message}");
        assert_eq!(server.request_count(), 0, "no connection was made");
    }

    #[test]
    fn loopback_in_other_spellings_is_refused() {
        let server = TestServer::always(page("secret"));
        let port = server.port();
        let policy = FetchPolicy::default();
        for url in [
            format!("http://localhost:{port}/"),
            format!("http://LOCALHOST.:{port}/"),
            format!("http://api.localhost:{port}/"),
        ] {
            let message = refused(fetch(&url, &policy));
            assert!(message.contains("loopback"), "{url}: {message}");
        }
        for (url, rule) in [
            (
                format!("http://2130706433:{port}/"),
                "loopback (127.0.0.0/8)",
            ),
            (format!("http://0x7f.1:{port}/"), "loopback (127.0.0.0/8)"),
            (format!("http://[::1]:{port}/"), "loopback (::1)"),
            (format!("http://[::ffff:127.0.0.1]:{port}/"), "IPv4-mapped"),
            (format!("http://0.0.0.0:{port}/"), "unspecified"),
        ] {
            let message = refused(fetch(&url, &policy));
            assert!(message.contains(rule), "{url}: {message}");
        }
        assert_eq!(server.request_count(), 0);
    }

    /// Every address this machine's interfaces hold is refused before any
    /// connection, a public one (in no refused range) as this machine's.
    #[test]
    fn this_machines_own_addresses_are_refused() {
        use hive_mind_outbound::fetch::{own_addresses, refused_range};
        let own = own_addresses().unwrap();
        assert!(!own.is_empty());
        let policy = FetchPolicy::default();
        for ip in own {
            let url = match ip {
                std::net::IpAddr::V4(_) => format!("http://{ip}:9/"),
                std::net::IpAddr::V6(_) => format!("http://[{ip}]:9/"),
            };
            let message = refused(fetch(&url, &policy));
            assert!(message.contains(&ip.to_string()), "{url}: {message}");
            if refused_range(ip).is_none() {
                assert!(message.contains("this machine"), "{url}: {message}");
            }
        }
    }

    #[test]
    fn allow_private_fetches_and_passes_the_content_type_through() {
        let server = TestServer::always(page("<h1>hi</h1>"));
        let response = fetch(&format!("{}/doc#section", server.url()), &open()).unwrap();
        assert_eq!(response.body, b"<h1>hi</h1>");
        assert_eq!(
            response.content_type.as_deref(),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(response.url, format!("{}/doc", server.url()));
        let request = &server.requests()[0];
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("GET", "/doc")
        );
        assert!(
            request
                .header("user-agent")
                .unwrap()
                .starts_with("hive-mind/")
        );
        assert!(request.header("accept").unwrap().contains("text/html"));

        // No Content-Type: None.
        let server = TestServer::always(Reply::status(200).body("x"));
        assert_eq!(fetch(&server.url(), &open()).unwrap().content_type, None);
    }

    #[test]
    fn allow_hosts_exempts_only_that_host_and_port() {
        let allowed = TestServer::always(page("ok"));
        let other = TestServer::always(page("no"));
        let policy = FetchPolicy {
            allow_hosts: vec![format!("127.0.0.1:{}", allowed.port())],
            ..FetchPolicy::default()
        };
        let fetcher = Fetcher::new(policy);
        assert_eq!(fetcher.get(&allowed.url()).unwrap().body, b"ok");
        refused(fetcher.get(&other.url()));
        assert_eq!(other.request_count(), 0);
        // A rule without a port matches every port.
        let fetcher = Fetcher::new(FetchPolicy {
            allow_hosts: vec!["127.0.0.1".into()],
            ..FetchPolicy::default()
        });
        assert_eq!(fetcher.get(&other.url()).unwrap().body, b"no");
    }

    #[test]
    fn a_redirect_to_a_refused_address_is_refused() {
        let inside = TestServer::always(page("router admin"));
        let outside = TestServer::always(
            Reply::status(302).header("location", &format!("{}/admin", inside.url())),
        );
        let policy = FetchPolicy {
            allow_hosts: vec![format!("127.0.0.1:{}", outside.port())],
            ..FetchPolicy::default()
        };
        let message = refused(fetch(&outside.url(), &policy));
        assert!(message.contains("loopback"), "{message}");
        assert_eq!(outside.request_count(), 1);
        assert_eq!(
            inside.request_count(),
            0,
            "the redirect target was never contacted"
        );

        // A redirect to another scheme, too.
        let to_file =
            TestServer::always(Reply::status(301).header("location", "file:///etc/passwd"));
        let message = refused(fetch(&to_file.url(), &open()));
        assert!(message.contains("scheme `file:`"), "{message}");
    }

    #[test]
    fn redirects_are_followed_and_relative_locations_resolved() {
        let second = TestServer::start(|request, _| {
            if request.path == "/final?x=1" {
                page("final")
            } else {
                Reply::status(307).header("location", "/final?x=1#frag")
            }
        });
        let first = TestServer::always(
            Reply::status(301).header("location", &format!("{}/start", second.url())),
        );
        let response = fetch(&format!("{}/begin", first.url()), &open()).unwrap();
        assert_eq!(response.body, b"final");
        // The relative location resolves against the server that sent it.
        assert_eq!(response.url, format!("{}/final?x=1", second.url()));
        let paths: Vec<String> = second.requests().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["/start", "/final?x=1"]);
        assert_eq!(first.request_count(), 1);
    }

    #[test]
    fn too_many_redirects_fail() {
        let server = TestServer::always(Reply::status(302).header("location", "/again"));
        let policy = FetchPolicy {
            max_redirects: 2,
            ..open()
        };
        let error = fetch(&server.url(), &policy).unwrap_err();
        assert!(
            matches!(&error, FetchError::Failed(m) if m.contains("more than 2 redirects")),
            "{error:?}"
        );
        assert_eq!(server.request_count(), 3);
    }

    #[test]
    fn only_http_and_https() {
        for url in [
            "ftp://example.com/file",
            "file:///etc/passwd",
            "gopher://x/",
            "data:text/plain,hi",
        ] {
            let message = refused(fetch(url, &open()));
            assert!(message.contains("only http and https"), "{url}: {message}");
        }
    }

    #[test]
    fn invalid_urls() {
        for url in [
            "not a url",
            "/relative/path",
            "http://",
            "http://exa mple.com/",
        ] {
            let error = fetch(url, &open()).unwrap_err();
            assert!(
                matches!(error, FetchError::InvalidUrl(_)),
                "{url}: {error:?}"
            );
        }
    }

    #[test]
    fn the_size_cap() {
        let policy = FetchPolicy {
            max_bytes: 1000,
            ..open()
        };
        let big = "x".repeat(2000);
        // Announced by Content-Length.
        let server = TestServer::always(page(&big));
        assert_eq!(
            fetch(&server.url(), &policy),
            Err(FetchError::TooLarge(1000))
        );
        // Not announced: the body ends at close; the reader stops past the cap.
        let server = TestServer::always(page(&big).close_delimited());
        assert_eq!(
            fetch(&server.url(), &policy),
            Err(FetchError::TooLarge(1000))
        );
        // Exactly the cap is fine, announced or not.
        let exact = "y".repeat(1000);
        let server = TestServer::always(page(&exact).close_delimited());
        assert_eq!(fetch(&server.url(), &policy).unwrap().body.len(), 1000);
        let server = TestServer::always(page(&exact));
        assert_eq!(fetch(&server.url(), &policy).unwrap().body.len(), 1000);
    }

    #[test]
    fn error_statuses() {
        let server = TestServer::always(Reply::status(404).body("nope"));
        assert_eq!(fetch(&server.url(), &open()), Err(FetchError::Status(404)));
        let server = TestServer::always(Reply::status(503));
        assert_eq!(fetch(&server.url(), &open()), Err(FetchError::Status(503)));
        // A redirect status without a Location is a status too.
        let server = TestServer::always(Reply::status(302));
        assert_eq!(fetch(&server.url(), &open()), Err(FetchError::Status(302)));
    }

    #[test]
    fn a_slow_server_times_out() {
        let server = TestServer::always(page("late").after(Duration::from_millis(1500)));
        let policy = FetchPolicy {
            timeout: Duration::from_millis(300),
            ..open()
        };
        let started = Instant::now();
        let error = fetch(&server.url(), &policy).unwrap_err();
        assert!(matches!(error, FetchError::Timeout(_)), "{error:?}");
        assert!(
            started.elapsed() < Duration::from_millis(1200),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn nothing_listening_is_failed() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let error = fetch(&format!("http://127.0.0.1:{port}/"), &open()).unwrap_err();
        assert!(
            matches!(&error, FetchError::Failed(m) if m.contains("refused")),
            "{error:?}"
        );
    }
}

mod fetch_addresses {
    use hive_mind_outbound::fetch::{is_localhost_name, refused_range};
    use std::net::IpAddr;

    fn rule(ip: &str) -> Option<String> {
        refused_range(ip.parse::<IpAddr>().unwrap())
    }

    #[test]
    fn ipv4_ranges() {
        let refused = [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "this network"),
            ("127.0.0.1", "loopback"),
            ("127.255.255.254", "loopback"),
            ("10.0.0.0", "private (10.0.0.0/8)"),
            ("10.255.255.255", "private (10.0.0.0/8)"),
            ("172.16.0.0", "private (172.16.0.0/12)"),
            ("172.31.255.255", "private (172.16.0.0/12)"),
            ("192.168.0.1", "private (192.168.0.0/16)"),
            ("192.168.255.255", "private (192.168.0.0/16)"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.0", "carrier-grade NAT"),
            ("100.127.255.255", "carrier-grade NAT"),
            ("192.0.0.8", "IETF"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.255", "benchmarking"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.255", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.255", "broadcast"),
            ("168.63.129.16", "Azure's wire server"),
        ];
        for (ip, expected) in refused {
            let got = rule(ip).unwrap_or_else(|| panic!("{ip} should be refused"));
            assert!(got.contains(expected), "{ip}: {got}");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "172.15.255.255",
            "172.32.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "11.0.0.0",
            "9.255.255.255",
            "126.255.255.255",
            "128.0.0.0",
            "192.0.1.1",
            "168.63.129.15",
            "168.63.129.17",
            "168.63.128.16",
        ] {
            assert_eq!(rule(ip), None, "{ip} should be allowed");
        }
    }

    #[test]
    fn ipv6_ranges() {
        let refused = [
            ("::", "unspecified"),
            ("::1", "loopback (::1)"),
            ("fe80::1", "link-local (fe80::/10)"),
            ("febf:ffff::1", "link-local (fe80::/10)"),
            ("fec0::1", "site-local"),
            ("fc00::1", "unique local (fc00::/7)"),
            ("fd12:3456:789a::1", "unique local (fc00::/7)"),
            ("ff02::1", "multicast (ff00::/8)"),
            ("ff05::2", "multicast"),
            ("100::1", "discard-only"),
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:10.1.2.3", "private (10.0.0.0/8)"),
            ("::ffff:169.254.169.254", "link-local (169.254.0.0/16)"),
            ("::ffff:192.168.1.1", "private (192.168.0.0/16)"),
            ("::ffff:100.64.1.1", "carrier-grade NAT"),
            ("::ffff:0.0.0.0", "unspecified"),
            ("::127.0.0.1", "IPv4-compatible"),
            ("::8.8.8.8", "IPv4-compatible"),
            ("64:ff9b::10.0.0.1", "NAT64"),
            ("64:ff9b::127.0.0.1", "loopback"),
            ("2002:c0a8:0101::1", "6to4"),
            ("2002:7f00:0001::", "loopback"),
            // The IPv4-in-IPv6 forms of Azure's wire server.
            ("::ffff:168.63.129.16", "Azure's wire server"),
            ("64:ff9b::a83f:8110", "Azure's wire server"),
            ("2002:a83f:8110::1", "Azure's wire server"),
            // NAT64 with a private, link-local or shared embedded address.
            ("64:ff9b::192.168.0.1", "private (192.168.0.0/16)"),
            ("64:ff9b::169.254.169.254", "link-local"),
            ("64:ff9b::100.64.0.1", "carrier-grade NAT"),
            // Local-use NAT64: refused whatever it carries.
            ("64:ff9b:1::8.8.8.8", "local-use NAT64 (64:ff9b:1::/48)"),
            ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "local-use NAT64"),
            ("64:ff9b:1:a00::1", "local-use NAT64"),
            // Teredo: refused whatever it carries (here a public server
            // and the obfuscated client 127.0.0.1, then a public client).
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo (2001::/32)"),
            ("2001:0:5ef5:79fb:0:5efe:f7f7:f7f7", "Teredo"),
            ("2001::1", "Teredo"),
            ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "Teredo"),
            // IPv4-compatible, whatever it carries; IPv4-mapped loopback.
            ("::a00:1", "IPv4-compatible"),
            ("::ffff:7f00:1", "loopback (127.0.0.0/8)"),
        ];
        for (ip, expected) in refused {
            let got = rule(ip).unwrap_or_else(|| panic!("{ip} should be refused"));
            assert!(got.contains(expected), "{ip}: {got}");
        }
        for ip in [
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "fbff::1",
            "fe00::1",
            "100:0:0:1::1",
            "2a00:1450:4001::200e",
            // Next to the refused prefixes, not in them.
            "2001:1::1",
            "2001:db9::1",
            "64:ff9b:2::808:808",
            "64:ff9b:0:1::808:808",
            "::ffff:168.63.129.17",
            "64:ff9b::a83f:8111",
        ] {
            assert_eq!(rule(ip), None, "{ip} should be allowed");
        }
    }

    #[test]
    fn localhost_names() {
        for name in [
            "localhost",
            "LocalHost",
            "localhost.",
            "foo.localhost",
            "localhost.localdomain",
            "ip6-localhost",
            "ip6-loopback",
        ] {
            assert!(is_localhost_name(name), "{name}");
        }
        for name in [
            "example.com",
            "localhost.example.com",
            "notlocalhost",
            "mylocalhost",
        ] {
            assert!(!is_localhost_name(name), "{name}");
        }
    }
}

mod fetch_config {
    use hive_mind_outbound::config::ConfigError;
    use hive_mind_outbound::fetch::FetchPolicy;
    use std::time::Duration;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn defaults() {
        let policy = FetchPolicy::from_sources(None, no_env).unwrap();
        assert_eq!(policy, FetchPolicy::default());
        assert!(!policy.allow_private);
        assert_eq!(policy.timeout, Duration::from_secs(20));
        assert_eq!(policy.max_bytes, 32 * 1024 * 1024);
        assert_eq!(policy.max_redirects, 5);
    }

    #[test]
    fn file_then_environment() {
        let file = "[llm]\nprovider = \"none\"\n[fetch]\nallow_private = true\nallow_hosts = [\"wiki.lan\", \"[fd00::1]:8080\"]\ntimeout_secs = 2.5\nmax_bytes = 1024\nmax_redirects = 0\n";
        let policy = FetchPolicy::from_sources(Some(file), no_env).unwrap();
        assert!(policy.allow_private);
        assert_eq!(policy.allow_hosts, ["wiki.lan", "[fd00::1]:8080"]);
        assert_eq!(policy.timeout, Duration::from_millis(2500));
        assert_eq!((policy.max_bytes, policy.max_redirects), (1024, 0));

        let env = |name: &str| (name == "HIVE_MIND_FETCH_ALLOW_PRIVATE").then(|| "off".to_string());
        assert!(
            !FetchPolicy::from_sources(Some(file), env)
                .unwrap()
                .allow_private
        );
        let env = |name: &str| (name == "HIVE_MIND_FETCH_ALLOW_PRIVATE").then(|| "1".to_string());
        assert!(FetchPolicy::from_sources(None, env).unwrap().allow_private);
        let env =
            |name: &str| (name == "HIVE_MIND_FETCH_ALLOW_PRIVATE").then(|| "maybe".to_string());
        let error = FetchPolicy::from_sources(None, env).unwrap_err();
        assert!(
            matches!(&error, ConfigError::Env { name, .. } if name == "HIVE_MIND_FETCH_ALLOW_PRIVATE")
        );
    }

    #[test]
    fn bad_fetch_tables() {
        let error = FetchPolicy::from_sources(Some("[fetch]\nallow_privat = true\n"), no_env)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("allow_privat") && error.contains("[fetch]"),
            "{error}"
        );
        for (table, key) in [
            ("max_bytes = 0", "fetch.max_bytes"),
            ("max_redirects = 50", "fetch.max_redirects"),
            ("timeout_secs = 0", "fetch.timeout_secs"),
            ("allow_hosts = [\"http://x/\"]", "fetch.allow_hosts"),
        ] {
            let error = FetchPolicy::from_sources(Some(&format!("[fetch]\n{table}\n")), no_env)
                .unwrap_err();
            assert!(
                matches!(&error, ConfigError::Invalid { key: k, .. } if k == key),
                "{table}: {error:?}"
            );
        }
        // Other tables' unknown keys are not this table's business.
        assert!(FetchPolicy::from_sources(Some("[store]\nwhatever = 1\n"), no_env).is_ok());
    }
}
