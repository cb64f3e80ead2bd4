package tokenizer

import (
	"fmt"
	"strings"
)

// Message is one turn of a chat.
type Message struct {
	Role    string // "system", "user", "assistant" or "tool"
	Content string
	// ReasoningContent, if not nil, is the assistant's thinking, given separately from Content.
	// If it is nil, the template looks for it in Content: text before "</think>" is reasoning.
	ReasoningContent *string
}

// ChatOptions are the template variables besides the messages.
type ChatOptions struct {
	// AddGenerationPrompt appends "<|im_start|>assistant\n" so that the model writes the next turn.
	AddGenerationPrompt bool
	// EnableThinking set to false (a pointer to false) appends an empty "<think>\n\n</think>\n\n"
	// after the generation prompt, which tells Qwen3 to answer without thinking. nil or true leave
	// the choice to the model, like omitting enable_thinking in Hugging Face.
	EnableThinking *bool
}

// Bool returns a pointer to b, for ChatOptions.EnableThinking.
func Bool(b bool) *bool { return &b }

// ApplyChatTemplate renders messages the way Qwen3's chat template (the chat_template of
// tokenizer_config.json, a Jinja program) does with transformers' apply_chat_template and no
// tools. Each turn is
//
//	<|im_start|>{role}\n{content}<|im_end|>\n
//
// with three twists for assistant turns, all from the template:
//   - reasoning is split from content at "</think>": content is what follows the last "</think>"
//     (leading newlines removed), reasoning is what precedes the first one, after the last
//     "<think>" (newlines trimmed), unless ReasoningContent gives it;
//   - assistant turns before the last real user query are rendered WITHOUT their reasoning (old
//     thoughts are dropped from the context); turns after it keep it as
//     "<think>\n{reasoning}\n</think>\n\n{content}" if they have reasoning or are the last message;
//   - consecutive tool messages are grouped into one user turn of <tool_response> blocks, and a
//     user message that is only a <tool_response> does not count as a real query.
//
// A system message is only special as the first message (it is rendered like any other turn).
// Roles other than the four above are an error (the template would silently drop them), and so
// are an empty chat. Tool definitions and assistant tool_calls are not supported.
func ApplyChatTemplate(messages []Message, opts ChatOptions) (string, error) {
	if len(messages) == 0 {
		return "", fmt.Errorf("tokenizer: chat template: no messages")
	}
	for i, m := range messages {
		switch m.Role {
		case "system", "user", "assistant", "tool":
		default:
			return "", fmt.Errorf("tokenizer: chat template: message %d has unknown role %q", i, m.Role)
		}
	}
	var sb strings.Builder
	lastQuery := lastQueryIndex(messages)
	for i, m := range messages {
		switch {
		case m.Role == "user" || m.Role == "system":
			sb.WriteString("<|im_start|>" + m.Role + "\n" + m.Content + "<|im_end|>\n")
		case m.Role == "assistant":
			content, reasoning := splitReasoning(m)
			sb.WriteString("<|im_start|>assistant\n")
			if i > lastQuery && (i == len(messages)-1 || reasoning != "") {
				sb.WriteString("<think>\n" + strings.Trim(reasoning, "\n") + "\n</think>\n\n" +
					strings.TrimLeft(content, "\n"))
			} else {
				sb.WriteString(content)
			}
			sb.WriteString("<|im_end|>\n")
		case m.Role == "tool":
			if i == 0 || messages[i-1].Role != "tool" {
				sb.WriteString("<|im_start|>user")
			}
			sb.WriteString("\n<tool_response>\n" + m.Content + "\n</tool_response>")
			if i == len(messages)-1 || messages[i+1].Role != "tool" {
				sb.WriteString("<|im_end|>\n")
			}
		}
	}
	if opts.AddGenerationPrompt {
		sb.WriteString("<|im_start|>assistant\n")
		if opts.EnableThinking != nil && !*opts.EnableThinking {
			sb.WriteString("<think>\n\n</think>\n\n")
		}
	}
	return sb.String(), nil
}

// lastQueryIndex is the index of the last user message that is a real query (not a wrapped tool
// response), or len(messages)-1 if there is none: the template's ns.last_query_index.
func lastQueryIndex(messages []Message) int {
	for i := len(messages) - 1; i >= 0; i-- {
		m := messages[i]
		isToolResponse := strings.HasPrefix(m.Content, "<tool_response>") && strings.HasSuffix(m.Content, "</tool_response>")
		if m.Role == "user" && !isToolResponse {
			return i
		}
	}
	return len(messages) - 1
}

// splitReasoning separates an assistant message's reasoning from its answer, as the template does:
//
//	content   = content.split('</think>')[-1].lstrip('\n')
//	reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n')
func splitReasoning(m Message) (content, reasoning string) {
	content = m.Content
	if m.ReasoningContent != nil {
		return content, *m.ReasoningContent
	}
	if !strings.Contains(content, "</think>") {
		return content, ""
	}
	parts := strings.Split(m.Content, "</think>")
	content = strings.TrimLeft(parts[len(parts)-1], "\n")
	before := strings.TrimRight(parts[0], "\n")
	if k := strings.LastIndex(before, "<think>"); k >= 0 {
		before = before[k+len("<think>"):]
	}
	reasoning = strings.TrimLeft(before, "\n")
	return content, reasoning
}
