package plots

import (
	"fmt"
	"os"
	"path/filepath"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// ModelEnv names the environment variable that points the notebooks at the real Qwen3-0.6B: a
// GGUF file or a Hugging Face directory (scripts/download_qwen3.sh fetches both).
const ModelEnv = "QWEN3_MODEL"

// ModelChoice is the checkpoint a notebook draws behaviour from (attention maps, next-token
// distributions, the logit lens), and how to say which it is.
type ModelChoice struct {
	Path  string // a GGUF file or a Hugging Face directory: give it to qwen3.Load or forward.Load
	Real  bool   // true when QWEN3_MODEL named it
	About string // one sentence for a cell's output: which model, and what to expect of it
	Short string // a few words for a picture's title
}

// PickModel chooses the model the notebooks draw from: the checkpoint QWEN3_MODEL names when that
// variable is set (Qwen3-0.6B: the real model), else the course's tiny Qwen3 trained on Go
// source: the standard library, golang.org/x/tools and x/net (reference.TinyGGUF; see reference/README.md). A QWEN3_MODEL that names
// nothing is an error, so a typo does not silently fall back to the tiny model.
//
// Chapter 07 (forward.Load) widens every weight to float64: for Qwen3-0.6B that is 4.8 GB of
// memory (596 million weights x 8 bytes), on top of the file; the qwen3 engine keeps the file's
// own precision. Measured on the synthetic full-size BF16 GGUF (scripts/make_synthetic.py):
// loading, tracing a 32-token Go snippet, scoring every head and the logit lens peak at 6.9 GB
// resident (TestPickModelReal): a 16 GB laptop, not an 8 GB one.
func PickModel() (ModelChoice, error) {
	if p := os.Getenv(ModelEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return ModelChoice{}, fmt.Errorf("plots: %s=%s: %w", ModelEnv, p, err)
		}
		return ModelChoice{
			Path:  p,
			Real:  true,
			About: fmt.Sprintf("the model in %s (%s): Qwen3-0.6B's pictures", ModelEnv, p),
			Short: "the model in " + ModelEnv,
		}, nil
	}
	return ModelChoice{
		Path: reference.TinyGGUF(),
		About: "the course's tiny Qwen3 (6 layers, hidden 64), trained on Go (the standard library, x/tools, x/net): it completes Go code " +
			"and knows nothing else; set " + ModelEnv + " to draw from the real Qwen3-0.6B",
		Short: "tiny model trained on Go",
	}, nil
}

// Forward loads the chosen checkpoint as chapter 07's float64 model, whose ForwardTrace keeps the
// attention maps (forward.ScoreHeads) and every layer's residual stream (Model.LogitLens).
func (c ModelChoice) Forward() (*forward.Model, error) { return forward.Load(c.Path) }

// Snippets is what a label calls chapter 07's Go snippets (golden/07_forward/probes.json) for this
// model: "held-out Go" for the tiny model, which never trained on them (four come from files of
// its held-out split, two were written for the course), "Go snippets" for a real model, whose
// training data is not published and may well hold Go's standard library.
func (c ModelChoice) Snippets() string {
	if c.Real {
		return "Go snippets"
	}
	return "held-out Go"
}

// Tokenizer reads the chosen checkpoint's tokenizer with chapter 02: from the GGUF file's
// metadata, or from tokenizer.json beside a Hugging Face directory's weights.
func (c ModelChoice) Tokenizer() (*tokenizer.Tokenizer, error) {
	kind, err := gguf.DetectKind(c.Path)
	if err != nil {
		return nil, err
	}
	if kind != gguf.KindGGUF {
		dir := c.Path
		if kind == gguf.KindSafetensors {
			dir = filepath.Dir(dir)
		}
		return tokenizer.FromTokenizerJSON(filepath.Join(dir, "tokenizer.json"))
	}
	f, err := gguf.Open(c.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return tokenizer.FromGGUF(f)
}
