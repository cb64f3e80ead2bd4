package serve

import (
	"errors"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// textOut turns a reply's token ids into the text its client receives. Chapter 02's streaming
// decoder makes complete UTF-8 pieces (a character split over two tokens waits for the second);
// the request's stop strings then cut the text where the first of them appears, and the stop
// string itself is not sent (OpenAI's rule). Text that could be the start of a stop string is
// held back until the next tokens show whether it is: with stop "\n\n", a reply's "\n" waits for
// the next piece.
type textOut struct {
	dec   *tokenizer.StreamDecoder
	stops []string
	held  string // decoded, not yet released: the start of a stop string, perhaps
}

func newTextOut(tok *tokenizer.Tokenizer, stops []string) *textOut {
	return &textOut{dec: tok.NewStreamDecoder(false), stops: stops}
}

// add decodes id and returns the text that can be released now; stopped is true when a stop
// string appeared (text is then everything before it, and the reply is over). Ids the
// tokenizer has no text for (Qwen3's unused ids, which a random model may draw) add nothing,
// as the engine's own loop does.
func (t *textOut) add(id int) (text string, stopped bool) {
	piece, err := t.dec.Add(id)
	var unknown *tokenizer.UnknownIDError
	if errors.As(err, &unknown) {
		piece = ""
	}
	return t.release(t.held + piece)
}

// flush returns the rest of the text at the end of a reply that no stop string ended.
func (t *textOut) flush() string {
	text, _ := t.release(t.held + t.dec.Flush())
	rest := t.held
	t.held = ""
	return text + rest
}

// release splits buf into what may be sent and what must wait.
func (t *textOut) release(buf string) (string, bool) {
	if len(t.stops) == 0 {
		t.held = ""
		return buf, false
	}
	cut := -1
	for _, s := range t.stops {
		if i := strings.Index(buf, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		t.held = ""
		return buf[:cut], true
	}
	// Hold back the longest end of buf that begins a stop string.
	hold := 0
	for _, s := range t.stops {
		for n := min(len(s)-1, len(buf)); n > hold; n-- {
			if strings.HasSuffix(buf, s[:n]) {
				hold = n
				break
			}
		}
	}
	t.held = buf[len(buf)-hold:]
	return buf[:len(buf)-hold], false
}
