package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qwen3go/qwen3go/qwen3"
)

const chatHelp = `commands:
  /help, /?            this list
  /clear               a new conversation, with the same system prompt
  /system [TEXT]       show the system prompt, or set it to TEXT ("" removes it); the conversation goes on
  /set NAME VALUE      change a setting: temperature, top-k, top-p, min-p, seed, max-tokens;
                       VALUE "default" is the model's recommendation (temperature, top-k, top-p, min-p)
  /show                the settings, the system prompt and how full the context is
  /think, /nothink     turn Qwen3's thinking on or off for the next replies
  /stats               the last reply's tokens, speed and why it ended
  /bye, /exit, /quit   leave (so does Ctrl-D)
input:
  """ starts several lines, and """ ends them; a pasted paragraph stays one message
  a message that starts with / is a command: start it with a space, or put it between """, to send it
  Ctrl-C stops a reply (the part said is kept) or clears the line; Up and Down walk the history, Ctrl-R searches it`

// command runs a slash command; quit is true when the chat should end.
func (s *chatSession) command(entry string) (quit bool, err error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(entry), " ")
	arg = strings.TrimSpace(arg)
	out := s.e.stderr
	switch name {
	case "/help", "/?":
		fmt.Fprintln(out, chatHelp)
	case "/bye", "/exit", "/quit":
		return true, nil
	case "/clear":
		s.chat.Reset()
		fmt.Fprintln(out, "new conversation (same system prompt)")
	case "/system":
		switch arg {
		case "":
			if sys := s.chat.System(); sys != "" {
				fmt.Fprintf(out, "system prompt: %s\n", sys)
			} else {
				fmt.Fprintln(out, "no system prompt; /system TEXT sets one")
			}
		case `""`:
			s.chat.SetSystem("")
			fmt.Fprintln(out, "system prompt removed")
		default:
			s.chat.SetSystem(unquote(arg))
			fmt.Fprintln(out, "system prompt set")
		}
	case "/set":
		if arg == "" {
			s.show()
			return false, nil
		}
		return false, s.set(arg)
	case "/show":
		s.show()
	case "/think", "/nothink":
		s.chat.Thinking = name == "/think"
		fmt.Fprintf(out, "thinking %s\n", onOff(s.chat.Thinking))
	case "/stats":
		if s.chat.Last() == (qwen3.Stats{}) {
			fmt.Fprintln(out, "no reply yet")
		} else {
			fmt.Fprintln(out, formatStats(s.chat.Last()))
		}
		used, size := s.chat.Context()
		fmt.Fprintf(out, "context: %d of %d tokens used\n", used, size)
	default:
		return false, fmt.Errorf("unknown command %s (/help lists them; start a message with a space to send it)", name)
	}
	return false, nil
}

// set changes one setting of the next replies, keeping it unchanged when the value is invalid.
func (s *chatSession) set(arg string) error {
	name, value, _ := strings.Cut(arg, " ")
	name = strings.ReplaceAll(strings.ToLower(name), "_", "-")
	value = strings.TrimSpace(value)
	if value == "" {
		return fmt.Errorf("/set %s needs a value", name)
	}
	next := s.chat.Reply // a copy: it becomes the chat's only if it resolves
	sm := next.Sampling
	float := func() (*float64, error) {
		if value == "default" {
			return nil, nil
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("/set %s %s: not a number", name, value)
		}
		return &v, nil
	}
	var err error
	switch name {
	case "temperature":
		sm.Temperature, err = float()
	case "top-p":
		sm.TopP, err = float()
	case "min-p":
		sm.MinP, err = float()
	case "top-k":
		if value != "default" {
			k, e := strconv.Atoi(value)
			if e != nil {
				return fmt.Errorf("/set top-k %s: not a whole number", value)
			}
			sm.TopK = &k
		} else {
			sm.TopK = nil
		}
	case "seed":
		seed, e := strconv.ParseUint(value, 10, 64)
		if e != nil {
			return fmt.Errorf("/set seed %s: not a whole number >= 0", value)
		}
		sm.Seed = seed
	case "max-tokens":
		n, e := strconv.Atoi(value)
		if e != nil || n < 1 {
			return fmt.Errorf("/set max-tokens %s: must be a whole number >= 1", value)
		}
		next.MaxNewTokens = n
	default:
		return fmt.Errorf("/set %s: no such setting (temperature, top-k, top-p, min-p, seed, max-tokens)", name)
	}
	if err != nil {
		return err
	}
	if _, err := s.m.Settings(sm); err != nil {
		return fmt.Errorf("/set %s %s: %v", name, value, strings.TrimPrefix(err.Error(), "qwen3: "))
	}
	next.Sampling = sm
	s.chat.Reply = next
	fmt.Fprintf(s.e.stderr, "%s %s\n", name, value)
	return nil
}

// show prints the settings of the next replies.
func (s *chatSession) show() {
	out := s.e.stderr
	r, err := s.m.Settings(s.chat.Reply.Sampling)
	if err != nil {
		fmt.Fprintln(out, "error:", err)
		return
	}
	mode := "sampling"
	if r.IsGreedy() {
		mode = "greedy (temperature 0)"
	}
	fmt.Fprintf(out, "%s: temperature %g, top-k %d, top-p %g, min-p %g, seed %d (the model recommends %s)\n",
		mode, r.Temperature, r.TopK, r.TopP, r.MinP, r.Seed, recommended(s.m))
	fmt.Fprintf(out, "max-tokens %d, thinking %s\n", s.chat.Reply.MaxNewTokens, onOff(s.chat.Thinking))
	if sys := s.chat.System(); sys != "" {
		fmt.Fprintf(out, "system prompt: %s\n", short(sys, 200))
	} else {
		fmt.Fprintln(out, "no system prompt")
	}
	used, size := s.chat.Context()
	fmt.Fprintf(out, "context: %d of %d tokens used; ", used, size)
	if n := s.conversation(); n == 0 {
		fmt.Fprintln(out, "no messages yet")
	} else if n == s.chat.Dropped() {
		fmt.Fprintf(out, "%d messages, none in the model's view\n", n)
	} else {
		fmt.Fprintf(out, "%d messages, the model sees the last %d\n", n, n-s.chat.Dropped())
	}
}

// conversation is the number of messages after the system prompt.
func (s *chatSession) conversation() int {
	n := len(s.chat.Messages())
	if s.chat.System() != "" {
		n--
	}
	return n
}

func recommended(m *qwen3.Model) string {
	d := m.DefaultSettings(0)
	return fmt.Sprintf("temperature %g, top-k %d, top-p %g, min-p %g", d.Temperature, d.TopK, d.TopP, d.MinP)
}

// onOff says a switch the way /think and /nothink name it.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
