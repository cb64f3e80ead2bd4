// Package serve serves a qwen3.Model over OpenAI's HTTP API, with continuous batching: the
// server behind `qwen3 serve`, importable by a Go program that wants to embed it.
//
//	m, err := qwen3.Load(ctx, "Qwen3-0.6B-Q8_0.gguf")
//	s, err := serve.New(m, serve.Config{Model: "qwen3-0.6b", Slots: 8})
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	go s.Serve(ln)                 // until s.Shutdown(ctx)
//
// Any OpenAI client then talks to it, with base URL http://127.0.0.1:8080/v1:
//
//	curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' \
//	  -d '{"messages": [{"role": "user", "content": "Hello"}], "stream": true}'
//
// # The API
//
//   - POST /v1/chat/completions: messages (system, developer, user, assistant, tool; content a
//     string or text parts) rendered with Qwen3's chat template (chapter 02), thinking on or
//     off per request with chat_template_kwargs.enable_thinking (Config.Thinking otherwise);
//   - POST /v1/completions: a prompt continued as it is (text, or token ids);
//   - both: temperature, top_p, top_k, min_p, max_tokens (or max_completion_tokens), stop (up
//     to 4 strings), seed, stream with stream_options.include_usage; usage with
//     prompt_tokens_details.cached_tokens (the prompt tokens a slot's cache already held);
//   - GET /v1/models, GET /v1/models/{id}, and GET /health (llama-server's, for scripts).
//
// A streamed reply is server-sent events as the OpenAI clients read them: "data: {chunk}" per
// piece of text (a chat's first says the role), one with finish_reason, one with the usage when
// asked, then "data: [DONE]". Errors are OpenAI's JSON, {"error": {"message", "type", "param",
// "code"}}, with the status that says what happened: 400 a malformed or invalid request (the
// param named), 401 a missing or wrong API key, 404 another model or route, 408 a body that did
// not arrive within Config.BodyTimeout, 413 a body over Config.MaxBodyBytes, 429 every slot busy
// and the queue full (with Retry-After), 503 shutting down; an error in the middle of a stream is
// a last event {"error": {...}}. Parameters OpenAI has and this server does not implement (n > 1,
// logprobs, penalties, logit_bias, tools, response formats other than text) are refused with a
// 400, never silently ignored, and so is a parameter whose name is a slip from one the server
// reads ("temprature": did you mean "temperature"?); other unknown parameters are ignored, as the
// OpenAI clients send many.
//
// # Continuous batching
//
// The server runs up to Config.Slots requests at once, each in a slot with its own KV cache of
// Config.Context tokens, and decodes them together, one token of each per batched forward pass
// (qwen3.Batch): a weight read from memory serves every running reply. One goroutine, the
// scheduler (scheduler.go), admits a new request into the running batch at the next step,
// retires a reply the moment it ends, and notices a client that went away before the next step.
// A prompt is run in chunks of at most Config.PrefillChunk tokens, each in the same forward pass
// as the decoding step, the two within Config.StepTokens (qwen3.Batch.Run: a weight read serves
// the chunk and the decoding tokens, as in vLLM's chunked prefill, whose max_num_batched_tokens
// bounds the same pass, and llama.cpp's server, whose update_slots in tools/server/server.cpp
// adds the decoding tokens to the batch first and the prompts' after them), so a long
// prompt costs the running replies one chunk's arithmetic per step rather than stalling them for
// the whole prompt. A slot keeps its cache after its request: the next request goes to the free slot
// whose cache shares the longest prefix with its prompt, and only the rest is run (a
// conversation's next turn prefills only the new messages). Notebook 13 measures all three.
package serve
