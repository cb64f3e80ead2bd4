// Package viz shows the engine sampling, one decode step at a time: a page served by `qwen3 viz`
// and by `qwen3 serve` at /viz/ (Handler), and the same events as JSON lines from `qwen3 run
// -trace FILE` (Trace) for notebooks and scripts (ReadTrace).
//
// # What a step shows
//
// At each decode step the model gives one logit per vocabulary entry (151,936 for Qwen3), the
// warpers of chapter 09 reshape them in transformers' order (temperature, top-k, top-p, min-p)
// and the sampler draws one token from what is left. The engine reports each step through
// qwen3.ReplyOptions.OnStep (a qwen3.Step: the logits, the distribution the token was drawn
// from, the token); NewEvent summarises it as an Event:
//
//   - the top candidates by logit (20 by default) and the drawn token, each with its
//     probability under the model (P), after temperature (PT), after temperature and top-k (PK,
//     what top-p sums), in the distribution drawn from (Q, 0 when cut), and the warper that
//     cut it;
//   - the nucleus (the tokens kept: their count and their share of the mass before and after
//     temperature) and the tail (the tokens cut, likewise), and how many each warper cut;
//   - the entropy of the model's distribution, after temperature and of the one drawn from, in
//     bits; the step's time and position.
//
// Every probability is computed with chapter 09's functions on the engine's own logits (P with
// sampling.Softmax, PT with sampling.Temperature, the cuts by replaying sampling.Warp up to each
// warper), and Q is the engine's own distribution (qwen3.Step.Probs, chapter 09's Distribution
// of the sampler's input): the page never shows a distribution the engine did not sample from.
// NewEvent refuses a step whose replayed cuts disagree with it. Prefill is not sampling: the
// prompt's tokens are given, and the page shows them as such.
//
// # The page
//
// Handler serves a page (HTML, CSS and a small script embedded in the binary; no network, no
// build step): a text box (a chat in Qwen3's template, or a completion for a model never trained
// on it, such as the course's tiny one); per decode step a bar chart of the candidates, the
// nucleus, the tail, the entropies and the time; a timeline to click back through the steps
// (or click a token of the text, or use the arrow keys); a replay of a step that walks the
// candidates from the most likely down, filling the mass top-p sums up to its mark; and the
// settings (temperature, top-k, top-p, min-p, seed, thinking), a change of which runs the last
// message again. Colours are the Okabe-Ito palette, each with a label or a shape; below 820
// pixels the page is one column.
//
// The API under the page, all URLs relative so that it can be mounted under a prefix:
//
//	GET  /api/info      Info: the model, the context, the page's first settings
//	POST /api/generate  a Request; the answer is server-sent events, each "event: NAME" and
//	                    "data: JSON": "prompt" (PromptEvent, first), then per decode step a
//	                    "step" (Event) and the text it added, "text" (TextEvent), and last
//	                    "done" (DoneEvent) or "error" (ErrorEvent)
//
// A bad request gets a status (400 with what is wrong, 413 over 1 MiB, 429 while another reply
// runs: one reply at a time) and an ErrorEvent as JSON.
//
// # The trace
//
// `qwen3 run -trace steps.jsonl 'func main() {'` writes one Event a line, one per decode step (the
// stop token's included, Stop true); ReadTrace reads such a file back. An event costs a few
// milliseconds of CPU (a softmax over the whole vocabulary, twice: BenchmarkNewEvent); with no
// trace and no page the engine makes none: OnStep is nil and the loop copies nothing
// (qwen3/README.md has the speed measured before and after the hook).
package viz
